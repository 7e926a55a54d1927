"""Returns of delivered orders and their refunds (issue 33): a return, its lines, its credit note."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, money_field, optional_ref_field, parent_field, updated_field


class ReturnStatus(StrEnum):
    """requested → approved | rejected; approved → received (stock back); received → refunded;
    requested or approved → withdrawn (by its customer, before the items came back)."""

    REQUESTED = "requested"
    APPROVED = "approved"
    REJECTED = "rejected"
    RECEIVED = "received"
    REFUNDED = "refunded"
    WITHDRAWN = "withdrawn"


class RefundMethod(StrEnum):
    """How the money goes back: the way the order was paid."""

    MOBILE_MONEY = "mobile_money"
    CASH = "cash"


class RefundState(StrEnum):
    """Where a mobile-money refund stands with the provider (``ReturnRequest.refund_state``)."""

    NONE = ""
    SENDING = "sending"  # claimed: the provider is being asked (one refund of an order at a time)
    # The provider accepted it and sends it later (Paystack's "pending"): the return stays received,
    # with no credit note, until its final word (a webhook, or the admin's "Check refund").
    PENDING = "pending"
    FAILED = "failed"  # the provider refused or could not be reached: the return stays received
    DONE = "done"


class ReturnRequest(SQLModel, table=True):
    """A customer's request to send back items of a delivered order, and its refund."""

    __tablename__ = "order_return"

    id: str = id_field()
    order_id: str = parent_field("order")
    user_id: str = parent_field("user")
    status: str = Field(default=ReturnStatus.REQUESTED.value, max_length=16, index=True)
    reason: str = Field(max_length=500)
    # Why an admin rejected it (shown to the customer), or a note on another step.
    admin_note: str = Field(default="", max_length=500)
    # What the refund pays back (services.returns.shares): goods less their coupon share, plus
    # tax added to prices, plus shipping when this return completes the order. Estimated when
    # requested, fixed when refunded.
    refund_amount: Decimal = money_field(default=Decimal("0.00"))
    refund_discount: Decimal = money_field(default=Decimal("0.00"))
    refund_tax: Decimal = money_field(default=Decimal("0.00"))
    refund_shipping: Decimal = money_field(default=Decimal("0.00"))
    # The taxes the refund gave back, each apart, as its credit note shows them (TaxLine.as_json),
    # kept when refunded so an issued note never changes; None for returns refunded before.
    refund_tax_lines: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    refund_method: str | None = Field(default=None, max_length=16)
    refund_state: str = Field(default=RefundState.NONE.value, max_length=16)
    # The provider's refund id and its last word on it ("pending", "processed", or why it refused).
    refund_reference: str | None = Field(default=None, max_length=64)
    refund_provider_status: str = Field(default="", max_length=300)
    refund_started_at: datetime | None = Field(default=None)
    # "CN-2026-000001", given in the refund's transaction, never reused.
    credit_note_number: str | None = Field(default=None, max_length=32, unique=True)
    received_at: datetime | None = Field(default=None)
    refunded_at: datetime | None = Field(default=None)
    # Who gave the money back (kept readable if the account goes).
    refunded_by_id: str | None = optional_ref_field("user")
    refunded_by_label: str = Field(default="", max_length=254)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class ReturnLine(SQLModel, table=True):
    """One order line (part of its quantity) in a return."""

    __tablename__ = "order_return_line"

    id: str = id_field()
    return_id: str = parent_field("order_return")
    order_item_id: str = parent_field("order_item")
    product_id: str | None = optional_ref_field("product")
    name: str = Field(max_length=200)
    quantity: int
    unit_price: Decimal = money_field()
    amount: Decimal = money_field()  # unit_price × quantity
