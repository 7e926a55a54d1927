"""Reviews of products by the customers who bought them (issue 34)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, parent_field, updated_field

MAX_REVIEW_TEXT = 2000


class Review(SQLModel, table=True):
    __table_args__ = (
        # One review per product per customer: a second one is an edit (services.reviews.post_review).
        UniqueConstraint("product_id", "user_id", name="uq_review_product_user"),
        # A product's published reviews, newest first (the product page and its average).
        Index("ix_review_product_hidden_created", "product_id", "is_hidden", "created_at"),
        # The back office's list, newest first.
        Index("ix_review_created_at", "created_at"),
    )

    id: str = id_field()
    product_id: str = parent_field("product", index=False)
    user_id: str = parent_field("user")
    rating: int
    # Plain text (stripped, control characters removed); faces render it as text, never as HTML.
    text: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    # Hidden by an admin: left out of the product's page and average until shown again.
    is_hidden: bool = Field(default=False)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
