"""Catalogue builders: categories and products written straight to the database, as an admin
would leave them (derived price columns in step), and the product's stock read back."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.catalog import refresh_derived, slugify

from . import unique_number


def new_category(name: str | None = None, **fields: Any) -> models.Category:
    name = name or f"Category {unique_number()}"
    with session_scope() as session:
        category = models.Category(name=name, slug=fields.pop("slug", slugify(name)), **fields)
        session.add(category)
    return category


def new_product(name: str | None = None, price: str = "10.00", discount_price: str | None = None,
                **fields: Any) -> models.Product:
    """A product (10 in stock, brand shoprite); ``category`` may be a Category (a new one when omitted)."""
    category = fields.pop("category", None) or new_category()
    product = models.Product(
        name=name or f"Product {unique_number()}",
        price=Decimal(price),
        discount_price=Decimal(discount_price) if discount_price is not None else None,
        category_id=category.id,
        effective_price=Decimal(price),
        **{"stock": 10, "brand": "shoprite", **fields},
    )
    with session_scope() as session:
        session.add(refresh_derived(product))
    return product


def update_product(product_id: str, **fields: Any) -> None:
    """Change a product as an admin would (derived price columns kept in step)."""
    with session_scope() as session:
        product = session.get(models.Product, product_id)
        for name, value in fields.items():
            setattr(product, name, Decimal(value) if name in ("price", "discount_price") and value else value)
        session.add(refresh_derived(product))


def stock_of(product_id: str) -> int:
    with session_scope() as session:
        return session.get(models.Product, product_id).stock
