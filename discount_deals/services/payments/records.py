"""Payment rows: one per charge attempt of an order, found by the reference we give the provider."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from ... import routes
from ...models import Order, Payment
from ...config.settings import get_settings
from .. import NotFound
from ..error_codes import ErrorCode


def find_payment(session: Session, reference: str, *, lock: bool = False) -> Payment:
    """The payment with ``reference`` (locked for the transaction with ``lock``); 404
    (``unknown_reference``) for a reference we never issued."""
    query = select(Payment).where(Payment.reference == reference)
    if lock:
        query = query.with_for_update()
    payment = session.exec(query).first() if isinstance(reference, str) and reference else None
    if payment is None:
        raise NotFound("Payment not found.", code=ErrorCode.UNKNOWN_REFERENCE)
    return payment


def new_reference(order_id: str) -> str:
    return f"DD-{order_id[:8]}-{secrets.token_hex(6)}"


def payment_deadline(now: datetime | None = None) -> datetime:
    """When an unpaid mobile-money order placed (or paid again) at ``now`` expires."""
    return (now or datetime.now(UTC)) + timedelta(minutes=get_settings().checkout.payment_timeout_minutes)


def open_payment(session: Session, order: Order) -> Payment:
    """A new charge attempt for the order's total (in the caller's transaction)."""
    checkout = get_settings().checkout
    payment = Payment(
        order_id=order.id,
        provider=checkout.payment_provider,
        reference=new_reference(order.id),
        amount=order.total,
        currency=get_settings().currency.code,
    )
    session.add(payment)
    order.payment_reference = payment.reference
    order.payment_url = None
    order.payment_step = None
    order.payment_prompt = ""
    order.payment_test = order.payment_test or payment.provider == "fake"  # once a test, always marked
    session.add(order)
    session.flush()
    return payment


def return_url(site_origin: str, order_id: str) -> str:
    """Where the provider sends the shopper back: the order's page."""
    return site_origin.rstrip("/") + routes.order_path(order_id)
