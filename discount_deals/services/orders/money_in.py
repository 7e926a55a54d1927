"""What an order's customer has paid, as the provider reported it: the money an admin gives
back when the order is cancelled. A charge of another amount (``mismatch``) brought in what the
provider reported, not the order's total. And what is still owed of the total once every item
came back and was refunded for less (:func:`owed_of_total`)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func
from sqlmodel import Session, select

from ...models import (Order, OrderItem, OrderStatus, Payment, PaymentAttemptStatus, PaymentStatus, ReturnLine,
                       ReturnRequest, ReturnStatus)
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


def owed_of_total(session: Session, order: Order) -> Decimal:
    """What is still owed of a paid order's total (not cancelled) whose every item ordered came
    back and was refunded, but whose refunds came to less (one booked at what the provider sent:
    services.returns.refunds.sent_share): the total less ``refunded_total``. 0.00 for any other
    order: items still out, the whole total back, a cancelled order (:func:`to_give_back`), and
    money beyond the total (paid twice), which is no part of it."""
    none = Decimal("0.00")
    if (order.status == OrderStatus.CANCELLED.value or order.payment_status != PaymentStatus.PAID.value
            or order.refunded_total >= order.total):
        return none
    ordered = session.exec(select(OrderItem.id, OrderItem.quantity).where(OrderItem.order_id == order.id)).all()
    refunded = dict(session.exec(
        select(ReturnLine.order_item_id, func.sum(ReturnLine.quantity))
        .join(ReturnRequest, ReturnRequest.id == ReturnLine.return_id)
        .where(ReturnRequest.order_id == order.id, ReturnRequest.status == ReturnStatus.REFUNDED.value)
        .group_by(ReturnLine.order_item_id)).all())
    if not ordered or any(refunded.get(item_id, 0) < quantity for item_id, quantity in ordered):
        return none
    return order.total - order.refunded_total
