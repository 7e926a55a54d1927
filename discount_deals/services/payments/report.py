"""Applying a provider's word on a charge (a webhook, or the answer to a verification), once.

A replayed event changes nothing, and a payment of another amount than the order's total flags
the order for an admin instead of marking it paid, as does one in another currency than the
payment's (when the provider names one). Everything happens in the caller's session.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from sqlmodel import Session, select

from ...models import Attention, Order, OrderStatus, Payment, PaymentStatus
from .. import NotFound
from ..orders import status as lifecycle
from ..money import Money
from ..money import from_minor_units, minor_units
from .interface import FAILED, MISMATCH, SUCCESS, UNKNOWN_CURRENCY, WAITING, ChargeReport, RefundReport
from .providers import get_provider
from .records import find_payment

log = logging.getLogger("discount_deals.payments")

PAID, DUPLICATE = "paid", "duplicate"
_SETTLED = (PaymentStatus.PAID.value, PaymentStatus.REFUNDED.value)


def apply_report(session: Session, report: ChargeReport) -> str:
    """Apply a provider's word on a charge, once.

    Returns ``paid``, ``failed``, ``mismatch`` (flagged for an admin), ``duplicate`` (already
    applied: nothing changes) or, while the charge waits, what it waits for (``send_otp``,
    ``pay_offline``, ``pending``: the order shows it). 404 (``unknown_reference``) for a
    reference we never issued.
    """
    payment = find_payment(session, report.reference, lock=True)
    if payment.status in (SUCCESS, MISMATCH, FAILED) and report.status in WAITING:
        return DUPLICATE  # a late "still waiting" after the outcome
    if report.status in WAITING:
        return _waiting(session, payment, report)
    if payment.status in (SUCCESS, MISMATCH) or payment.status == report.status:
        return DUPLICATE
    order = session.exec(select(Order).where(Order.id == payment.order_id).with_for_update()).one()
    if order.payment_reference == payment.reference:
        order.payment_step = None
        order.payment_prompt = report.message[:300] if report.status == FAILED else ""
    payment.provider_data = {**payment.provider_data, "reported_amount": report.amount_minor,
                             "reported_currency": report.currency, "reported_at": datetime.now(UTC).isoformat()}
    if report.status == FAILED:
        outcome = _declined(session, payment, order)
    elif (report.amount_minor != minor_units(payment.amount) or payment.amount != order.total
          or (report.currency is not None and report.currency != payment.currency.upper())):
        outcome = _paid_another_amount(session, payment, order, report)
    else:
        outcome = _paid(session, payment, order)
    session.add(payment)
    session.flush()
    return outcome


def _waiting(session: Session, payment: Payment, report: ChargeReport) -> str:
    """The charge waits for the shopper (a code, a prompt to approve) or the network: the order
    shows what, while this is its current charge."""
    order = session.exec(select(Order).where(Order.id == payment.order_id).with_for_update()).one()
    if order.payment_reference == payment.reference and order.payment_status == PaymentStatus.AWAITING_PAYMENT.value:
        order.payment_step = report.status
        order.payment_prompt = report.message[:300]
        if report.url:
            order.payment_url = report.url
        session.add(order)
    return report.status


def _declined(session: Session, payment: Payment, order: Order) -> str:
    """The charge failed: the order shows it while it still waits for this very charge."""
    payment.status = FAILED
    if (
        order.payment_reference == payment.reference
        and order.status == OrderStatus.PENDING.value
        and order.payment_status == PaymentStatus.AWAITING_PAYMENT.value
    ):
        lifecycle.set_payment_status(session, order, PaymentStatus.FAILED.value, label=lifecycle.PROVIDER,
                                     note="The mobile money payment was declined")
    return FAILED


def _paid_another_amount(session: Session, payment: Payment, order: Order, report: ChargeReport) -> str:
    """Money came in, but not the order's total (or in another currency): an admin sorts it out,
    or, for an order cancelled or paid already, gives it back (flagged "refund due")."""
    payment.status = MISMATCH
    paid = from_minor_units(report.amount_minor) if report.amount_minor is not None else None
    if report.currency == UNKNOWN_CURRENCY:
        reported = f"{Money.of(paid).api() if paid is not None else '?'} in a currency it named by no code"
    else:
        currency = report.currency or payment.currency
        reported = Money.of(paid, currency).plain_text() if paid is not None else f"{currency} ?"
    note = (f"Payment {payment.reference} reported {reported}; "
            f"the order total is {Money.of(order.total, payment.currency).plain_text()}.")
    if order.status == OrderStatus.CANCELLED.value or order.payment_status in _SETTLED:
        # Nothing to sort out: the order is closed or paid, so what came in goes back.
        lifecycle.flag(session, order, Attention.REFUND_DUE.value, f"{note} Refund what came in.",
                       label=lifecycle.PROVIDER)
    else:
        lifecycle.flag(session, order, Attention.AMOUNT_MISMATCH.value, note, label=lifecycle.PROVIDER)
    return MISMATCH


def _paid(session: Session, payment: Payment, order: Order) -> str:
    """The order's total came in: paid, unless it was paid already or cancelled (refund due)."""
    payment.status = SUCCESS
    label = lifecycle.PROVIDER
    if order.payment_status == PaymentStatus.PAID.value:
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       f"Paid twice: payment {payment.reference} came after the order was paid.", label=label)
        return PAID
    if order.payment_status == PaymentStatus.REFUNDED.value:  # its refund stands: this money is owed back too
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       f"Paid after it was refunded: payment {payment.reference} is to be given back too.",
                       label=label)
        return PAID
    lifecycle.set_payment_status(session, order, PaymentStatus.PAID.value, label=label,
                                 note=f"Payment {payment.reference} received")
    if order.status == OrderStatus.CANCELLED.value:
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       "Paid after the order was cancelled: refund the customer.", label=label)
    else:
        order.payment_reference = payment.reference
        session.add(order)
    return PAID


def handle_webhook(session: Session, raw: bytes, headers: Mapping[str, str],
                   on_refund: Callable[[Session, RefundReport], str] | None = None) -> str:
    """Check and apply one webhook (401 for a bad signature: nothing changes). A refund's final
    word goes to ``on_refund`` (services.returns.refund_reported: refunds are the returns'; this
    package does not import them)."""
    report = get_provider().parse_webhook(raw, headers)
    if isinstance(report, RefundReport):
        return on_refund(session, report) if on_refund is not None else "ignored"
    if report is None:
        return "ignored"
    try:
        return apply_report(session, report)
    except NotFound:
        log.warning("webhook for unknown payment reference %r ignored", report.reference)
        return "unknown"
