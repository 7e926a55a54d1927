"""My orders (/orders) and one order (/orders/{id}), read through services.orders.

Only the logged-in user's own orders are ever loaded (the service refuses anyone else's).
A short summary of the list is kept in the browser under ``orders-storage`` (SPEC §9), keyed
to the user: it is replaced on every fetch, reset on login and removed on logout.
"""

from __future__ import annotations

import dataclasses
import json
import logging

import reflex as rx

from .. import routes
from ..db import session_scope
from ..models import Order, OrderStatus
from ..services import ServiceError
from ..services import orders as order_service
from ..services.pricing import money_str
from ..settings import get_settings
from .session import SessionExpired, SessionState
from .views import money_text

log = logging.getLogger("discount_deals.orders")

FILTERS = ("all", "pending", "completed")
MAX_ORDERS_SHOWN = 100


def status_label(status: str | None) -> str:
    """The badge text: the status capitalised, 'Pending' when there is none."""
    return (status or "").strip().capitalize() or "Pending"


def is_completed(status: str | None) -> bool:
    return (status or "").strip().lower() == OrderStatus.COMPLETED.value


def items_text(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


@dataclasses.dataclass
class OrderCard:
    id: str = ""
    short_id: str = ""
    status: str = ""
    status_text: str = "Pending"
    completed: bool = False
    cancelled: bool = False
    item_count: int = 0
    items_text: str = ""
    total: str = ""  # 2-decimal text, as the API sends it
    total_text: str = ""
    date_text: str = ""


@dataclasses.dataclass
class OrderLineView:
    name: str = ""
    quantity: int = 0
    unit_text: str = ""
    line_text: str = ""
    image_url: str = ""


def order_card(order: Order) -> OrderCard:
    return OrderCard(
        id=order.id,
        short_id=order.id[:8],
        status=order.status,
        status_text=status_label(order.status),
        completed=is_completed(order.status),
        cancelled=(order.status or "").lower() == OrderStatus.CANCELLED.value,
        item_count=order.item_count,
        items_text=items_text(order.item_count),
        total=money_str(order.total),
        total_text=money_text(order.total),
        date_text=order.created_at.strftime("%d %b %Y") if order.created_at else "",
    )


class OrdersState(rx.State):
    orders_storage: str = rx.LocalStorage(name="orders-storage")

    orders: list[OrderCard] = []
    filter: str = "all"
    loading: bool = True
    loaded_for: str = ""  # the user whose orders are on screen

    @rx.var
    def visible(self) -> list[OrderCard]:
        if self.filter == "completed":
            return [o for o in self.orders if o.completed]
        if self.filter == "pending":
            return [o for o in self.orders if not o.completed]
        return self.orders

    def _forget(self) -> None:
        self.orders = []
        self.orders_storage = ""
        self.loaded_for = ""
        self.loading = True
        self.filter = "all"

    def _remember(self, user_id: str) -> None:
        """Mirror the list in ``orders-storage`` for this user only."""
        summary = [{"id": o.id, "status": o.status, "item_count": o.item_count, "total": o.total} for o in self.orders]
        self.orders_storage = json.dumps({"state": {"userId": user_id, "orders": summary}, "version": 0})

    def _record(self, user_id: str, order: Order) -> None:
        """A just-placed order joins the list (SPEC §4: an existing one is replaced)."""
        if self.loaded_for != user_id:
            self._forget()
            self.loaded_for = user_id
        card = order_card(order)
        self.orders = [card, *[o for o in self.orders if o.id != order.id]][:MAX_ORDERS_SHOWN]
        self._remember(user_id)

    @rx.event
    async def load(self):
        """/orders: the user's orders, newest first (guests go to /login and come back)."""
        session_state = await self.get_state(SessionState)
        try:
            user = await session_state._require_user()
        except SessionExpired:
            self._forget()
            yield session_state._login_redirect(routes.ORDERS)
            return
        if self.loaded_for != user.id:
            self._forget()  # another user's orders never stay on screen
        self.loading = True
        yield
        try:
            with session_scope() as session:
                orders, _count = order_service.list_orders(session, user, limit=MAX_ORDERS_SHOWN)
            self.orders = [order_card(o) for o in orders if o.user_id == user.id]
            self.loaded_for = user.id
            self._remember(user.id)
        except Exception:
            # SPEC §2: an error shows the empty state.
            log.exception("orders list failed")
            self.orders = []
        finally:
            self.loading = False

    @rx.event
    def set_filter(self, value: str):
        self.filter = value if value in FILTERS else "all"


class OrderDetailState(rx.State):
    order_id: str = ""
    short_id: str = ""
    status_text: str = ""
    completed: bool = False
    cancelled: bool = False
    date_text: str = ""
    lines: list[OrderLineView] = []
    item_count_text: str = ""
    subtotal_text: str = ""
    discount_text: str = ""
    has_discount: bool = False
    shipping_text: str = ""
    tax_text: str = ""
    total_text: str = ""
    address_text: str = ""
    loading: bool = True
    failed: bool = False

    def _forget(self) -> None:
        self.order_id = self.short_id = self.status_text = self.date_text = ""
        self.lines = []
        self.loading = True
        self.failed = False

    def _requested_id(self) -> str:
        path = (self.router.url.path or "").rstrip("/")
        return path.rsplit("/", 1)[-1][:64] if path.startswith(routes.ORDERS + "/") else ""

    @rx.event
    async def load(self):
        requested = self._requested_id()
        session_state = await self.get_state(SessionState)
        try:
            user = await session_state._require_user()
        except SessionExpired:
            self._forget()
            yield session_state._login_redirect(f"{routes.ORDERS}/{requested}")
            return
        if requested != self.order_id:
            self._forget()
        self.loading = True
        self.failed = False
        yield
        try:
            with session_scope() as session:
                order = order_service.get_order(session, user, requested)
                if order.user_id != user.id:
                    raise ServiceError("Order not found.", status=404)  # admins see others' only in /admin
                lines = order_service.order_items(session, order)
            self._show(order, lines)
        except ServiceError:
            self.failed = True
        except Exception:
            log.exception("order %s failed to load", requested)
            self.failed = True
        finally:
            self.loading = False

    def _show(self, order: Order, lines: list[order_service.OrderLine]) -> None:
        self.order_id = order.id
        self.short_id = order.id[:8]
        self.status_text = status_label(order.status)
        self.completed = is_completed(order.status)
        self.cancelled = (order.status or "").lower() == OrderStatus.CANCELLED.value
        self.date_text = order.created_at.strftime("%d %b %Y, %H:%M") if order.created_at else ""
        self.lines = [
            OrderLineView(
                name=(line.product.name if line.product is not None else "") or line.item.name,
                quantity=line.item.quantity,
                unit_text=money_text(line.item.unit_price),
                line_text=money_text(line.item.line_total),
                image_url=line.item.image_url or get_settings().placeholder_image_url,
            )
            for line in lines
        ]
        self.item_count_text = items_text(order.item_count)
        self.subtotal_text = money_text(order.subtotal)
        self.has_discount = order.discount > 0
        self.discount_text = money_text(order.discount)
        self.shipping_text = "Free" if order.shipping == 0 else money_text(order.shipping)
        self.tax_text = money_text(order.tax)
        self.total_text = money_text(order.total)
        address = order.address or {}
        self.address_text = ", ".join(
            str(address.get(key))
            for key in ("line1", "line2", "city", "state", "postal_code", "country")
            if address.get(key)
        )
