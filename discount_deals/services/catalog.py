"""Catalogue rules: products and categories (queries, validation, writes)."""

from __future__ import annotations

import re

from ..models import Product
from .pricing import discount_percent, effective_price


def name_key(name: str) -> str:
    """Product names are unique regardless of case and surrounding blanks."""
    return " ".join((name or "").split()).lower()


def slugify(name: str) -> str:
    """SPEC §5: lowercase, trim, drop characters other than word characters, spaces and hyphens,
    and turn spaces into hyphens."""
    text = re.sub(r"[^\w\s-]", "", (name or "").lower().strip())
    return re.sub(r"\s+", "-", text)


def refresh_derived(product: Product) -> Product:
    """Recompute the columns derived from a product's prices and name (call before every write)."""
    product.name_key = name_key(product.name)
    product.effective_price = effective_price(product.price, product.discount_price)
    product.discount_percent = discount_percent(product.price, product.discount_price)
    return product


def is_visible(product: Product) -> bool:
    """Shoppers see (and may buy) only active, available products."""
    return product.status == "active" and bool(product.is_available)


def visible_clause():
    """SQL form of :func:`is_visible`."""
    return (Product.status == "active") & (Product.is_available == True)  # noqa: E712
