"""Favourite products of logged-in users."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from .base import id_field, parent_field, utcnow


class Favourite(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("user_id", "product_id", name="uq_favourite_user_product"),)

    id: str = id_field()
    user_id: str = parent_field("user")
    product_id: str = parent_field("product")
    added_at: datetime = Field(default_factory=utcnow, nullable=False)
