"""Catalogue: categories and products."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import JSON, Column, Index, String, text
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, money_field, optional_ref_field, parent_field, updated_field


class ProductStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"


class Category(SQLModel, table=True):
    id: str = id_field()
    name: str = Field(max_length=120, unique=True)
    slug: str = Field(max_length=140, unique=True)
    description: str = Field(default="")
    parent_id: str | None = optional_ref_field("category")
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


# What shoppers may see (services.catalog.visible_clause spells it the same way, with literals,
# so that the planner can prove these partial indexes apply to its queries).
_VISIBLE = {
    "sqlite_where": text("status = 'active' AND is_available = 1"),
    "postgresql_where": text("status = 'active' AND is_available = true"),
}


def _code_point_text(length: int) -> String:
    """Text that sorts by code point on both engines: SQLite's BINARY does; PostgreSQL's "C"
    collation does, whatever the server's own (en_US sorts "rice oil" after "ricebran")."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


def _visible_index(name: str, *columns: str) -> Index:
    # status and is_available close every entry: SQLite does not count the index's WHERE as
    # proof, so without them a count would read each row to check what the index already knows.
    return Index(f"ix_product_visible_{name}", *columns, "status", "is_available", **_VISIBLE)


class Product(SQLModel, table=True):
    __table_args__ = (
        # One index per listing the shop serves, each in the order of the listing's ORDER BY
        # (by name: name_sort, then name_key, which is unique, so it ends every order): a page is
        # a short walk of one index.
        _visible_index("newest", "created_at", "id"),
        # The shoppers' default order (featured first, then newest), over everything and by category.
        _visible_index("featured", "is_featured", "created_at", "id"),
        _visible_index("category_featured", "category_id", "is_featured", "created_at", "id"),
        _visible_index("name", "name_sort", "name_key"),
        _visible_index("price", "effective_price", "name_sort", "name_key"),
        _visible_index("category_newest", "category_id", "created_at", "id"),
        _visible_index("category_name", "category_id", "name_sort", "name_key"),
        _visible_index("category_price", "category_id", "effective_price", "name_sort", "name_key"),
        # The admin's list (every product, newest first).
        Index("ix_product_created_at_id", "created_at", "id"),
    )

    id: str = id_field()
    name: str = Field(max_length=200)
    # Lower-cased, trimmed name (NFKC): product names are unique regardless of case.
    name_key: str = Field(max_length=200, unique=True, sa_type=_code_point_text(200))
    # How names sort (services.catalog.validation.name_sort): folded as search folds them (accents
    # removed, case-blind, NFKC), compared by code point on both engines, name_key breaking ties.
    name_sort: str = Field(default="", max_length=200, sa_type=_code_point_text(200),
                           sa_column_kwargs={"server_default": ""})
    description: str = Field(default="")
    brand: str = Field(default="", max_length=80, index=True)
    image_url: str = Field(default="", max_length=500)
    price: Decimal = money_field()
    discount_price: Decimal | None = money_field(default=None)
    # Derived by services.pricing on every write so the shop can filter and sort in SQL: the
    # price in force now (the discount only inside its window). price_changes_at is when the
    # window next opens or closes; services.catalog.price_schedule recomputes the rows whose
    # moment has passed.
    effective_price: Decimal = money_field()
    discount_percent: int = Field(default=0, index=True)
    discount_start: datetime | None = Field(default=None)
    discount_end: datetime | None = Field(default=None)
    price_changes_at: datetime | None = Field(default=None, index=True)
    # A flash sale's cap: units one customer may buy while the discount window is open (None: no
    # cap); services.flash_sales applies it in the cart and at checkout.
    per_customer_limit: int | None = Field(default=None)
    # What shoppers see: the average of the published reviews (services.reviews keeps it, with
    # review_count, in the review's transaction) or, while there are none, the admin's number.
    # Kept here so that the listing sorts by it in SQL.
    rating: float = Field(default=0.0, index=True)
    # The admin's number once reviews have taken ``rating`` over (NULL: ``rating`` is the admin's),
    # so that it returns when every review is hidden.
    admin_rating: float | None = Field(default=None)
    review_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    stock: int = Field(default=0, index=True)  # the back office lists low-stock products
    is_featured: bool = Field(default=False, index=True)
    is_available: bool = Field(default=True)
    # No index of its own: nearly every product is active, and an index on status lures SQLite's
    # planner away from the listing indexes below.
    status: str = Field(default=ProductStatus.ACTIVE.value, max_length=16)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    related_products: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    category_id: str = parent_field("category", ondelete="RESTRICT")
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
