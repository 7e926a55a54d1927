"""Admin Orders tab: every order, newest first, filtered and paged in SQL; one order's page with
its lines, delivery, payment and timeline; status changes through services.order_status.

Every event re-checks that the caller is an admin; the services check again.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from urllib.parse import urlencode

import reflex as rx

from ..db import session_scope, write_session
from ..models import Attention, DeliveryMethod, OrderStatus, PaymentStatus, User
from ..services import ServiceError, exports
from ..services import order_status as lifecycle
from ..services import orders as order_service
from ..services.order_rules import allowed_statuses
from ..settings import get_settings
from .actions import busy_call, load_list
from .admin import NotAdmin, require_admin
from .orders import OrderLineView, TimelineEntry, address_text, customer_timeline, payment_method_text, store_text
from .paging import page_count, page_label
from ..display import money_text

ORDERS_PAGE_SIZE = 20
ALL = "all"
STATUS_FILTERS = [(ALL, "All statuses")] + [
    (s.value, lifecycle.STATUS_LABELS[s.value]) for s in OrderStatus if s != OrderStatus.COMPLETED
]
PAYMENT_FILTERS = [(ALL, "All payments")] + [(s.value, lifecycle.PAYMENT_LABELS[s.value]) for s in PaymentStatus]
DELIVERY_FILTERS = [(ALL, "Delivery and pickup"), (DeliveryMethod.DELIVERY.value, "Home delivery"),
                    (DeliveryMethod.PICKUP.value, "Pickup")]
ACTION_LABELS = {
    OrderStatus.PROCESSING.value: "Start processing",
    OrderStatus.SHIPPED.value: "Mark shipped",
    OrderStatus.READY_FOR_PICKUP.value: "Mark ready for pickup",
    OrderStatus.DELIVERED.value: "Mark delivered",
    OrderStatus.CANCELLED.value: "Cancel order",
}
STATUS_BADGES = {
    OrderStatus.DELIVERED.value: "success",
    OrderStatus.COMPLETED.value: "success",
    OrderStatus.CANCELLED.value: "destructive",
    OrderStatus.PENDING.value: "warning",
}
PAYMENT_BADGES = {
    PaymentStatus.PAID.value: "success",
    PaymentStatus.FAILED.value: "destructive",
    PaymentStatus.REFUNDED.value: "secondary",
}


def payment_badge(order) -> str:
    if lifecycle.payment_label(order) == "Not charged":
        return "secondary"
    return PAYMENT_BADGES.get(order.payment_status, "warning")


@dataclasses.dataclass
class AdminOrderView:
    id: str = ""
    short_id: str = ""
    customer: str = ""
    email: str = ""
    created_text: str = ""
    status_text: str = ""
    status_badge: str = "secondary"
    payment_text: str = ""
    payment_badge: str = "warning"
    delivery_text: str = ""
    total_text: str = ""
    attention: bool = False


@dataclasses.dataclass
class StatusAction:
    status: str = ""
    label: str = ""
    danger: bool = False


def _filter_value(value: str, choices: list[tuple[str, str]]) -> str:
    return value if value in dict(choices) else ALL


def _date(raw: str) -> date | None:
    try:
        return date.fromisoformat(raw) if raw else None
    except ValueError:
        return None


class AdminOrdersState(rx.State):
    status_filter: str = ALL
    payment_filter: str = ALL
    delivery_filter: str = ALL
    date_from: str = ""
    date_to: str = ""
    search: str = ""
    attention_only: bool = False
    page: int = 1
    rows: list[AdminOrderView] = []
    total: int = 0
    loading: bool = False
    failed: bool = False

    # The order on screen ("" shows the list).
    order_id: str = ""
    short_id: str = ""
    customer: str = ""
    email: str = ""
    created_text: str = ""
    status_text: str = ""
    status_badge: str = "secondary"
    payment_text: str = ""
    payment_status_text: str = ""
    payment_badge: str = "warning"
    payment_reference: str = ""
    pickup: bool = False
    delivery_title: str = ""
    delivery_detail: str = ""
    lines: list[OrderLineView] = []
    subtotal_text: str = ""
    discount_text: str = ""
    has_discount: bool = False
    shipping_text: str = ""
    tax_text: str = ""
    total_text: str = ""
    attention_text: str = ""
    refund_due: bool = False
    timeline: list[TimelineEntry] = []
    actions: list[StatusAction] = []
    confirming: str = ""  # a status waiting for a second click (cancellation)
    working: bool = False

    @rx.var
    def total_pages(self) -> int:
        return page_count(self.total, ORDERS_PAGE_SIZE)

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    @rx.var
    def showing_text(self) -> str:
        return f"Showing {len(self.rows)} of {self.total} orders"

    @rx.var
    def filtered(self) -> bool:
        return (
            self.status_filter != ALL or self.payment_filter != ALL or self.delivery_filter != ALL
            or self.date_from != "" or self.date_to != "" or self.search != "" or self.attention_only
        )

    # --- the list ------------------------------------------------------------------------------

    def _filters(self) -> lifecycle.OrderFilters:
        return lifecycle.OrderFilters(
            status="" if self.status_filter == ALL else self.status_filter,
            payment_status="" if self.payment_filter == ALL else self.payment_filter,
            delivery_method="" if self.delivery_filter == ALL else self.delivery_filter,
            date_from=_date(self.date_from),
            date_to=_date(self.date_to),
            search=self.search,
            attention_only=self.attention_only,
        )

    def _load_rows(self, admin: User) -> None:
        with session_scope() as session:
            found, total = lifecycle.admin_orders(
                session, admin, self._filters(), offset=(self.page - 1) * ORDERS_PAGE_SIZE, limit=ORDERS_PAGE_SIZE
            )
        self.rows = [
            AdminOrderView(
                id=row.order.id,
                short_id=row.order.id[:8],
                customer=row.name,
                email=row.email,
                created_text=row.order.created_at.strftime("%d %b %Y, %H:%M"),
                status_text=lifecycle.status_label(row.order.status),
                status_badge=STATUS_BADGES.get(row.order.status, "secondary"),
                payment_text=lifecycle.payment_label(row.order),
                payment_badge=payment_badge(row.order),
                delivery_text="Pickup" if row.order.delivery_method == DeliveryMethod.PICKUP.value else "Delivery",
                total_text=money_text(row.order.total),
                attention=bool(row.order.attention),
            )
            for row in found
        ]
        self.total = total

    def _fetch(self, admin: User):
        """Load one page; the list shows its loading state first and its error state on failure."""
        return load_list(self, lambda: self._load_rows(admin), "admin order list")

    async def _refetch(self, change):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        change()
        self.page = 1
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def load(self):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.order_id = ""
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def set_status_filter(self, value: str):
        async for update in self._refetch(lambda: setattr(self, "status_filter", _filter_value(value, STATUS_FILTERS))):
            yield update

    @rx.event
    async def set_payment_filter(self, value: str):
        async for update in self._refetch(
            lambda: setattr(self, "payment_filter", _filter_value(value, PAYMENT_FILTERS))
        ):
            yield update

    @rx.event
    async def set_delivery_filter(self, value: str):
        async for update in self._refetch(
            lambda: setattr(self, "delivery_filter", _filter_value(value, DELIVERY_FILTERS))
        ):
            yield update

    @rx.event
    async def set_date_from(self, value: str):
        async for update in self._refetch(lambda: setattr(self, "date_from", value if _date(value) else "")):
            yield update

    @rx.event
    async def set_date_to(self, value: str):
        async for update in self._refetch(lambda: setattr(self, "date_to", value if _date(value) else "")):
            yield update

    @rx.event
    async def set_search(self, value: str):
        async for update in self._refetch(lambda: setattr(self, "search", (value or "").strip()[:100])):
            yield update

    @rx.event
    async def set_attention_only(self, value: bool):
        async for update in self._refetch(lambda: setattr(self, "attention_only", bool(value))):
            yield update

    @rx.event
    async def clear_filters(self):
        def reset():
            self.status_filter = self.payment_filter = self.delivery_filter = ALL
            self.date_from = self.date_to = self.search = ""
            self.attention_only = False

        async for update in self._refetch(reset):
            yield update

    @rx.event
    async def go_to_page(self, page: int):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def export(self):
        """Download the order lines of the orders placed in the chosen dates as CSV (all dates
        when none are chosen)."""
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        try:
            days = exports.DateRange(_date(self.date_from), _date(self.date_to))
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        query = urlencode({"date_from": self.date_from, "date_to": self.date_to,
                           "token": exports.download_token(admin, "orders")})
        return rx.download(url=f"/api/admin/exports/orders.csv?{query}",
                           filename=exports.export_filename("orders", days))

    # --- one order ----------------------------------------------------------------------------

    def _show(self, admin: User, order_id: str) -> None:
        with session_scope() as session:
            order = order_service.get_order(session, admin, order_id)
            lines = order_service.order_items(session, order)
            events = lifecycle.timeline(session, order)
            customer = lifecycle.customer_of(session, order)
        self.order_id = order.id
        self.short_id = order.id[:8]
        name = f"{customer.first_name} {customer.last_name}".strip() if customer else ""
        self.customer = name or (customer.email if customer else "Deleted account")
        self.email = customer.email if customer else ""
        self.created_text = order.created_at.strftime("%d %b %Y, %H:%M")
        self.status_text = lifecycle.status_label(order.status)
        self.status_badge = STATUS_BADGES.get(order.status, "secondary")
        self.payment_text = payment_method_text(order)
        self.payment_status_text = lifecycle.payment_label(order)
        self.payment_badge = payment_badge(order)
        self.payment_reference = order.payment_reference or ""
        self.pickup = order.delivery_method == DeliveryMethod.PICKUP.value
        if self.pickup:
            store = order.pickup_store or {}
            self.delivery_title = f"Pickup at {store.get('name') or 'a store'}"
            self.delivery_detail = store_text(store)
        else:
            self.delivery_title = "Home delivery"
            self.delivery_detail = address_text(order.address) or "No address recorded"
        placeholder = get_settings().placeholder_image_url
        self.lines = [
            OrderLineView(
                name=line.item.name,
                quantity=line.item.quantity,
                unit_text=money_text(line.item.unit_price),
                line_text=money_text(line.item.line_total),
                image_url=line.item.image_url or placeholder,
            )
            for line in lines
        ]
        self.subtotal_text = money_text(order.subtotal)
        self.has_discount = order.discount > 0
        self.discount_text = "-" + money_text(order.discount)
        self.shipping_text = "Free" if order.shipping == 0 else money_text(order.shipping)
        self.tax_text = money_text(order.tax)
        self.total_text = money_text(order.total)
        self.attention_text = (
            f"{lifecycle.ATTENTION_LABELS.get(order.attention, order.attention)}: {order.attention_note}"
            if order.attention
            else ""
        )
        self.refund_due = order.attention == Attention.REFUND_DUE.value
        self.timeline = customer_timeline(order, events, admin=True)
        self.actions = [
            StatusAction(status=s, label=ACTION_LABELS.get(s, s), danger=s == OrderStatus.CANCELLED.value)
            for s in allowed_statuses(order)
        ]
        self.confirming = ""

    @rx.event
    async def open_order(self, order_id: str):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        try:
            self._show(admin, order_id)
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        return rx.call_script("window.scrollTo({top: 0})")

    @rx.event
    async def close_order(self):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.order_id = ""
        for update in self._fetch(admin):
            yield update

    @rx.event
    def ask_confirm(self, status: str):
        self.confirming = status

    @rx.event
    def cancel_confirm(self):
        self.confirming = ""

    @rx.event
    async def change_status(self, status: str):
        """Move the order on screen along (a cancellation asks for a second click first)."""
        if self.working:
            return
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        if status == OrderStatus.CANCELLED.value and self.confirming != status:
            self.confirming = status
            return

        def change() -> None:
            with write_session() as session:
                order_service.update_status(session, admin, self.order_id, status)
            self._show(admin, self.order_id)

        def reshow(_refusal: ServiceError) -> None:
            try:
                self._show(admin, self.order_id)  # what changed meanwhile
            except ServiceError:
                pass

        try:
            async for update in busy_call(
                self, "working", change,
                success=lambda _none: ("Order updated", f"Order #{self.short_id} is now {self.status_text}."),
                failure=("Could not update the order", "Please try again."), on_refusal=reshow,
            ):
                yield update
        finally:
            self.confirming = ""

    @rx.event
    async def mark_refunded(self):
        if self.working:
            return
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return

        def refund() -> None:
            with write_session() as session:
                lifecycle.mark_refunded(session, admin, self.order_id)
            self._show(admin, self.order_id)

        async for update in busy_call(
            self, "working", refund,
            success=lambda _none: ("Refund recorded", f"Order #{self.short_id} is marked as refunded."),
            failure=("Could not record the refund", "Please try again."),
        ):
            yield update
