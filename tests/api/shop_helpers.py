"""Helpers for the cart, checkout, order and favourite tests: rows written straight to the database."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlmodel import func, select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.catalog import refresh_derived


def add_address(user: models.User, *, is_default: bool = False, **fields) -> models.Address:
    values = {"line1": "12 Ring Road", "city": "Accra", "country": "Ghana", "state": "Greater Accra", **fields}
    with session_scope() as session:
        address = models.Address(user_id=user.id, is_default=is_default, **values)
        session.add(address)
    return address


def add_coupon(
    code: str, kind: str = "percent", value: str = "10", *, active: bool = True, expires_at: datetime | None = None
) -> models.Coupon:
    with session_scope() as session:
        coupon = models.Coupon(code=code, kind=kind, value=Decimal(value), active=active, expires_at=expires_at)
        session.add(coupon)
    return coupon


def update_product(product_id: str, **fields) -> None:
    """Change a product as an admin would (derived price columns kept in step)."""
    with session_scope() as session:
        product = session.get(models.Product, product_id)
        for name, value in fields.items():
            setattr(product, name, Decimal(value) if name in ("price", "discount_price") and value else value)
        session.add(refresh_derived(product))


def stock_of(product_id: str) -> int:
    with session_scope() as session:
        return session.get(models.Product, product_id).stock


def count_rows(model) -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(model)).one()


def cart_quantities(user: models.User) -> dict[str, int]:
    """product id → quantity in the user's server cart."""
    with session_scope() as session:
        rows = session.exec(
            select(models.CartItem.product_id, models.CartItem.quantity)
            .join(models.Cart, models.Cart.id == models.CartItem.cart_id)
            .where(models.Cart.user_id == user.id)
        ).all()
    return dict(rows)
