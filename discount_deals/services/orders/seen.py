"""What an admin's page showed of an order when they acted on it, checked against the row.

An admin reads an order's page, then presses a button: meanwhile the customer's mobile-money
payment may have come in, the payment timer may have cancelled it, another admin may have moved
it. The button acts on what the page showed, so the service compares that with the row it has
locked and refuses (409 ``changed``, nothing written) when something that bears on the action
differs: the status, the payment status, or a flag the page did not show. A flag cleared
meanwhile is no reason to refuse (the order asks less of the admin than they read).

Callers that send no snapshot (the original client's ``PATCH /orders/{id}/``, the payment
timer) are not checked here; their guarded updates still refuse a status that moved.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from ...models import Order
from .. import Conflict, ErrorCode

CHANGED_TEXT = "The order was changed meanwhile. Reload it and try again."


@dataclass(frozen=True)
class SeenOrder:
    """The order as the admin's page showed it: its status, payment status and flag (None or ""
    when it showed none)."""

    status: str
    payment_status: str
    attention: str | None = None

    @classmethod
    def of(cls, order: Order) -> SeenOrder:
        return cls(order.status, order.payment_status, order.attention or None)

    def differs_from(self, order: Order) -> bool:
        """Whether the row moved in a way the admin would want to see before acting."""
        flag_raised = order.attention is not None and order.attention != (self.attention or None)
        return order.status != self.status or order.payment_status != self.payment_status or flag_raised


def changed_meanwhile() -> Conflict:
    return Conflict(CHANGED_TEXT, code=ErrorCode.CHANGED, expose_code=True)


def check_seen(order: Order, seen: SeenOrder | None) -> None:
    """Refuse (409 ``changed``) an action on ``order`` (locked, as it stands now) when the page
    showed it otherwise; no snapshot, no check."""
    if seen is not None and seen.differs_from(order):
        raise changed_meanwhile()


def lock_order(session: Session, order: Order, seen: SeenOrder | None = None) -> Order:
    """The order's row is this transaction's until it ends, and ``order`` holds what it holds now
    (a payment's webhook or another tab may have changed it since it was read; PostgreSQL);
    409 ``changed`` when it is not what the admin's page showed (``seen``)."""
    order = session.exec(select(Order).where(Order.id == order.id).with_for_update()
                         .execution_options(populate_existing=True)).one()
    check_seen(order, seen)
    return order
