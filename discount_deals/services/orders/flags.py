"""An admin settling what an order's flag asked (``Order.attention``): a pickup store that
closed or moved, a payment of another amount, a refund made twice. A refund due is settled by
recording the refund (:func:`.status.mark_refunded`), never here."""

from __future__ import annotations

from sqlmodel import Session

from ...models import Attention, Order, User
from .. import Conflict, ErrorCode, audit
from ..permissions import require_admin
from ..rows import found
from .status import flag, lock_order, order_label


def resolve_flag(session: Session, actor: User | None, order_id: str, seen: str) -> Order:
    """An admin settled what the order's flag (``seen``: the one they read) asked of them: a
    pickup store that closed, a payment of another amount, a refund made twice. A refund due is
    settled by recording the refund (:func:`mark_refunded`), never by this."""
    require_admin(actor)
    order = lock_order(session, found(session, Order, order_id, "Order not found."))
    if not order.attention or order.attention == Attention.REFUND_DUE.value or order.attention != seen:
        raise Conflict("This order has no flag to resolve.", code=ErrorCode.NOTHING_TO_RESOLVE)
    audit.record(session, actor, "order.resolve", "order", order.id,
                 changes={"attention": [order.attention, None]}, label=order_label(order))
    flag(session, order, None, "", actor=actor)
    session.flush()
    return order
