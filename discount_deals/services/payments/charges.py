"""How often an order may be charged: one live charge at a time, a few per half hour.

A shopper pressing "Pay" again and again must not start a provider charge (and a fresh code
round) each time: a new charge is refused while the order's current one still lives (409
``charge_in_progress``), and after :data:`CHARGES_PER_WINDOW` charges in :data:`CHARGE_WINDOW`
(the one made at checkout included) the next waits (429 ``too_many_charges`` with
``Retry-After``). The charges are the order's :class:`~discount_deals.models.Payment` rows, so
nothing more is stored. The caller holds the order's lock (SQLite's write lock, PostgreSQL's
row lock) from these checks until the new charge is written, so concurrent requests are
decided one after the other.

Everything happens in the caller's session.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from ...models import Order, Payment
from .. import Conflict
from ..error_codes import ErrorCode
from ..throttle import Throttled
from .interface import PENDING, WAITING

CHARGES_PER_WINDOW = 3
CHARGE_WINDOW = timedelta(minutes=30)
# A charge the provider has not settled after this long counts as expired: a new one may start
# (mobile-money prompts and vouchers time out within minutes).
CHARGE_LIFETIME = timedelta(minutes=10)
# provider_data key: the provider could not be reached when the charge was sent.
UNSENT = "unsent_at"
CHARGE_IN_PROGRESS = "Your payment has already started: approve it on your phone or type its code."


class TooManyCharges(Throttled):
    """Too many charges for one order in :data:`CHARGE_WINDOW` (HTTP 429 with ``Retry-After``)."""

    def __init__(self, retry_after: int):
        super().__init__("payment attempts for this order", retry_after, code=ErrorCode.TOO_MANY_CHARGES)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def live_charge(session: Session, order: Order, now: datetime) -> Payment | None:
    """The order's current charge while it still lives: the provider has neither settled it
    (success, failed) nor been found unreachable for it, and it is younger than
    :data:`CHARGE_LIFETIME`. None when a new charge may start."""
    if not order.payment_reference:
        return None
    payment = session.exec(select(Payment).where(Payment.reference == order.payment_reference)).first()
    if payment is None or payment.status != PENDING:
        return None
    if payment.provider_data.get(UNSENT) and order.payment_step not in WAITING:
        return None  # never reached the provider (unless it answered since, after all)
    return payment if _utc(payment.created_at) > now - CHARGE_LIFETIME else None


def recent_charges(session: Session, order_id: str, now: datetime) -> list[datetime]:
    """When the order's charges of the last :data:`CHARGE_WINDOW` started, newest first."""
    query = (select(Payment.created_at)
             .where(Payment.order_id == order_id, Payment.created_at > now - CHARGE_WINDOW)
             .order_by(Payment.created_at.desc()))
    return [_utc(moment) for moment in session.exec(query).all()]


def check_new_charge(session: Session, order: Order, now: datetime | None = None) -> None:
    """Refuse a new charge for ``order`` while its current one lives (409 ``charge_in_progress``)
    or once it had :data:`CHARGES_PER_WINDOW` in :data:`CHARGE_WINDOW` (429 ``too_many_charges``,
    ``Retry-After`` says when the oldest of them leaves the window)."""
    now = now or datetime.now(UTC)
    if live_charge(session, order, now) is not None:
        raise Conflict(CHARGE_IN_PROGRESS, code=ErrorCode.CHARGE_IN_PROGRESS)
    started = recent_charges(session, order.id, now)
    if len(started) >= CHARGES_PER_WINDOW:
        frees_up = started[CHARGES_PER_WINDOW - 1] + CHARGE_WINDOW
        raise TooManyCharges(max(1, int((frees_up - now).total_seconds()) + 1))


def mark_unsent(payment: Payment, now: datetime) -> None:
    """The provider could not be reached for this charge: it does not live (see :func:`live_charge`)."""
    payment.provider_data = {**payment.provider_data, UNSENT: now.isoformat()}
