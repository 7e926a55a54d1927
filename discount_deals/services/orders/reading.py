"""Reading orders: a customer's own (an admin's: any), with their lines in one query; an
admin's status change goes to :mod:`.status`. Takes the caller's session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlmodel import Session, select

from ...models import Order, OrderItem, Product, User
from ..permissions import require_user
from ..rows import owned_or_admin
from . import status as lifecycle
from .seen import SeenOrder


class OrderLine(NamedTuple):
    """A stored order line and its product (None once the product has been deleted)."""

    item: OrderItem
    product: Product | None


def list_orders(session: Session, user: User, offset: int = 0, limit: int = 100) -> tuple[list[Order], int]:
    """The user's own orders, newest first, and how many they have in all."""
    require_user(user)
    count = session.exec(select(func.count()).select_from(Order).where(Order.user_id == user.id)).one()
    orders = session.exec(
        select(Order)
        .where(Order.user_id == user.id)
        .order_by(Order.created_at.desc(), Order.id.desc())
        .offset(offset)
        .limit(limit)
    ).all()
    return list(orders), count


def latest_order_since(session: Session, user: User, since: datetime) -> Order | None:
    """The user's newest order placed at ``since`` or later, if any (an empty checkout points to
    the one just placed: a phone's connection that dropped as it was placed lost the way there)."""
    require_user(user)
    return session.exec(select(Order).where(Order.user_id == user.id, Order.created_at >= since)
                        .order_by(Order.created_at.desc(), Order.id.desc()).limit(1)).first()


def get_order(session: Session, user: User, order_id: str) -> Order:
    """One of the user's orders (admins may read any); 404 for anyone else's."""
    return owned_or_admin(session, Order, order_id, require_user(user), "Order not found.")


def items_for_orders(session: Session, orders: Sequence[Order]) -> dict[str, list[OrderLine]]:
    """The lines of several orders in one query, keyed by order id."""
    by_order: dict[str, list[OrderLine]] = {order.id: [] for order in orders}
    if not by_order:
        return by_order
    rows = session.exec(
        select(OrderItem, Product)
        .join(Product, Product.id == OrderItem.product_id, isouter=True)
        .where(OrderItem.order_id.in_(list(by_order)))
        .order_by(OrderItem.name, OrderItem.id)
    ).all()
    for item, product in rows:
        by_order[item.order_id].append(OrderLine(item, product))
    return by_order


def order_items(session: Session, order: Order) -> list[OrderLine]:
    """The snapshotted lines of one order."""
    return items_for_orders(session, [order])[order.id]


def update_status(session: Session, actor: User, order_id: str, status: Any, seen: SeenOrder | None = None) -> Order:
    """An admin moves an order along its statuses (see ``services.orders.status``); ``seen``: the
    order as their page showed it (``services.orders.seen``)."""
    return lifecycle.admin_change_status(session, actor, order_id, status, seen)
