"""Favourite products of logged-in users."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from .base import id_field, utcnow


class Favourite(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("user_id", "product_id", name="uq_favourite_user_product"),)

    id: str = id_field()
    user_id: str = Field(
        sa_column=Column(String(36), ForeignKey("user.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    product_id: str = Field(
        sa_column=Column(String(36), ForeignKey("product.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    added_at: datetime = Field(default_factory=utcnow, nullable=False)
