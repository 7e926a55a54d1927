"""A customer asks to return items of a delivered order, and reads their returns.

Who: the order's owner (anyone else's order answers 404, as a missing one). When: the order is
delivered (``not_delivered``) and it was delivered at most DD_RETURN_DAYS ago
(``return_window_closed``). What: each line names a product of the order once
(``unknown_product``, ``duplicate_line``), or the order's line by its id (``item_id``) when its
product has been deleted since, and a quantity from 1 up to what was delivered less
what its other returns (all but rejected ones) already take back (``quantity``). A reason is
required (``reason_required``), at most 500 characters. Every refusal is a 400 with its code
and writes nothing.

Concurrent requests for one order are decided one after the other: the order's row is locked
(``FOR UPDATE`` on PostgreSQL; SQLite's write transaction holds its one write lock).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from ...models import Order, OrderItem, OrderStatus, ReturnRequest, ReturnStatus, User
from ...models.base import utcnow
from ...config.settings import get_settings
from .. import audit
from ..messages import notices
from ..permissions import require_user
from ..plain_text import one_line
from ..rows import owned, owned_or_admin
from .common import (
    open_return,
    DUPLICATE_LINE,
    ITEMS_INVALID,
    NO_ITEMS,
    NOT_DELIVERED,
    QUANTITY,
    REASON_LIMIT,
    REASON_REQUIRED,
    UNKNOWN_PRODUCT,
    WINDOW_CLOSED,
    ReturnView,
    figures_of,
    given_back,
    lines_of,
    order_items,
    refused,
    returnable,
    returned_quantities,
)
from .shares import refund_share

FINISHED = (OrderStatus.DELIVERED.value, OrderStatus.COMPLETED.value)
MAX_LINES = 200


def return_days(order: Order) -> int:
    """The days after delivery the order's items may go back: what its checkout promised, or the
    setting now if that is more (a shorter DD_RETURN_DAYS closed windows already promised)."""
    now = get_settings().returns.days
    return now if order.return_days is None else max(order.return_days, now)


def returns_close_at(order: Order) -> datetime | None:
    """When returns of a delivered order close (:func:`return_days` after delivery); None before delivery."""
    if order.status not in FINISHED or order.delivered_at is None:
        return None
    return order.delivered_at + timedelta(days=return_days(order))


def returns_open(order: Order) -> bool:
    """Whether the order's items may be asked back now (the order page's "Return items")."""
    closes = returns_close_at(order)
    return closes is not None and utcnow() < closes


def check_returnable(order: Order) -> None:
    """400 ``not_delivered`` / ``return_window_closed`` unless the order's items may go back now."""
    closes = returns_close_at(order)
    if closes is None:
        raise refused("Only items of a delivered order can be returned.", NOT_DELIVERED)
    days = return_days(order)
    if utcnow() >= closes:
        raise refused(f"Returns for this order closed on {closes:%d %b %Y} at {closes:%H:%M} GMT: items can be "
                      f"returned within {days} days of delivery.", WINDOW_CLOSED)


def clean_reason(raw: Any) -> str:
    reason = one_line(raw)
    if not reason:
        raise refused("Tell us why you are returning the items.", REASON_REQUIRED, "reason")
    if len(reason) > REASON_LIMIT:
        raise refused(f"The reason may have at most {REASON_LIMIT} characters.", REASON_REQUIRED, "reason")
    return reason


def _quantity(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise refused("Each quantity must be a whole number of at least 1.", QUANTITY, "items")
    return raw


def wanted_lines(raw: Any, items: list[OrderItem], taken: dict[str, int]) -> list[tuple[OrderItem, int]]:
    """The lines asked for, checked against the order (see the module docstring)."""
    if not isinstance(raw, list) or not raw:
        raise refused("Choose at least one item to return.", NO_ITEMS, "items")
    if len(raw) > MAX_LINES or not all(isinstance(entry, dict) for entry in raw):
        raise refused("Each item needs a product_id and a quantity.", ITEMS_INVALID, "items")
    by_product = {item.product_id: item for item in items if item.product_id}
    by_id = {item.id: item for item in items}
    chosen: list[tuple[OrderItem, int]] = []
    seen: set[str] = set()
    for entry in raw:
        quantity = _quantity(entry.get("quantity"))
        # A line is named by its product or, when the product was deleted since, by the line's id.
        key, lines = (entry.get("item_id"), by_id) if "item_id" in entry else (entry.get("product_id"), by_product)
        item = lines.get(key) if isinstance(key, str) else None
        if item is None:
            raise refused("That product is not in this order.", UNKNOWN_PRODUCT, "items")
        if item.id in seen:
            raise refused("Name each product once.", DUPLICATE_LINE, "items")
        seen.add(item.id)
        left = returnable(item, taken)
        if quantity > left:
            raise refused(f"You can return at most {left} of {item.name}." if left else
                          f"Every {item.name} of this order is being returned already.", QUANTITY, "items")
        chosen.append((item, quantity))
    return chosen


def request_return(session: Session, user: User | None, order_id: str, items: Any, reason: Any) -> ReturnView:
    """Ask to return items of one of the user's delivered orders (see the module docstring)."""
    user = require_user(user)
    order = owned(session, Order, order_id, user, "Order not found.")
    session.refresh(order, with_for_update=True)  # PostgreSQL; SQLite holds its write lock
    check_returnable(order)
    order_lines = order_items(session, order.id)
    taken = returned_quantities(session, order.id)
    chosen = wanted_lines(items, order_lines, taken)
    reason_text = clean_reason(reason)
    this = {item.id: quantity for item, quantity in chosen}
    # The amount shown is what the return refunds if it is refunded next: counted after the
    # refunds made, as the refund counts it (refunds.share_of). Counted after the returns only
    # asked for, the one asked last showed the shipping, which went to the one refunded last.
    refunded = returned_quantities(session, order.id, [ReturnStatus.REFUNDED.value])
    figures = figures_of(order, order_lines)
    share = refund_share(figures, refunded, this, given_back(session, order.id, figures, refunded))
    ret = open_return(session, order, user.id, chosen, share, reason_text)
    audit.record(session, user, "return.request", "return", ret.id, label=f"Return for order #{order.id[:8]}",
                 changes={"status": [None, ret.status], "refund_amount": [None, ret.refund_amount],
                          "items": [None, {item.name: quantity for item, quantity in chosen}]})
    notices.return_step(session, order, ret, "return_requested")
    return ReturnView(ret, lines_of(session, [ret.id])[ret.id])


def order_returns(session: Session, user: User | None, order_id: str) -> list[ReturnView]:
    """The returns of one of the user's orders (admins: any order's), newest first."""
    order = owned_or_admin(session, Order, order_id, require_user(user), "Order not found.")
    rows = list(session.exec(select(ReturnRequest).where(ReturnRequest.order_id == order.id)
                             .order_by(ReturnRequest.created_at.desc(), ReturnRequest.id)).all())
    lines = lines_of(session, [ret.id for ret in rows])
    return [ReturnView(ret, lines[ret.id]) for ret in rows]
