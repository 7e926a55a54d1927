"""Unpaid mobile-money orders whose time is up go back on sale: cancelled through
:func:`orders.status.change_status` (the stock back, exactly once), the order page told why.

Owns its transactions: :func:`release_expired_payments` (the timer's sweep: one transaction per
order, so one failure neither holds back nor undoes the others).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from sqlmodel import Session, select

from ...db import write_session
from ...models import Order, OrderStatus, Payment, PaymentMethod
from .. import Conflict
from ..payments.charges import CHARGE_LIFETIME
from ..payments.interface import PENDING
from .rules import OWING
from .status import CUSTOMER_TRANSITIONS, EXPIRED_STEP, SHOP, change_status

log = logging.getLogger("discount_deals.orders")
S = OrderStatus


def _expired(now: datetime):
    """Time up, and no charge live: a prompt the shop started (a payment begun again just
    before the deadline) is left to finish, for at most the charge's lifetime, rather than the
    order cancelled under the shopper approving it (found by a probe: paid for a cancelled order)."""
    live = select(Payment.id).where(Payment.order_id == Order.id, Payment.status == PENDING,
                                    Payment.created_at > now - CHARGE_LIFETIME)
    return (
        (Order.status == S.PENDING.value)
        & (Order.payment_method == PaymentMethod.MOBILE_MONEY.value)
        & (Order.payment_status.in_(sorted(OWING)))
        & (Order.attention.is_(None))
        & (Order.payment_due_at.is_not(None))
        & (Order.payment_due_at <= now)
        & ~live.exists()
    )


def expired_unpaid_orders(session: Session, now: datetime, limit: int = 200) -> list[str]:
    """Ids of unpaid mobile-money orders whose time was up at ``now``, the longest overdue first
    (orders waiting for an admin, a flagged payment, are left alone)."""
    return list(session.exec(select(Order.id).where(_expired(now)).order_by(Order.payment_due_at).limit(limit)).all())


def release_expired_order(session: Session, order_id: str, now: datetime) -> bool:
    """Cancel one unpaid mobile-money order whose time was up at ``now``, putting its stock back.
    False when it was paid, cancelled or flagged since it was found."""
    order = session.exec(select(Order).where(Order.id == order_id, _expired(now)).with_for_update()
                         .execution_options(populate_existing=True)).first()
    if order is None:  # paid, cancelled or flagged since it was found (a webhook may have just come)
        return False
    change_status(
        session, order, S.CANCELLED.value, actor=None, label=SHOP,
        transitions=CUSTOMER_TRANSITIONS, note="Payment not received in time: the items went back on sale",
    )
    order.payment_step = EXPIRED_STEP  # the order page says the time ran out (not "cancelled by you")
    session.add(order)
    return True


def release_expired_payments(now: datetime | None = None, limit: int = 200) -> int:
    """Cancel unpaid mobile-money orders whose time is up, putting their stock back.

    Returns how many were released.

    Owns its transactions: called by the shop's timer, where no face holds a unit of work, it
    finds the orders in one transaction and releases each in a write transaction of its own,
    so that one order that cannot be released does not hold back (or undo) the others.
    """
    now = now or datetime.now(UTC)
    with write_session() as session:
        due = expired_unpaid_orders(session, now, limit)
    released = 0
    for order_id in due:
        try:
            with write_session() as session:
                if release_expired_order(session, order_id, now):
                    released += 1
        except Conflict:
            continue
        except Exception:
            log.exception("releasing unpaid order %s failed", order_id)
    return released
