"""Shop builders for the cart, checkout, order and favourite tests: addresses, the shopper who has
one, coupons, and the server cart read back."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from .accounts import new_user


def add_address(user: models.User, *, is_default: bool = False, **fields) -> models.Address:
    values = {"line1": "12 Ring Road", "city": "Accra", "country": "Ghana", "state": "Greater Accra", **fields}
    with session_scope() as session:
        address = models.Address(user_id=user.id, is_default=is_default, **values)
        session.add(address)
    return address


def new_shopper(**fields: Any) -> models.User:
    """A customer with a default delivery address: one who can check out."""
    user = new_user(**fields)
    add_address(user, is_default=True)
    return user


def add_coupon(
    code: str, kind: str = "percent", value: str = "10", *, active: bool = True, expires_at: datetime | None = None
) -> models.Coupon:
    with session_scope() as session:
        coupon = models.Coupon(code=code, kind=kind, value=Decimal(value), active=active, expires_at=expires_at)
        session.add(coupon)
    return coupon


def cart_quantities(user: models.User) -> dict[str, int]:
    """product id → quantity in the user's server cart."""
    with session_scope() as session:
        rows = session.exec(
            select(models.CartItem.product_id, models.CartItem.quantity)
            .join(models.Cart, models.Cart.id == models.CartItem.cart_id)
            .where(models.Cart.user_id == user.id)
        ).all()
    return dict(rows)
