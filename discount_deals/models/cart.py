"""Server-side carts of logged-in users (guests keep theirs in the browser)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, parent_field, updated_field


class Cart(SQLModel, table=True):
    """A signed-in customer's cart. ``updated_at`` is bumped by every change of its lines
    (``services.cart``): it is when the cart was last touched, what a reminder waits on."""

    id: str = id_field()
    user_id: str = parent_field("user", index=False, unique=True)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
    # When the last reminder about this cart was queued (services.messages.reminders).
    reminded_at: datetime | None = Field(default=None)


class CartItem(SQLModel, table=True):
    __tablename__ = "cart_item"
    __table_args__ = (UniqueConstraint("cart_id", "product_id", name="uq_cart_item_product"),)

    id: str = id_field()
    cart_id: str = parent_field("cart")
    product_id: str = parent_field("product")
    quantity: int = Field(default=1)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
