"""Talking to the payment provider around our transactions: start a charge, start it again, hand
over the shopper's code, ask how it stands.

Owns its transactions: :func:`send_to_provider`, :func:`begin_payment`, :func:`submit_otp` and
:func:`check_payment`. Each calls the provider over the network, and no database transaction
may stay open across that call (on SQLite it would hold the write lock, on PostgreSQL a
transaction and its row locks, for as long as the provider takes), so each commits what comes
before the call, calls, and then opens a short transaction for what the answer changes. That
is why they take no session. Everything they change goes through the session-taking functions
of :mod:`.records` and :mod:`.report`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from ...db import session_scope, write_session
from ...models import Order, PaymentStatus, User
from .. import Conflict, NotFound, ValidationFailed
from ..orders import status as lifecycle
from ..error_codes import ErrorCode
from ..orders.rules import TIME_UP, owes_payment, payment_problem, payment_time_up
from ..permissions import require_user
from ..rows import owned
from .charges import check_new_charge, mark_unsent
from .interface import SEND_OTP, ChargeReport, ChargeRequest, ProviderUnavailable
from .providers import get_provider
from .records import find_payment, open_payment, payment_deadline, return_url
from .report import apply_report

log = logging.getLogger("discount_deals.payments")

# The provider is asked how a charge stands at most this often (a shopper's page polls, a
# shopper may press "Check now": neither makes us call the provider more often).
POLL_SECONDS = 10
OTP_INVALID = "Type the code from your phone: 4 to 8 digits."


def _apply(order_id: str, report: ChargeReport) -> None:
    """Owns its transactions: applies the provider's answer in a short one of its own, after the
    call (see the module docstring)."""
    with write_session() as session:
        try:
            apply_report(session, report)
        except NotFound:
            log.warning("payment %s of order %s vanished while the provider answered", report.reference, order_id)


def send_to_provider(order_id: str, reference: str, *, site_origin: str) -> ChargeReport | None:
    """Start the charge with the provider and keep on the order what it waits for (a code, the
    shopper's approval on the phone, the network), or its outcome when it answers at once.

    Returns the provider's answer, or None when it could not be reached (the order keeps waiting
    for payment: the shopper can try again until the order expires).

    Owns its transactions: reads the charge in one, calls the provider outside any, and applies
    its answer (or notes that it could not be reached) in a second (see the module docstring).
    """
    with session_scope() as session:
        order = session.get(Order, order_id)
        payment = find_payment(session, reference)
        request = ChargeRequest(
            reference=payment.reference,
            amount=payment.amount,
            currency=payment.currency,
            email=session.get(User, order.user_id).email,
            phone=order.payment_phone or "",
            network=order.payment_network or "",
            callback_url=return_url(site_origin, order.id),
            order_id=order.id,
        )
    try:
        report = get_provider().start_charge(request)
    except ProviderUnavailable as exc:
        log.warning("payment %s for order %s could not start: %s", reference, order_id, exc.detail)
        with write_session() as session:
            payment = find_payment(session, reference, lock=True)
            mark_unsent(payment, datetime.now(UTC))  # the shopper may start another one
            session.add(payment)
        return None
    _apply(order_id, report)
    return report


def begin_payment(user: User | None, order_id: str, *, site_origin: str) -> Order:
    """Start a new charge for one of the user's unpaid mobile-money orders (after a decline or an
    abandoned payment). 404 for others' orders, 409 (``not_payable``) when nothing is owed,
    409 (``charge_in_progress``) while the current charge lives, 429 (``too_many_charges``)
    after too many charges (see :mod:`.charges`); 502 when the provider cannot be reached.
    The stock stays held until the first charge's deadline: a new charge never extends it.

    Owns its transactions: opens the new charge in one (under the order's lock, so concurrent
    requests are decided one after the other), sends it to the provider
    (:func:`send_to_provider`), and reads the order back in a last one.
    """
    user = require_user(user)
    with write_session() as session:
        order = owned(session, Order, order_id, user, "Order not found.")
        session.refresh(order, with_for_update=True)  # PostgreSQL; SQLite holds its write lock
        problem = payment_problem(order) or (TIME_UP if payment_time_up(order, datetime.now(UTC)) else None)
        if problem:
            raise Conflict(problem, code=ErrorCode.NOT_PAYABLE)
        check_new_charge(session, order)
        payment = open_payment(session, order)
        order.payment_due_at = order.payment_due_at or payment_deadline()
        session.add(order)
        lifecycle.set_payment_status(session, order, PaymentStatus.AWAITING_PAYMENT.value, actor=user,
                                     note="Payment started again")
        reference = payment.reference
    if send_to_provider(order_id, reference, site_origin=site_origin) is None:
        raise ProviderUnavailable()
    with session_scope() as session:
        return session.get(Order, order_id)


def clean_otp(raw: object) -> str:
    """The code a shopper typed (spaces and dashes dropped); 400 ``otp_invalid`` unless 4 to 8 digits."""
    text = "".join(ch for ch in raw if ch not in " -") if isinstance(raw, str) else ""
    if not (4 <= len(text) <= 8 and text.isascii() and text.isdigit()):
        raise ValidationFailed(OTP_INVALID, fields={"otp": [OTP_INVALID]}, code=ErrorCode.OTP_INVALID)
    return text


def submit_otp(user: User | None, order_id: str, otp: object) -> Order:
    """Hand the provider the code (a Telecel voucher) the shopper typed for the order's current
    charge, and apply its answer. 400 ``otp_invalid`` for what is no code; 409
    (``not_payable`` / ``no_code_expected``) when the order owes nothing or its charge waits
    for no code; 404 for others' orders; 502 when the provider cannot be reached.

    Owns its transactions: reads the order in one, calls the provider outside any, applies its
    answer in a second and reads the order back in a third.
    """
    user = require_user(user)
    code = clean_otp(otp)
    with session_scope() as session:
        order = owned(session, Order, order_id, user, "Order not found.")
        problem = payment_problem(order)
        if problem:
            raise Conflict(problem, code=ErrorCode.NOT_PAYABLE)
        if order.payment_step != SEND_OTP or not order.payment_reference:
            raise Conflict("This payment is not waiting for a code.", code=ErrorCode.NO_CODE_EXPECTED)
        reference = order.payment_reference
    _apply(order_id, get_provider().submit_otp(reference, code))
    with session_scope() as session:
        return session.get(Order, order_id)


def _due_for_a_check(order_id: str, reference: str, now: datetime) -> bool:
    """Whether the provider may be asked about this charge now (at most every POLL_SECONDS);
    notes the time when it may. Owns its transactions: committed before the provider is called."""
    with write_session() as session:
        payment = find_payment(session, reference, lock=True)
        last = payment.provider_data.get("checked_at")
        if last and now - datetime.fromisoformat(last) < timedelta(seconds=POLL_SECONDS):
            return False
        payment.provider_data = {**payment.provider_data, "checked_at": now.isoformat()}
        session.add(payment)
    return True


def check_payment(user: User | None, order_id: str, *, now: datetime | None = None) -> Order:
    """Ask the provider about the order's current charge and apply the answer (the shopper waits
    on the order page, or is back from the provider's page before the webhook). The provider is
    asked at most every :data:`POLL_SECONDS` per charge; sooner, the order is read as it stands.
    404 for others' orders.

    Owns its transactions: reads the order in one, notes the check in a second, asks the provider
    outside any, applies its answer in a third and reads the order back in a last one.
    """
    user = require_user(user)
    now = now or datetime.now(UTC)
    with session_scope() as session:
        order = owned(session, Order, order_id, user, "Order not found.")
        reference = order.payment_reference
        waiting = owes_payment(order)
    if waiting and reference and _due_for_a_check(order_id, reference, now):
        try:
            report = get_provider().verify(reference)
        except (ProviderUnavailable, NotFound):
            report = None
        if report is not None:
            _apply(order_id, report)
    with session_scope() as session:
        return session.get(Order, order_id)
