"""Sending a return's refund: the one way a refund reaches the payment provider.

A received return is claimed and planned (:mod:`.refunds`), the provider is asked with no
transaction open, and its answer recorded: processed (or a cash refund, or 0.00, which asks no
one) is recorded at once with its credit note; queued (Paystack's ``pending``) waits for the
provider's final word (:mod:`.pending`), which "Check refund" (this refund pressed again) asks for
rather than sending the money twice; refused or unreachable, the return is released to be
refunded again and the admin gets 502 ``refund_failed``. A refund the provider cannot make (a
wallet that takes no refunds) is paid in cash instead when the admin says so (``method="cash"``).

The shop's clock asks too (:func:`check_waiting_refunds`, from ``server.timers``): a refund
still queued :data:`CHECK_AFTER` after it was sent or last asked about (its webhook lost on the
way) is asked about as "Check refund" would, so none waits for a press nobody makes.

Owns its transactions: :func:`refund_return`, :func:`check_pending` and
:func:`check_waiting_refunds` (no transaction may stay open across the provider's call over the
network: the claim is written in one, the answer in a second).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import select

from ...db import session_scope, write_session
from ...models import Order, RefundMethod, RefundState, ReturnRequest, ReturnStatus, User
from ...models.base import utcnow
from .. import Conflict, ErrorCode, ServiceError
from ..money import minor_units
from ..payments import FAILED, PENDING, SUCCESS, RefundReport, get_provider
from ..permissions import require_admin
from .common import REFUND_FAILED, REFUND_IN_PROGRESS, ReturnView, find_return, refund_waiting, refused, view_of
from .pending import settle_pending
from .refunds import (
    FAILED_TEXT,
    PENDING_TEXT,
    RefundPlan,
    mark_pending,
    paid_reference,
    plan_refund,
    record_cash_instead,
    record_refund,
    release_claim,
)

log = logging.getLogger("discount_deals.payments")

METHOD_TEXT = 'A refund goes back the way its order was paid; "cash" pays a failed mobile-money refund in cash instead.'


def _ask_provider(plan: RefundPlan) -> RefundReport:
    if not plan.reference:
        return RefundReport("", FAILED, message="The order has no mobile-money payment to refund.")
    try:
        return get_provider().refund(plan.reference, minor_units(plan.share.amount))
    except ServiceError as exc:  # unreachable (ProviderUnavailable), or a charge it does not know
        return RefundReport(plan.reference, FAILED, message=exc.detail)


def check_pending(actor: User, return_id: str, refund_id: str, reference: str) -> ReturnView:
    """Ask the provider how a pending refund stands and settle it (409 while still pending or when
    it cannot be asked, 502 when it failed; the provider unreachable or not answering: 502 and
    nothing changes).

    Owns its transactions: the provider is asked over the network with none open; its answer is
    settled in one."""
    if not refund_id:  # the provider gave the refund no id: its webhook will say, by the charge
        raise Conflict(PENDING_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)
    report = get_provider().refund_status(refund_id, reference)
    with write_session() as session:
        ret = find_return(session, return_id)
        view = settle_pending(session, ret, report, actor) or view_of(session, ret)
    if view.ret.status == ReturnStatus.REFUNDED.value:  # by this word, or by a webhook meanwhile
        return view
    if view.ret.refund_state == RefundState.FAILED.value:
        raise ServiceError(FAILED_TEXT.format(why=view.ret.refund_provider_status), status=502,
                           code=REFUND_FAILED, expose_code=True)
    raise Conflict(PENDING_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)


def cash_asked(method: Any) -> bool:
    """Whether a refund is asked for in cash (``method``: left out, or ``"cash"``); 400
    ``payment_method_invalid`` for anything else."""
    if method is None:
        return False
    if method != RefundMethod.CASH.value:
        raise refused(METHOD_TEXT, ErrorCode.PAYMENT_METHOD_INVALID, "method")
    return True


def refund_return(actor: User | None, return_id: str, method: Any = None) -> ReturnView:
    """Refund a received return (see the module docstring): 409 ``return_status`` unless it is
    received, 409 ``refund_in_progress`` while another refund of its order is being sent (or this
    one is still pending at the provider), 502 ``refund_failed`` when the provider refuses. A
    pending return's refund is checked with the provider rather than sent again.

    ``method="cash"``: an admin pays back in cash a return whose mobile-money refund failed (a
    number that cannot receive refunds): recorded as a cash refund, the switch in the audit
    trail; 409 ``return_status`` for a return whose mobile-money refund did not fail, 409
    ``refund_in_progress`` while it is being sent or pending (:func:`cash_asked`: 400 otherwise).

    Owns its transactions: claims the return and plans the refund in one; a cash refund is
    recorded in that same one, a mobile-money refund after the provider's answer in a second
    (no transaction stays open across the network).
    """
    actor = require_admin(actor)
    in_cash = cash_asked(method)
    with write_session() as session:
        ret = find_return(session, return_id)
        if refund_waiting(ret):
            if in_cash:
                raise Conflict(PENDING_TEXT, code=REFUND_IN_PROGRESS, expose_code=True)
            waiting = (ret.refund_reference or "", paid_reference(session, session.get(Order, ret.order_id)))
        else:
            waiting = None
            plan = plan_refund(session, ret, in_cash=in_cash)
            if in_cash:
                record_cash_instead(session, actor, ret)
            # Nothing to send back (a free line, a coupon that covered the goods): the provider is not
            # asked to move 0.00 (Paystack reads a missing or zero amount as the whole charge).
            if plan.method != RefundMethod.MOBILE_MONEY.value or plan.share.amount <= 0:
                return record_refund(session, actor, plan, None)
    if waiting is not None:
        return check_pending(actor, return_id, *waiting)
    try:
        report = _ask_provider(plan)
    except Exception:  # a bug, not an answer: let the refund be tried again at once
        with write_session() as session:
            release_claim(session, plan.return_id, "The refund could not be sent.")
        raise
    with write_session() as session:
        if report.status == SUCCESS:
            return record_refund(session, actor, plan, report)
        if report.status == PENDING:
            return mark_pending(session, actor, plan, report)
        release_claim(session, plan.return_id, report.message or "Refund refused.")
    raise ServiceError(FAILED_TEXT.format(why=report.message or "the provider refused it."), status=502,
                       code=REFUND_FAILED, expose_code=True)


CHECK_AFTER = timedelta(minutes=5)


def check_waiting_refunds(now: datetime | None = None) -> int:
    """Ask the provider about each refund it queued and has not confirmed for :data:`CHECK_AFTER`,
    and settle what it says (a refund still queued is asked about again :data:`CHECK_AFTER`
    later; an unreachable provider, next time). How many were settled.

    Owns its transactions: the waiting refunds are read in one, each is asked about with none
    open and settled in its own (one refund's trouble never stops the others')."""
    now = now or utcnow()
    with session_scope() as session:
        waiting = session.exec(
            select(ReturnRequest.id, ReturnRequest.refund_reference, Order)
            .join(Order, Order.id == ReturnRequest.order_id)
            .where(ReturnRequest.status == ReturnStatus.RECEIVED.value,
                   ReturnRequest.refund_state == RefundState.PENDING.value,
                   ReturnRequest.refund_reference.is_not(None), ReturnRequest.updated_at < now - CHECK_AFTER)
        ).all()
        asks = [(return_id, refund_id, paid_reference(session, order)) for return_id, refund_id, order in waiting]
    settled = 0
    for return_id, refund_id, reference in asks:
        try:
            report = get_provider().refund_status(refund_id, reference)
        except ServiceError as exc:
            log.warning("refund %s could not be checked: %s", refund_id, exc.detail)
            continue
        with write_session() as session:
            ret = find_return(session, return_id)
            view = settle_pending(session, ret, report)
            if view is not None and view.ret.refund_state == RefundState.PENDING.value:
                session.execute(update(ReturnRequest).where(ReturnRequest.id == return_id)
                                .values(updated_at=now))  # asked again CHECK_AFTER from now
            else:
                settled += view is not None
    return settled
