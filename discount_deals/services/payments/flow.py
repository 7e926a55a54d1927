"""Talking to the payment provider around our transactions: start a charge, start it again, ask.

Owns its transactions: :func:`send_to_provider`, :func:`begin_payment` and
:func:`check_payment`. Each calls the provider over the network, and no database transaction
may stay open across that call (on SQLite it would hold the write lock, on PostgreSQL a
transaction and its row locks, for as long as the provider takes), so each commits what comes
before the call, calls, and then opens a short transaction for what the answer changes. That
is why they take no session. Everything they change goes through the session-taking functions
of :mod:`.records` and :mod:`.report`.
"""

from __future__ import annotations

import logging

from ...db import session_scope, write_session
from ...models import Order, PaymentStatus, User
from .. import Conflict, NotFound
from .. import order_status as lifecycle
from ..order_rules import owes_payment, payment_problem
from ..permissions import require_user
from ..rows import owned
from .interface import PENDING, ChargeRequest, ProviderUnavailable
from .providers import get_provider
from .records import find_payment, open_payment, payment_deadline, return_url
from .report import apply_report

log = logging.getLogger("discount_deals.payments")


def send_to_provider(order_id: str, reference: str, *, site_origin: str) -> str | None:
    """Start the charge with the provider and keep its payment page on the order.

    Returns the page's URL, or None when the provider could not be reached (the order keeps
    waiting for payment: the shopper can try again until the order expires).

    Owns its transactions: reads the charge in one, calls the provider outside any, and stores
    the page's URL in a second (see the module docstring).
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
        url = get_provider().start_charge(request)
    except ProviderUnavailable as exc:
        log.warning("payment %s for order %s could not start: %s", reference, order_id, exc.detail)
        return None
    with write_session() as session:
        order = session.get(Order, order_id)
        if order is not None and order.payment_reference == reference:
            order.payment_url = url
            session.add(order)
    return url


def begin_payment(user: User | None, order_id: str, *, site_origin: str) -> tuple[Order, str | None]:
    """Start a new charge for one of the user's unpaid mobile-money orders (after a decline or an
    abandoned payment page). 404 for others' orders, 409 (``not_payable``) when nothing is owed;
    502 when the provider cannot be reached.

    Owns its transactions: opens the new charge in one, sends it to the provider
    (:func:`send_to_provider`), and reads the order back in a last one.
    """
    user = require_user(user)
    with write_session() as session:
        order = owned(session, Order, order_id, user, "Order not found.")
        problem = payment_problem(order)
        if problem:
            raise Conflict(problem, code="not_payable")
        payment = open_payment(session, order)
        order.payment_due_at = max(order.payment_due_at or payment_deadline(), payment_deadline())
        session.add(order)
        lifecycle.set_payment_status(session, order, PaymentStatus.AWAITING_PAYMENT.value, actor=user,
                                     note="Payment started again")
        reference = payment.reference
    url = send_to_provider(order_id, reference, site_origin=site_origin)
    if url is None:
        raise ProviderUnavailable()
    with session_scope() as session:
        return session.get(Order, order_id), url


def check_payment(user: User | None, order_id: str) -> Order:
    """Ask the provider about the order's current charge and apply the answer (the shopper is
    back from the payment page, maybe before the webhook). 404 for others' orders.

    Owns its transactions: reads the order in one, asks the provider outside any, applies its
    answer (:func:`.report.apply_report`) in a second and reads the order back in a third.
    """
    user = require_user(user)
    with session_scope() as session:
        order = owned(session, Order, order_id, user, "Order not found.")
        reference = order.payment_reference
        waiting = owes_payment(order)
    if waiting and reference:
        try:
            report = get_provider().verify(reference)
        except (ProviderUnavailable, NotFound):
            report = None
        if report is not None and report.status != PENDING:
            with write_session() as session:
                apply_report(session, report)
    with session_scope() as session:
        return session.get(Order, order_id)
