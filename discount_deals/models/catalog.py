"""Catalogue: categories and products."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import JSON, Column, ForeignKey, Index, String
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, updated_field


class ProductStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"


class Category(SQLModel, table=True):
    id: str = id_field()
    name: str = Field(max_length=120, unique=True)
    slug: str = Field(max_length=140, unique=True)
    description: str = Field(default="")
    parent_id: str | None = Field(
        default=None,
        sa_column=Column(String(36), ForeignKey("category.id", ondelete="SET NULL"), nullable=True),
    )
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class Product(SQLModel, table=True):
    __table_args__ = (
        # The storefront's default listing: visible products by name.
        Index("ix_product_visible_name", "status", "is_available", "name"),
    )

    id: str = id_field()
    name: str = Field(max_length=200, index=True)
    # Lower-cased, trimmed name: product names are unique regardless of case.
    name_key: str = Field(max_length=200, unique=True)
    description: str = Field(default="")
    brand: str = Field(default="", max_length=80, index=True)
    image_url: str = Field(default="", max_length=500)
    price: Decimal = Field(max_digits=12, decimal_places=2)
    discount_price: Decimal | None = Field(default=None, max_digits=12, decimal_places=2)
    # Derived by services.pricing on every write so the shop can filter and sort in SQL.
    effective_price: Decimal = Field(max_digits=12, decimal_places=2, index=True)
    discount_percent: int = Field(default=0, index=True)
    discount_start: datetime | None = Field(default=None)
    discount_end: datetime | None = Field(default=None)
    rating: float = Field(default=0.0, index=True)
    stock: int = Field(default=0, index=True)  # the back office lists low-stock products
    is_featured: bool = Field(default=False, index=True)
    is_available: bool = Field(default=True)
    status: str = Field(default=ProductStatus.ACTIVE.value, max_length=16, index=True)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    related_products: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    category_id: str = Field(
        sa_column=Column(String(36), ForeignKey("category.id", ondelete="RESTRICT"), nullable=False, index=True)
    )
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
