"""What an order's customer has paid, as the provider reported it: the money an admin gives
back when the order is cancelled. A charge of another amount (``mismatch``) brought in what the
provider reported, not the order's total."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import Session, select

from ...models import Order, Payment, PaymentAttemptStatus
from ..money import from_minor_units


def received(session: Session, order: Order) -> Decimal | None:
    """The sum of the order's successful charges and of what its charges of another amount
    brought in; None when a report named no amount, or another currency (an admin reads it)."""
    total = Decimal("0.00")
    payments = session.exec(select(Payment).where(
        Payment.order_id == order.id,
        Payment.status.in_((PaymentAttemptStatus.SUCCESS.value, PaymentAttemptStatus.MISMATCH.value)))).all()
    for payment in payments:
        if payment.status == PaymentAttemptStatus.SUCCESS.value:
            total += payment.amount
            continue
        amount, currency = payment.provider_data.get("reported_amount"), payment.provider_data.get("reported_currency")
        if not isinstance(amount, int) or currency not in (None, payment.currency.upper()):
            return None
        total += from_minor_units(amount)
    return total


def to_give_back(session: Session, order: Order) -> Decimal:
    """What a cancelled order's refund gives back: what came in, or its total when the reports
    do not say (or the money came otherwise: cash is never refunded through here)."""
    return received(session, order) or order.total
