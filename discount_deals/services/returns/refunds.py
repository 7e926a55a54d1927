"""A return's refund as the shop records it: its plan, its claim, and its record.

The amount is the return's share of the order (:mod:`.shares`), counted after the returns of
the order refunded before it. Mobile money goes back through the payment provider's refund
(:mod:`.sending`) to the charge that paid the order; cash is recorded as handed back by the
admin who refunds, and when, as is a mobile-money refund that failed and that the admin pays
in cash instead (:func:`plan_refund`'s ``in_cash``). A refund gets its credit note's number
(``CN-{year}-{000001}``, services.receipts' gap-free counter) in the transaction that marks the
return refunded, adds its amount to ``Order.refunded_total``, and, once the whole order is back
and refunded, moves the order's payment to ``refunded`` and clears a "refund due" flag.

One refund of an order at a time: the return is claimed (``refund_state = sending``, a guarded
update under the order's lock) before the provider is called, so a second admin gets 409
``refund_in_progress`` rather than a second refund. A provider that refuses (or cannot be
reached) leaves the return received, with its words in ``refund_provider_status``
(:func:`release_claim`); nothing else changes. A claim older than :data:`CLAIM_LIFETIME` (a
server stopped mid-call) may be taken again. A refund the provider only queued waits as
``pending`` (:func:`mark_pending`; :mod:`.pending` settles it), and no other refund of the
order goes meanwhile (each one's share counts the refunds before it).

A cancelled, paid order's refund (:mod:`.cancellations`) also settles the order's "refund due"
flag when it is recorded, or leaves it saying what is still owed (money beyond the total).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import true, update
from sqlmodel import Session, select

from ...models import (
    Attention,
    Order,
    OrderStatus,
    Payment,
    PaymentAttemptStatus,
    PaymentStatus,
    RefundMethod,
    RefundState,
    ReturnRequest,
    ReturnStatus,
    User,
)
from ...models.base import utcnow
from ...config.settings_money import CREDIT_NOTE_PREFIX
from .. import Conflict, audit
from ..orders import status as lifecycle
from ..messages import notices
from ..money import Money
from ..payments import SUCCESS, RefundReport
from ..receipts import next_sequence, receipt_number
from ..taxes import rule_of, stored_tax_lines
from .common import (
    REFUND_IN_PROGRESS,
    WRONG_STATUS,
    ReturnView,
    figures_of,
    find_return,
    given_back,
    lines_of,
    may_refund_in_cash,
    may_take,
    order_items,
    quantities_of,
    returned_quantities,
    view_of,
    wrong_status,
)
from .credit_notes import refunded_tax_lines
from .shares import Share, fitted, refund_share

log = logging.getLogger("discount_deals.payments")

CLAIM_LIFETIME = timedelta(minutes=15)
IN_PROGRESS_TEXT = "A refund for this order is being sent. Wait a moment and reload."
PENDING_TEXT = ("The payment provider is still sending this refund: the credit note follows when it confirms. "
                "Check again later.")
FAILED_TEXT = "The refund did not go through: {why}"
CASH_ONLY_AFTER_FAILURE_TEXT = ("Cash is only for a mobile-money refund that did not go through: refund this return "
                                "the way its order was paid.")
STILL_OWED_NOTE = ("Every item is back, but its refunds came to {given} of the {total} paid: a refund the provider "
                   "reported failed went through after all, at what it had sent. Give back the {owed} still owed, "
                   "then mark it refunded.")
BEYOND_TOTAL_NOTE = ("The order's total was refunded (credit note {number}). More money came than its total: "
                     "give that back too, then mark it refunded.")


@dataclass(frozen=True)
class RefundPlan:
    return_id: str
    method: str
    reference: str  # the charge refunded (mobile money)
    share: Share


def paid_reference(session: Session, order: Order) -> str:
    """The reference of the charge that paid the order, which its refunds go back to.

    ``payments.report`` keeps the charge that paid an order as its ``payment_reference``; a charge
    approved after it (paid twice) is money beyond the total that an admin gives back on its own,
    perhaps at the provider, where nothing is left of it to refund, so it is never this one,
    however late it was started. An order paid after it was cancelled keeps the reference of its
    last charge, which may not be the one that came: then the first charge reported paid."""
    paid = session.exec(select(Payment).where(Payment.order_id == order.id, Payment.status == SUCCESS)).all()
    if any(payment.reference == order.payment_reference for payment in paid):
        return order.payment_reference
    if not paid:
        return order.payment_reference or ""
    first = min(paid, key=lambda payment: (str(payment.provider_data.get("reported_at") or "~"), payment.created_at))
    return first.reference


def _share_and_given(session: Session, order: Order, ret: ReturnRequest) -> tuple[Share, Share]:
    figures = figures_of(order, order_items(session, order.id))
    before = returned_quantities(session, order.id, [ReturnStatus.REFUNDED.value])
    given = given_back(session, order.id, figures, before)
    return refund_share(figures, before, quantities_of(lines_of(session, [ret.id])[ret.id]), given), given


def share_of(session: Session, order: Order, ret: ReturnRequest) -> Share:
    """What ``ret`` gives back, counted after the order's refunds recorded before it."""
    return _share_and_given(session, order, ret)[0]


def sent_share(session: Session, order: Order, ret: ReturnRequest) -> Share:
    """What the refund the provider processed of ``ret`` gave back: the amount sent (kept in
    ``refund_amount`` since :func:`mark_pending`, never repriced while the provider may still
    process it). Another refund recorded while this one stood failed has changed what ``ret``
    would refund now (the shipping, the rounding), so the share is fitted to what was sent,
    within what the receipt has left (``shares.fitted``)."""
    share, given = _share_and_given(session, order, ret)
    room = Share(discount=order.discount - given.discount, tax=order.tax - given.tax,
                 shipping=order.shipping - given.shipping)
    included = rule_of(stored_tax_lines(order.tax_lines, order.tax)).prices_include_tax
    booked = fitted(share, ret.refund_amount, room, included)
    if booked.amount != ret.refund_amount:
        log.warning("refund of return %s: %s was sent, %s fits what its receipt has left", ret.id,
                    ret.refund_amount, booked.amount)
    return booked


def plan_refund(session: Session, ret: ReturnRequest, *, in_cash: bool = False) -> RefundPlan:
    """Check the return may be refunded now, claim it, and say how much goes back and how
    (``in_cash``: in cash, in place of its mobile-money refund that failed; 409 ``return_status``
    for any other). A return refunded meanwhile (another admin's press held the order's lock first)
    gets a refunded return's answer, whatever was pressed."""
    order = session.get(Order, ret.order_id)
    session.refresh(order, with_for_update=True)  # PostgreSQL: one refund of an order at a time
    session.refresh(ret)  # as it stands now, once the lock is this transaction's
    if not may_take(ret, "refund"):
        raise wrong_status(ret, "refunded")
    now = utcnow()
    live = ((ReturnRequest.refund_state != RefundState.SENDING.value)
            | (ReturnRequest.refund_started_at < now - CLAIM_LIFETIME))
    waiting = ReturnRequest.refund_state == RefundState.PENDING.value
    sending = session.exec(select(ReturnRequest.id).where(ReturnRequest.order_id == order.id,
                                                          ~live | waiting)).first()
    if sending is not None:
        raise Conflict(IN_PROGRESS_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)
    failed = ReturnRequest.refund_state == RefundState.FAILED.value
    if in_cash and not may_refund_in_cash(ret):
        raise Conflict(CASH_ONLY_AFTER_FAILURE_TEXT, code=WRONG_STATUS, expose_code=True)
    share = share_of(session, order, ret)
    claimed = session.execute(
        update(ReturnRequest).where(ReturnRequest.id == ret.id, ReturnRequest.status == ReturnStatus.RECEIVED.value,
                                    live, ~waiting, failed if in_cash else true())
        .values(refund_state=RefundState.SENDING.value, refund_started_at=now, updated_at=now)
    )
    if claimed.rowcount != 1:
        raise Conflict(IN_PROGRESS_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)
    method = RefundMethod.CASH.value if in_cash else ret.refund_method or RefundMethod.CASH.value
    return RefundPlan(ret.id, method, paid_reference(session, order), share)


def record_cash_instead(session: Session, actor: User, ret: ReturnRequest) -> None:
    """The audit trail's word that a claimed return's failed mobile-money refund is paid in cash
    instead (the provider's last words kept there; the refund it refused keeps its id on the
    return, so a late webhook still finds it: .pending)."""
    audit.record(session, actor, "return.refund_in_cash", "return", ret.id, label=f"Return for order #{ret.order_id[:8]}",
                 changes={"refund_method": [ret.refund_method, RefundMethod.CASH.value],
                          "refund_provider_status": [ret.refund_provider_status, ""]})


def _settle_order(session: Session, actor: User, order: Order, amount: Decimal, complete: bool) -> Order:
    """Count the refund on the order; when every item is back and its total given back, its
    payment is refunded. A "refund due" flag stays: it is for money beyond the goods (a payment
    that came twice), which an admin gives back and records (``orders.status.mark_refunded``).
    Every item back with less given back (a refund booked at what it sent: :func:`sent_share`)
    flags what is still owed, which "Mark refunded" then counts and refunds the payment for."""
    session.execute(update(Order).where(Order.id == order.id)
                    .values(refunded_total=Order.refunded_total + amount))
    session.refresh(order)
    if not complete or order.payment_status != PaymentStatus.PAID.value:
        return order
    if order.refunded_total < order.total:
        owed = Money.of(order.total - order.refunded_total).plain_text()
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       STILL_OWED_NOTE.format(given=Money.of(order.refunded_total).plain_text(),
                                              total=Money.of(order.total).plain_text(), owed=owed), actor=actor)
        return order
    cancelled = order.status == OrderStatus.CANCELLED.value  # .cancellations: the whole order at once
    lifecycle.set_payment_status(session, order, PaymentStatus.REFUNDED.value, actor=actor,
                                 note="The cancelled order was refunded" if cancelled
                                 else "Every item was returned and refunded")
    return order


def _with_the_provider(ret: ReturnRequest) -> bool:
    """Whether the provider has (or had) ``ret``'s refund in its queue: waiting for its word, or
    reported failed, which it may still process after all (``refund_amount`` is what was sent)."""
    return (ret.refund_state == RefundState.PENDING.value
            or (ret.refund_state == RefundState.FAILED.value and ret.refund_reference is not None))


def _reprice_open_returns(session: Session, order: Order, refunded_id: str) -> None:
    """The order's returns not refunded yet show what they refund next (:func:`share_of`), now
    that this refund counts before them: the one that brings the last items back shows the shipping."""
    open_ = (ReturnStatus.REQUESTED.value, ReturnStatus.APPROVED.value, ReturnStatus.RECEIVED.value)
    for other in session.exec(select(ReturnRequest).where(ReturnRequest.order_id == order.id,
                                                          ReturnRequest.id != refunded_id,
                                                          ReturnRequest.status.in_(open_))).all():
        if _with_the_provider(other):
            continue  # its amount is what was sent: it may still come through (.pending)
        share = share_of(session, order, other)
        other.refund_amount, other.refund_discount = share.amount, share.discount
        other.refund_tax, other.refund_shipping = share.tax, share.shipping
        session.add(other)


def record_refund(session: Session, actor: User | None, plan: RefundPlan, report: RefundReport | None) -> ReturnView:
    """Mark the claimed (or pending) return refunded, number its credit note, and settle the order
    (above). ``actor``: who refunded (None: a provider's webhook for a refund whose admin's account
    is gone; the name kept when it was asked stays)."""
    ret = find_return(session, plan.return_id)
    order = session.get(Order, ret.order_id)
    before_total = order.refunded_total
    now, share = utcnow(), plan.share
    number = receipt_number(CREDIT_NOTE_PREFIX, now.year, next_sequence(session, CREDIT_NOTE_PREFIX, now.year))
    by = ({"refunded_by_id": actor.id, "refunded_by_label": audit.actor_label(actor)} if actor is not None else {})
    done = session.execute(
        update(ReturnRequest).where(ReturnRequest.id == ret.id, ReturnRequest.status == ReturnStatus.RECEIVED.value,
                                    # failed: a refund the provider processed after all (.pending)
                                    ReturnRequest.refund_state.in_([RefundState.SENDING.value,
                                                                    RefundState.PENDING.value,
                                                                    RefundState.FAILED.value]))
        .values(status=ReturnStatus.REFUNDED.value, refund_state=RefundState.DONE.value, updated_at=now,
                refund_amount=share.amount, refund_discount=share.discount, refund_tax=share.tax,
                refund_shipping=share.shipping, credit_note_number=number, refunded_at=now, **by,
                refund_method=plan.method,  # cash in place of a mobile-money refund that failed
                # Cash in its place keeps the failed refund's id: should the provider make it after
                # all, its webhook finds this return (pending.settle_pending: paid twice, flagged).
                refund_reference=((report.refund_id if report else "") or ret.refund_reference or None),
                refund_provider_status=(report.provider_status if report else "")[:300])
    )
    if done.rowcount != 1:
        session.refresh(ret)
        raise wrong_status(ret, "refunded")
    session.refresh(ret)
    # Each tax it gave back, kept with it: an issued credit note never changes (under the order's lock).
    ret.refund_tax_lines = [line.as_json() for line in refunded_tax_lines(session, order, ret)]
    session.add(ret)
    order = _settle_order(session, actor, order, share.amount, share.complete)
    _reprice_open_returns(session, order, ret.id)
    audit.record(session, actor, "return.refund", "return", ret.id, label=f"Return for order #{order.id[:8]}",
                 changes={"status": [ReturnStatus.RECEIVED.value, ret.status], "refund_amount": [None, ret.refund_amount],
                          "refund_method": [None, ret.refund_method], "credit_note_number": [None, number],
                          "order_refunded_total": [before_total, order.refunded_total]},
                 actor_fallback=ret.refunded_by_label or lifecycle.PROVIDER)
    if order.status == OrderStatus.CANCELLED.value:
        _settle_cancelled(session, actor, order, ret, plan.reference, before_total)
    notices.return_step(session, order, ret, "return_refunded")
    return view_of(session, ret)


def _money_beyond_total(session: Session, order: Order, refunded_reference: str) -> bool:
    """Whether a charge other than the one refunded brought money in (paid twice, or another amount)."""
    received = (PaymentAttemptStatus.SUCCESS.value, PaymentAttemptStatus.MISMATCH.value)
    other = session.exec(select(Payment.id).where(Payment.order_id == order.id, Payment.status.in_(received),
                                                  Payment.reference != refunded_reference)).first()
    return other is not None


def _settle_cancelled(session: Session, actor: User | None, order: Order, ret: ReturnRequest, reference: str,
                      before_total: Decimal) -> None:
    """A cancelled order refunded whole (:mod:`.cancellations`): its "refund due" flag is cleared,
    or says what is still owed; the refund is in the order's audit trail too."""
    if order.attention == Attention.REFUND_DUE.value:
        lifecycle.flag(session, order, None, "", actor=actor)
        if _money_beyond_total(session, order, reference):
            lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                           BEYOND_TOTAL_NOTE.format(number=ret.credit_note_number), actor=actor)
    audit.record(session, actor, "order.refund", "order", order.id, label=lifecycle.order_label(order),
                 changes={"payment_status": [PaymentStatus.PAID.value, order.payment_status],
                          "refunded_total": [before_total, order.refunded_total],
                          "credit_note_number": [None, ret.credit_note_number]},
                 actor_fallback=ret.refunded_by_label or lifecycle.PROVIDER)
    session.flush()


def mark_pending(session: Session, actor: User, plan: RefundPlan, report: RefundReport) -> ReturnView:
    """The provider queued the refund: the return waits for its final word (no credit note yet)."""
    session.execute(
        update(ReturnRequest).where(ReturnRequest.id == plan.return_id,
                                    ReturnRequest.refund_state == RefundState.SENDING.value)
        .values(refund_state=RefundState.PENDING.value, refund_reference=report.refund_id or None,
                refund_amount=plan.share.amount,  # what was sent (its webhook is matched by it)
                refund_provider_status=report.provider_status[:300], refunded_by_id=actor.id,
                refunded_by_label=audit.actor_label(actor), updated_at=utcnow())
    )
    ret = find_return(session, plan.return_id)
    audit.record(session, actor, "return.refund_sent", "return", ret.id, label=f"Return for order #{ret.order_id[:8]}",
                 changes={"refund_state": [RefundState.SENDING.value, ret.refund_state],
                          "refund_reference": [None, ret.refund_reference], "refund_amount": [None, plan.share.amount]})
    return view_of(session, ret)


def release_claim(session: Session, return_id: str, why: str, *, state: str = RefundState.SENDING.value) -> None:
    """The provider refused (or its queued refund failed): the return stays received, with the
    provider's words, to be refunded again."""
    session.execute(
        update(ReturnRequest).where(ReturnRequest.id == return_id, ReturnRequest.refund_state == state)
        .values(refund_state=RefundState.FAILED.value, refund_provider_status=why[:300], updated_at=utcnow())
    )
