"""Admin Orders tab: every order, newest first, filtered and paged in SQL; one order's page with
its lines, delivery, payment and timeline; status changes through services.orders.status.

Every event is for admins only (:func:`..guards.admin_event`); the services check again.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar
from urllib.parse import urlencode

import reflex as rx
from sqlmodel import Session

from ... import routes
from ...db import session_scope, write_session
from ...models import OrderStatus, PaymentStatus, User
from ...services import ServiceError, exports, returns
from ...services.orders import flags
from ...services.orders.seen import SeenOrder
from ...services.orders import status as lifecycle
from ...services import orders as order_service
from ..order_views import OrderLineView, OrderTotals, TimelineEntry, customer_timeline, line_views, order_totals
from ..return_views import ReturnCard, return_card, returns_title
from ..actions import busy_call, toast
from ..address_bar import push_url
from ..forms import text_arg
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList
from .order_views import (
    ALL,
    DELIVERY_FILTERS,
    PAYMENT_FILTERS,
    STATUS_FILTERS,
    AdminOrderPage,
    AdminOrderView,
    StatusAction,
    day,
    order_page,
    order_row,
    status_actions,
)


@admin_tab("orders")
class AdminOrdersState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin order list"
    FILTERS: ClassVar[dict] = {"status_filter": (STATUS_FILTERS, ALL), "payment_filter": (PAYMENT_FILTERS, ALL),
                               "delivery_filter": (DELIVERY_FILTERS, ALL)}
    status_filter: str = ALL
    payment_filter: str = ALL
    delivery_filter: str = ALL
    date_from: str = ""
    date_to: str = ""
    attention_only: bool = False
    rows: list[AdminOrderView] = []

    # The order on screen ("" shows the list).
    order_id: str = ""
    shown: AdminOrderPage = AdminOrderPage()
    lines: list[OrderLineView] = []
    totals: OrderTotals = OrderTotals()
    timeline: list[TimelineEntry] = []
    returns: list[ReturnCard] = []  # its returns (a cancelled order's: its refund), as its customer sees them
    returns_title: str = "Returns"
    actions: list[StatusAction] = []
    confirming: str = ""  # a status waiting for a second click (cancellation)
    working: bool = False

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
            status=self._filter_value("status_filter"),
            payment_status=self._filter_value("payment_filter"),
            delivery_method=self._filter_value("delivery_filter"),
            date_from=day(self.date_from),
            date_to=day(self.date_to),
            search=self.search,
            attention_only=self.attention_only,
        )

    def _query(self, session: Session, admin: User) -> tuple[list[lifecycle.AdminOrderRow], int]:
        return lifecycle.admin_orders(session, admin, self._filters(), offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: lifecycle.AdminOrderRow) -> AdminOrderView:
        return order_row(item)

    def _open(self, admin: User) -> None:
        """The tab opens: the list. Its load runs again after every reconnection, so an order open
        then stays open, read again (a blip on a phone network closed it, and a status change
        whose answer the blip lost showed nowhere)."""
        self._fill(admin)
        if self.order_id:
            self._reshow(admin)

    def _apply_query(self, query: str) -> None:
        """A link to one order's search (``/admin?tab=orders&q=...``): the list, searched."""
        super()._apply_query(query)
        self._chosen()

    def _chosen(self) -> None:
        """The tab chosen in the menu: its list, not the order open there."""
        self.order_id = ""

    def _opened(self, order_id: str) -> None:
        """``/admin?tab=orders&open=<id>`` (a reload, a link, Back or Forward): that order open;
        the tab's load shows it (``_open``)."""
        self.order_id = order_id

    @admin_event
    def back_to_list(self, admin: User):
        """"Back to orders" from an order's page (a step of its own in the history, as a link is)."""
        self.order_id = ""
        yield push_url(routes.admin_path("orders"))
        yield from self._fetch(admin, self._open)

    @admin_event
    def set_date_from(self, admin: User, value: str):
        return self._set_day(admin, "date_from", value)

    @admin_event
    def set_date_to(self, admin: User, value: str):
        return self._set_day(admin, "date_to", value)

    def _set_day(self, admin: User, name: str, value: str):
        """One end of the date range; a range that would end before it starts is refused with the
        export's words (an empty list read as "no orders"), and the field shows the date in force."""
        text = value if isinstance(value, str) and day(value) else ""
        first, last = (text, self.date_to) if name == "date_from" else (self.date_from, text)
        try:
            exports.DateRange(day(first), day(last))
        except ServiceError as exc:
            self.filters_version += 1
            return toast(("Error", exc.detail, "error"))
        setattr(self, name, text)
        return self._refetch(admin)


    @admin_event
    def set_attention_only(self, admin: User, value: bool):
        self.attention_only = bool(value)
        return self._refetch(admin)

    @admin_event
    def clear_filters(self, admin: User):
        self.status_filter = self.payment_filter = self.delivery_filter = ALL
        self.date_from = self.date_to = self.search = ""
        self.attention_only = False
        self.filters_version += 1
        return self._refetch(admin)

    def _download(self, admin: User, kind: str):
        try:
            days = exports.DateRange(day(self.date_from), day(self.date_to))
        except ServiceError as exc:
            return toast(("Error", exc.detail, "error"))
        query = urlencode({"date_from": self.date_from, "date_to": self.date_to,
                           "token": exports.download_token(admin, kind)})
        return rx.download(url=f"/api/admin/exports/{kind}.csv?{query}", filename=exports.export_filename(kind, days))

    @admin_event
    def export(self, admin: User):
        """Download the order lines of the orders placed in the chosen dates as CSV (all dates
        when none are chosen)."""
        return self._download(admin, "orders")

    @admin_event
    def export_documents(self, admin: User):
        """Download the receipts and credit notes issued in the chosen dates (services.register)."""
        return self._download(admin, "documents")

    # --- one order ----------------------------------------------------------------------------

    def _show(self, admin: User, order_id: str) -> None:
        with session_scope() as session:
            order = order_service.get_order(session, admin, order_id)
            lines = order_service.order_items(session, order)
            events = lifecycle.timeline(session, order)
            customer = lifecycle.customer_of(session, order)
            on_its_way = order.attention is not None and returns.refund_on_its_way(session, order.id)
            its_returns = returns.order_returns(session, admin, order.id)
        self.order_id = order.id
        self.shown = order_page(order, customer)
        if on_its_way:  # Paystack queued it: pressing again asks how it stands
            self.shown.refund_label = "Check refund"
        self.lines = line_views(lines)
        self.totals = order_totals(order)
        self.timeline = customer_timeline(order, events, admin=True)
        self.returns = [return_card(view) for view in its_returns]
        self.returns_title = returns_title(order)
        self.actions = status_actions(order)
        self.confirming = ""

    def _reshow(self, admin: User) -> None:
        """Show what changed meanwhile (after a refusal); a gone order stays as it was shown."""
        try:
            self._show(admin, self.order_id)
        except ServiceError:
            pass

    @admin_event
    async def open_order(self, admin: User, order_id: str):
        # Opened, the order is a step in the history: a phone's Back returns to the list.
        async for update in busy_call(self, None, lambda: self._show(admin, order_id), describe=lambda exc: exc.detail,
                                      success=None, then=lambda _none: [
                                          push_url(routes.admin_open_path("orders", self.order_id)),
                                          rx.call_script("window.scrollTo({top: 0})")]):
            yield update

    @admin_event
    def ask_confirm(self, admin: User, status: str):
        self.confirming = text_arg(status)

    @admin_event
    def cancel_confirm(self, admin: User):
        self.confirming = ""

    def _change(self, admin: User, change, success, failure: str, on_refusal=None):
        def run() -> None:
            with write_session() as session:
                change(session)
            self._show(admin, self.order_id)

        return busy_call(self, "working", run, success=success, failure=(failure, "Please try again."),
                         on_refusal=on_refusal)

    @admin_event
    async def change_status(self, admin: User, status: str, seen: Any = None):
        """Move the order on screen along (a cancellation asks for a second click first).
        ``seen``: the status the screen showed at the tap; a tap made on an order that has moved
        since (taps queued while offline, sent together once back) does nothing, rather than
        answer "Cannot change an order from processing to processing.". The service checks the
        order against the page as loaded (:meth:`_seen`): a payment that came in meanwhile is
        refused ("The order was changed meanwhile...") and the page shows it as it is now."""
        if self.working or (seen is not None and text_arg(seen) != self.shown.status_text):
            return
        if status == OrderStatus.CANCELLED.value and self.confirming != status:
            self.confirming = status
            return
        shown = self._seen()  # what the page showed: a payment that came in since is refused, and shown
        try:
            async for update in self._change(
                admin, lambda session: order_service.update_status(session, admin, self.order_id, status, shown),
                lambda _none: ("Order updated", f"Order #{self.shown.short_id} is now {self.shown.status_text}."),
                "Could not update the order", on_refusal=lambda _refusal: self._reshow(admin),
            ):
                yield update
        finally:
            self.confirming = ""

    def _seen(self) -> SeenOrder:
        """The order as its page shows it (as loaded, not read again): the services refuse an
        action on an order that has moved since (409 ``changed``), and the refusal reloads it."""
        return SeenOrder(self.shown.status, self.shown.payment_status, self.shown.attention or None)

    @admin_event
    async def resolve_flag(self, admin: User, seen: Any):
        """"Mark resolved": what the flag asked is settled (a store that closed, a payment of
        another amount, a refund made twice); ``seen``, the flag the page showed."""
        async for update in self._change(
            admin, lambda session: flags.resolve_flag(session, admin, self.order_id, text_arg(seen)),
            lambda _none: ("Flag resolved", f"Order #{self.shown.short_id} needs nothing more."),
            "Could not resolve the flag", on_refusal=lambda _refusal: self._reshow(admin),
        ):
            yield update

    def _refund_text(self, order) -> str:
        """A cancelled order's payment went back (with a credit note when it was paid); an order
        that goes on gave back only what came beyond its total (a payment that came twice) and
        stays paid."""
        if order.payment_status == PaymentStatus.REFUNDED.value:
            return f"Order #{self.shown.short_id} is refunded."
        if returns.refunds_by_credit_note(order):  # still paid: the provider queued the refund
            return (f"The refund of order #{self.shown.short_id} is on its way: the credit note follows when the "
                    "payment provider confirms it.")
        return f"Order #{self.shown.short_id} stays paid: the payment beyond its total was given back."

    @admin_event(background=True)
    async def mark_refunded(self, admin: User):
        """Settle the order's "refund due": a cancelled, paid order's money goes back through the
        provider (services.returns.settle_refund_due, which owns its transactions), so the call
        runs without the tab's lock, as the Returns tab's refund does."""
        order_id, shown = self.order_id, self._seen()

        async def run():
            settled = await asyncio.to_thread(returns.settle_refund_due, admin, order_id, shown)
            async with self:
                self._show(admin, order_id)
            return settled

        async for update in busy_call(
            self, "working", run, success=lambda order: ("Refund recorded", self._refund_text(order)),
            failure=("Could not record the refund", "Please try again."),
            on_refusal=lambda _refusal: self._show(admin, order_id),  # what the refusal left, as it stands
        ):
            yield update
