"""Orders with snapshotted lines, and coupons."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, updated_field, utcnow


class OrderStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class CouponKind(StrEnum):
    PERCENT = "percent"
    FIXED = "fixed"


def _money(**kwargs: Any) -> Decimal:
    return Field(max_digits=12, decimal_places=2, **kwargs)


class Order(SQLModel, table=True):
    __tablename__ = "order"
    __table_args__ = (UniqueConstraint("user_id", "idempotency_key", name="uq_order_idempotency"),)

    id: str = id_field()
    user_id: str = Field(
        sa_column=Column(String(36), ForeignKey("user.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    status: str = Field(default=OrderStatus.PENDING.value, max_length=16, index=True)
    item_count: int = Field(default=0)
    subtotal: Decimal = _money(default=Decimal("0.00"))
    savings: Decimal = _money(default=Decimal("0.00"))
    discount: Decimal = _money(default=Decimal("0.00"))
    shipping: Decimal = _money(default=Decimal("0.00"))
    tax: Decimal = _money(default=Decimal("0.00"))
    total: Decimal = _money(default=Decimal("0.00"))
    coupon_code: str | None = Field(default=None, max_length=64)
    address: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    idempotency_key: str | None = Field(default=None, max_length=128)
    created_at: datetime = Field(default_factory=utcnow, nullable=False, index=True)
    updated_at: datetime = updated_field()


class OrderItem(SQLModel, table=True):
    __tablename__ = "order_item"

    id: str = id_field()
    order_id: str = Field(
        sa_column=Column(String(36), ForeignKey("order.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    # Kept when the product is later deleted: the line keeps its snapshot.
    product_id: str | None = Field(
        default=None,
        sa_column=Column(String(36), ForeignKey("product.id", ondelete="SET NULL"), nullable=True, index=True),
    )
    name: str = Field(max_length=200)
    image_url: str = Field(default="", max_length=500)
    unit_price: Decimal = _money()
    original_price: Decimal = _money()
    quantity: int
    line_total: Decimal = _money()


class Coupon(SQLModel, table=True):
    id: str = id_field()
    code: str = Field(max_length=64, unique=True)
    kind: str = Field(max_length=16)
    value: Decimal = _money()
    active: bool = Field(default=True)
    expires_at: datetime | None = Field(default=None)
    created_at: datetime = created_field()
