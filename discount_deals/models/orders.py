"""Orders with snapshotted lines, their payments and history, pickup stores, and coupons."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, Column, Integer, Numeric, String, UniqueConstraint, false
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, money_field, optional_ref_field, parent_field, updated_field, utcnow


class OrderStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    SHIPPED = "shipped"
    READY_FOR_PICKUP = "ready_for_pickup"
    DELIVERED = "delivered"
    # Orders finished before delivery statuses existed; nothing moves an order here any more.
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class PaymentStatus(StrEnum):
    PAY_ON_DELIVERY = "pay_on_delivery"
    AWAITING_PAYMENT = "awaiting_payment"
    PAID = "paid"
    FAILED = "failed"
    REFUNDED = "refunded"


class PaymentMethod(StrEnum):
    CASH_ON_DELIVERY = "cash_on_delivery"
    MOBILE_MONEY = "mobile_money"


class DeliveryMethod(StrEnum):
    DELIVERY = "delivery"
    PICKUP = "pickup"


class Attention(StrEnum):
    """Why an order waits for an admin (``Order.attention``)."""

    AMOUNT_MISMATCH = "amount_mismatch"  # the provider reported a payment of another amount
    REFUND_DUE = "refund_due"  # money was received for an order that is cancelled
    REFUNDED_TWICE = "refunded_twice"  # the provider made a refund that was paid in cash in its place
    PICKUP_STORE_CHANGED = "pickup_store_changed"  # its store closed or moved before it was collected


class PaymentAttemptStatus(StrEnum):
    """Where one charge attempt (``Payment.status``) stands: the provider decides it."""

    PENDING = "pending"  # asked for, no answer yet
    SUCCESS = "success"
    FAILED = "failed"
    MISMATCH = "mismatch"  # the provider reported another amount than the order's total


class CouponKind(StrEnum):
    PERCENT = "percent"
    FIXED = "fixed"


class Order(SQLModel, table=True):
    __tablename__ = "order"
    __table_args__ = (UniqueConstraint("user_id", "idempotency_key", name="uq_order_idempotency"),)

    id: str = id_field()
    user_id: str = parent_field("user")
    status: str = Field(default=OrderStatus.PENDING.value, max_length=16, index=True)
    item_count: int = Field(default=0)
    subtotal: Decimal = money_field(default=Decimal("0.00"))
    savings: Decimal = money_field(default=Decimal("0.00"))
    discount: Decimal = money_field(default=Decimal("0.00"))
    shipping: Decimal = money_field(default=Decimal("0.00"))
    tax: Decimal = money_field(default=Decimal("0.00"))
    # ``tax`` as the taxes it was placed with (services.taxes.TaxLine.as_json: code, label, rate,
    # amount, included), summing to it; never recomputed with later settings.
    tax_lines: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    total: Decimal = money_field(default=Decimal("0.00"))
    coupon_code: str | None = Field(default=None, max_length=64)
    address: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    idempotency_key: str | None = Field(default=None, max_length=128)
    delivery_method: str = Field(
        default=DeliveryMethod.DELIVERY.value,
        sa_column=Column(String(16), nullable=False, index=True, server_default=DeliveryMethod.DELIVERY.value),
    )
    pickup_store_id: str | None = optional_ref_field("pickup_store")
    # What the store was when the order was placed (name, address, hours), kept if the store changes.
    pickup_store: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    payment_method: str = Field(
        default=PaymentMethod.CASH_ON_DELIVERY.value,
        sa_column=Column(String(24), nullable=False, server_default=PaymentMethod.CASH_ON_DELIVERY.value),
    )
    payment_status: str = Field(
        default=PaymentStatus.PAY_ON_DELIVERY.value,
        sa_column=Column(String(24), nullable=False, index=True, server_default=PaymentStatus.PAY_ON_DELIVERY.value),
    )
    # The current payment attempt's reference and where the shopper completes it.
    payment_reference: str | None = Field(default=None, max_length=64)
    payment_url: str | None = Field(default=None, max_length=500)
    payment_network: str | None = Field(default=None, max_length=16)
    payment_phone: str | None = Field(default=None, max_length=16)
    # The number the rider (or the pickup store) calls about the order, E.164 (services.phones).
    contact_phone: str | None = Field(default=None, max_length=16)
    # What the current charge waits for (services.payments: send_otp, pay_offline, pending), and
    # the provider's words to the shopper ("Dial *110# to generate a voucher...").
    payment_step: str | None = Field(default=None, max_length=16)
    payment_prompt: str = Field(default="", sa_column=Column(String(300), nullable=False, server_default=""))
    # Charged through the fake provider: no money moved (shown to the shopper and in the back office).
    payment_test: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # An unpaid mobile-money order gives its stock back after this moment.
    payment_due_at: datetime | None = Field(default=None, index=True)
    # Set when an admin must act (an Attention code), with a sentence for the back office.
    attention: str | None = Field(default=None, max_length=32, index=True)
    attention_note: str = Field(default="", sa_column=Column(String(500), nullable=False, server_default=""))
    # Given when the money is in (services.receipts): "DD-2026-000001", never reused.
    receipt_number: str | None = Field(default=None, max_length=32, unique=True)
    receipt_issued_at: datetime | None = Field(default=None)
    # When it was delivered (or collected): returns are open for DD_RETURN_DAYS after it.
    delivered_at: datetime | None = Field(default=None)
    # The DD_RETURN_DAYS the checkout promised (None: placed before it was kept; the setting applies).
    return_days: int | None = Field(default=None)
    # Money given back by refunds of returns (services.returns), summed as each is refunded.
    refunded_total: Decimal = Field(
        default=Decimal("0.00"), sa_column=Column(Numeric(12, 2), nullable=False, server_default="0.00")
    )
    created_at: datetime = Field(default_factory=utcnow, nullable=False, index=True)
    updated_at: datetime = updated_field()


class ReceiptCounter(SQLModel, table=True):
    """The last receipt number given per prefix and year (services.receipts counts on it in the
    transaction that marks an order's money received, so a rollback leaves no gap)."""

    __tablename__ = "receipt_counter"

    prefix: str = Field(primary_key=True, max_length=16)
    year: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    last_number: int = Field(default=0)


class OrderItem(SQLModel, table=True):
    __tablename__ = "order_item"

    id: str = id_field()
    order_id: str = parent_field("order")
    # Kept when the product is later deleted: the line keeps its snapshot.
    product_id: str | None = optional_ref_field("product", index=True)
    name: str = Field(max_length=200)
    image_url: str = Field(default="", max_length=500)
    unit_price: Decimal = money_field()
    original_price: Decimal = money_field()
    quantity: int
    line_total: Decimal = money_field()


class Coupon(SQLModel, table=True):
    """A code that takes a percentage or a fixed amount off an order's subtotal (services.coupons)."""

    id: str = id_field()
    code: str = Field(max_length=64, unique=True)
    kind: str = Field(max_length=16)
    value: Decimal = money_field()
    active: bool = Field(default=True)
    # Valid until this moment (exclusive, UTC); None: no expiry.
    expires_at: datetime | None = Field(default=None)
    # How many orders may use it in all (None: no limit), and how many have: checkout counts a
    # use with a guarded UPDATE (used_count < usage_limit) in the order's own transaction.
    usage_limit: int | None = Field(default=None)
    used_count: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # The smallest subtotal (after product discounts) the coupon applies to; None: any.
    min_subtotal: Decimal | None = money_field(default=None)
    created_at: datetime = created_field()


class Payment(SQLModel, table=True):
    """One attempt to collect an order's total through the payment provider."""

    id: str = id_field()
    order_id: str = parent_field("order")
    provider: str = Field(max_length=32)
    reference: str = Field(max_length=64, unique=True)
    amount: Decimal = money_field()
    currency: str = Field(max_length=3)
    # A PaymentAttemptStatus: pending until the provider reports success, failure or another amount.
    status: str = Field(default=PaymentAttemptStatus.PENDING.value, max_length=16)
    # What the provider last reported (amount in minor units, its own status...), for admins.
    provider_data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class OrderEvent(SQLModel, table=True):
    """One entry of an order's timeline: a status or payment change, who made it and when."""

    __tablename__ = "order_event"

    id: str = id_field()
    order_id: str = parent_field("order")
    kind: str = Field(max_length=16)  # "status" | "payment" | "attention"
    from_value: str | None = Field(default=None, max_length=32)
    to_value: str = Field(max_length=32)
    # The user who acted (None: the customer's payment provider or the shop's own timers).
    actor_id: str | None = optional_ref_field("user")
    # Who it was, kept readable if the account is deleted ("ama@example.com", "payment provider").
    actor_label: str = Field(default="", max_length=254)
    note: str = Field(default="", max_length=500)
    created_at: datetime = created_field()


class PickupStore(SQLModel, table=True):
    """A partner store where shoppers collect orders (edited by admins)."""

    __tablename__ = "pickup_store"

    id: str = id_field()
    name: str = Field(max_length=120, unique=True)
    retailer: str = Field(default="", max_length=80)
    address: str = Field(max_length=255)
    city: str = Field(max_length=120)
    phone: str = Field(default="", max_length=32)
    opening_hours: str = Field(default="", max_length=120)
    is_active: bool = Field(default=True)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()
