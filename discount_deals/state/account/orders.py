"""My orders (/orders), read through services.orders.

Only the signed-in user's own orders are ever loaded (the service lists no one else's). A short
summary of the list is kept in the browser under ``orders-storage`` (SPEC §9), keyed to the
user: it is replaced on every fetch, reset on login and removed on logout.
"""

from __future__ import annotations

import json

import reflex as rx

from ...db import session_scope
from ...models import Order, User
from ...services import orders as order_service
from ..actions import load_list
from ..guards import user_event
from ..order_views import OrderCard, order_card
from .session import per_user

FILTERS = ("all", "pending", "completed")
MAX_ORDERS_SHOWN = 100


@per_user
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

    def _load(self, user: User) -> None:
        with session_scope() as session:
            orders, _count = order_service.list_orders(session, user, limit=MAX_ORDERS_SHOWN)
        self.orders = [order_card(o) for o in orders]
        self.loaded_for = user.id
        self._remember(user.id)

    def _show_empty(self, _error: Exception) -> None:
        self.orders = []  # SPEC §2: an error shows the empty state

    @user_event
    def load(self, user: User):
        """/orders: the user's orders, newest first (guests go to /login and come back)."""
        if self.loaded_for != user.id:
            self._forget()  # another user's orders never stay on screen
        return load_list(self, lambda: self._load(user), "orders list", failed=None, on_error=self._show_empty)

    @rx.event
    def set_filter(self, value: str):
        self.filter = value if value in FILTERS else "all"
