"""A paid order that is cancelled gets its money back as a refunded return does: through the
payment provider for mobile money, with a credit note (``CN-…``) against its receipt.

Before, "Mark refunded" on such an order only recorded that the money went back: the provider was
never asked, no credit note was issued (the receipt stood alone in the books) and the customer
heard nothing after "a refund is due to you".

The refund is a return of every line of the order, opened by the admin who refunds and already
received (a cancelled order's stock went back when it was cancelled, so nothing is received
twice), then refunded by :func:`.sending.refund_return`: one refund of an order at a time, the
provider's refusal as 502 ``refund_failed`` with the return left to be tried again, the credit
note's number in the refund's transaction, the order's ``refunded_total``, its payment moved to
``refunded`` and the customer's "refund sent" message. A return on a cancelled order is always
this one: returns are asked for delivered orders only.

Money that came beyond the order's total (a second charge, one of another amount) is no part of
the credit note: the order's "refund due" flag stays for it, with a note saying so, until an admin
records that it was given back (``orders.status.mark_refunded``).

Owns its transactions: :func:`settle_refund_due` (the provider is called over the network, with
no transaction open).
"""

from __future__ import annotations

from sqlmodel import Session, select

from ...db import session_scope, write_session
from ...models import (
    Attention,
    Order,
    OrderStatus,
    PaymentStatus,
    RefundState,
    ReturnRequest,
    ReturnStatus,
    User,
)
from ...models.base import utcnow
from .. import Conflict, ErrorCode, audit
from ..orders import status as lifecycle
from ..orders.seen import SeenOrder, check_seen
from ..permissions import require_admin
from ..rows import found
from .common import figures_of, open_return, order_items, returnable, returned_quantities
from .sending import refund_return
from .shares import refund_share

CANCELLED_REASON = "The order was cancelled after it was paid."
NOTHING_LEFT_TEXT = "Everything this order was paid for has been refunded already."


def refunds_by_credit_note(order: Order) -> bool:
    """Whether the order's "refund due" is its whole payment going back with a credit note (a
    cancelled, paid order not yet refunded) rather than money beyond its total that an admin
    records."""
    return (order.status == OrderStatus.CANCELLED.value and order.payment_status == PaymentStatus.PAID.value
            and order.refunded_total < order.total)


def refund_on_its_way(session: Session, order_id: str) -> bool:
    """Whether a refund of the order waits for the provider's word (Paystack queued it)."""
    waiting = session.exec(select(ReturnRequest.id).where(
        ReturnRequest.order_id == order_id, ReturnRequest.status == ReturnStatus.RECEIVED.value,
        ReturnRequest.refund_state == RefundState.PENDING.value)).first()
    return waiting is not None


def open_cancellation_refund(session: Session, order: Order, actor: User) -> str:
    """The return that refunds the whole of a cancelled, paid order: the one an earlier try left
    (its refund refused), or a new one, received now. Its id."""
    waiting = session.exec(select(ReturnRequest.id).where(
        ReturnRequest.order_id == order.id, ReturnRequest.status == ReturnStatus.RECEIVED.value)).first()
    if waiting is not None:
        return waiting
    items = order_items(session, order.id)
    taken = returned_quantities(session, order.id)
    chosen = [(item, returnable(item, taken)) for item in items if returnable(item, taken) > 0]
    if not chosen:  # refunded already: never a credit note of nothing
        raise Conflict(NOTHING_LEFT_TEXT, code=ErrorCode.NO_REFUND_DUE, expose_code=True)
    share = refund_share(figures_of(order, items), taken, {item.id: quantity for item, quantity in chosen})
    now = utcnow()
    ret = open_return(session, order, order.user_id, chosen, share, CANCELLED_REASON,
                      status=ReturnStatus.RECEIVED.value, received_at=now, created_at=now, updated_at=now)
    audit.record(session, actor, "return.open", "return", ret.id, label=f"Return for order #{order.id[:8]}",
                 changes={"status": [None, ret.status], "refund_amount": [None, ret.refund_amount],
                          "reason": [None, CANCELLED_REASON]})
    return ret.id


def settle_refund_due(actor: User | None, order_id: str, seen: SeenOrder | None = None) -> Order:
    """An admin settles an order's "refund due" (the back office's "Refund" / "Mark refunded"):
    a cancelled, paid order is refunded with a credit note (the module docstring; the flag is
    settled when the refund is recorded: ``refunds.record_refund``); money beyond an order's total
    is recorded as given back. 409 ``no_refund_due`` without the flag; 409 ``refund_in_progress``
    while the provider is still sending it; 502 ``refund_failed`` when the provider refuses
    (nothing else changes; try again); 409 ``changed`` when the admin's page showed the order
    otherwise (``seen``: orders.seen). The order as it stands after.

    Owns its transactions: the return is opened in one, :func:`.sending.refund_return` claims and
    records the refund in its own (the provider's call between them, outside any)."""
    actor = require_admin(actor)
    with write_session() as session:
        order = found(session, Order, order_id, "Order not found.", for_update=True)
        check_seen(order, seen)
        if order.attention != Attention.REFUND_DUE.value or not refunds_by_credit_note(order):
            return lifecycle.mark_refunded(session, actor, order.id)
        return_id = open_cancellation_refund(session, order, actor)
    refund_return(actor, return_id)
    with session_scope() as session:
        return found(session, Order, order_id, "Order not found.")
