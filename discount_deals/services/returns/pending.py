"""A queued refund's final word: the provider's ``refund.processed`` / ``refund.failed`` webhook
(:func:`refund_reported`), or its answer to the admin's "Check refund" (:mod:`.sending`).

Processed, the refund is recorded (:func:`.refunds.record_refund`: credit note, the order's
totals, the customer's message); failed, the return is left to be refunded again.

Which refund a webhook names: the return whose ``refund_reference`` is the refund's id. A refund
id we never stored, or none, is matched by the charge it refunds and its amount, and only to a
return that waits without an id of its own: an id we know (a refund settled before, sent again)
never settles another. A webhook that comes while its refund is still being sent (the provider's
answer not yet written) is refused with 409 ``refund_in_progress``, so the provider sends it
again. Money the provider reports processed for a refund we had marked failed (a "Check refund"
that could not tell) is recorded all the same, at what was sent (``refunds.sent_share``: other
refunds of the order may have been recorded meanwhile): money that left gets its credit note.
"""

from __future__ import annotations

import logging

from sqlmodel import Session, select

from ...models import Attention, Order, Payment, RefundMethod, RefundState, ReturnRequest, ReturnStatus, User
from .. import Conflict
from ..money import from_minor_units, minor_units, money_text
from ..orders import status as lifecycle
from ..payments import FAILED, SUCCESS, RefundReport
from .common import REFUND_IN_PROGRESS, ReturnView, may_take, view_of
from .refunds import IN_PROGRESS_TEXT, RefundPlan, paid_reference, record_refund, release_claim, sent_share

log = logging.getLogger("discount_deals.payments")


def settle_pending(session: Session, ret: ReturnRequest, report: RefundReport,
                   actor: User | None = None) -> ReturnView | None:
    """The provider's final word on ``ret``'s refund: processed is recorded (credit note and all),
    failed leaves the return to be refunded again; still pending changes nothing. None when
    ``ret`` waits for no word (already settled: a webhook sent twice). A refund marked failed
    that the provider reports processed (same refund id) is recorded too."""
    order = session.get(Order, ret.order_id)
    session.refresh(order, with_for_update=True)  # one settlement of an order's refunds at a time
    session.refresh(ret)
    if not may_take(ret, "refund"):
        _paid_twice(session, order, ret, report)
        return None
    waiting = ret.refund_state == RefundState.PENDING.value
    reversed_failure = (ret.refund_state == RefundState.FAILED.value and report.status == SUCCESS
                        and bool(report.refund_id) and report.refund_id == ret.refund_reference)
    if not waiting and not reversed_failure:
        return None
    if report.status == SUCCESS:
        # Booked at what was sent: other refunds may have been recorded while it stood failed.
        plan = RefundPlan(ret.id, ret.refund_method or RefundMethod.MOBILE_MONEY.value,
                          report.reference or paid_reference(session, order), sent_share(session, order, ret))
        who = actor or (session.get(User, ret.refunded_by_id) if ret.refunded_by_id else None)
        return record_refund(session, who, plan, report)
    if report.status == FAILED:
        why = report.message or f"The provider reported the refund {report.provider_status or 'failed'}."
        release_claim(session, ret.id, why, state=RefundState.PENDING.value)
        session.refresh(ret)
    return view_of(session, ret)


def _paid_twice(session: Session, order: Order, ret: ReturnRequest, report: RefundReport) -> None:
    """A refund that failed, was paid in cash in its place, and that the provider made after all:
    the customer got the money twice. Nothing is booked (one credit note for one return); the
    order is flagged for an admin to ask for it back (found by a review: the webhook was ignored)."""
    if not (ret.refund_method == RefundMethod.CASH.value and report.status == SUCCESS and report.refund_id
            and report.refund_id == ret.refund_reference and order.attention != Attention.REFUNDED_TWICE.value):
        return
    amount = money_text(from_minor_units(report.amount_minor)) if report.amount_minor is not None else "an amount"
    lifecycle.flag(session, order, Attention.REFUNDED_TWICE.value,
                   f"The payment provider made refund {report.refund_id} ({amount}) after credit note "
                   f"{ret.credit_note_number} was paid in cash: the customer was refunded twice.",
                   label=lifecycle.PROVIDER)
    log.warning("refund %s of return %s made after it was paid in cash: order %s flagged", report.refund_id,
                ret.id, order.id)


def _named(session: Session, report: RefundReport) -> ReturnRequest | None:
    """The return whose refund ``report`` speaks of (the module docstring), or None."""
    if report.refund_id:
        known = session.exec(select(ReturnRequest).where(ReturnRequest.refund_reference == report.refund_id)).first()
        if known is not None:
            return known
    if not report.reference:
        return None
    charged = select(Payment.order_id).where(Payment.reference == report.reference)
    of_charge = select(ReturnRequest).where(ReturnRequest.order_id.in_(charged),
                                            ReturnRequest.status == ReturnStatus.RECEIVED.value)
    sending = session.exec(of_charge.where(ReturnRequest.refund_state == RefundState.SENDING.value)).first()
    if sending is not None:  # its answer is not written yet: the provider is to send this again
        raise Conflict(IN_PROGRESS_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)
    waiting = session.exec(of_charge.where(ReturnRequest.refund_state == RefundState.PENDING.value,
                                           ReturnRequest.refund_reference.is_(None))).first()
    if waiting is None or (report.amount_minor is not None
                           and report.amount_minor != minor_units(waiting.refund_amount)):
        return None
    return waiting


def refund_reported(session: Session, report: RefundReport) -> str:
    """A provider's ``refund.*`` webhook: settle the refund it names; its outcome for the
    webhook's answer (``refunded``, ``refund_failed``, ``pending``, ``ignored``)."""
    ret = _named(session, report)
    view = settle_pending(session, ret, report) if ret is not None else None
    if view is None:
        log.info("refund webhook %s for charge %r ignored: no refund of ours waits for it",
                 report.refund_id or "(no id)", report.reference)
        return "ignored"
    if view.ret.status == ReturnStatus.REFUNDED.value:
        return "refunded"
    return "refund_failed" if view.ret.refund_state == RefundState.FAILED.value else "pending"
