"""The printable delivery sheet (/admin/delivery-sheet): ``?order=<id>`` for one order, else the
day's home deliveries (``?day=YYYY-MM-DD``, default today) grouped by region, from
services.delivery_sheet. Admins only: the page's load and every event are guarded.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime
from urllib.parse import urlencode

import reflex as rx

from ... import routes
from ...db import session_scope
from ...display import money_text
from ...models import PaymentStatus, User
from ...services import delivery_sheet
from ...services.orders import status as lifecycle
from ...services.orders.rules import is_test_payment
from ...services.phones import display_phone, tel_href
from ...services.users import full_name
from ..order_views import DATE_TIME, TEST_PAYMENT_NOTE, store_text
from ..account.receipt import PRINT
from ..account.session import per_user
from ..actions import load_list
from ..guards import admin_event
from .order_views import day


@dataclasses.dataclass
class SheetStopView:
    id: str = ""
    short_id: str = ""
    placed_text: str = ""
    status_text: str = ""
    customer: str = ""
    phone_text: str = ""
    phone_href: str = ""
    street: str = ""  # line 1, or the pickup store
    landmark: str = ""
    place: str = ""  # "Accra, Greater Accra"
    gps: str = ""
    lines: list[str] = dataclasses.field(default_factory=list)  # "2 × Jasmine Rice 5kg"
    payment_text: str = ""  # "Collect $31.91 in cash" / "Paid ($31.91): nothing to collect"
    collect: bool = False
    test_payment: bool = False  # the fake provider: no money moved (payment_text says so)


@dataclasses.dataclass
class SheetGroupView:
    region: str = ""
    count_text: str = ""
    stops: list[SheetStopView] = dataclasses.field(default_factory=list)


def _payment_text(order) -> tuple[str, bool]:
    """What the rider reads about the money, and whether there is cash to collect. A test payment
    (the fake provider) says so instead of "Paid": no money moved."""
    total = money_text(order.total)
    if order.payment_status == PaymentStatus.PAY_ON_DELIVERY.value:
        return f"Collect {total} in cash", True
    if is_test_payment(order):
        paid = order.payment_status == PaymentStatus.PAID.value
        return (f"{TEST_PAYMENT_NOTE} ({total})" if paid
                else f"{lifecycle.payment_label(order)} ({total}). {TEST_PAYMENT_NOTE}"), False
    if order.payment_status == PaymentStatus.PAID.value:
        return f"Paid ({total}): nothing to collect", False
    return f"{lifecycle.payment_label(order)} ({total})", False


def stop_view(stop: delivery_sheet.Stop) -> SheetStopView:
    order, address = stop.order, stop.order.address or {}
    customer = stop.customer
    name = full_name(customer)
    payment, collect = _payment_text(order)
    pickup = order.pickup_store is not None and not address
    return SheetStopView(
        id=order.id,
        short_id=order.id[:8],
        placed_text=order.created_at.strftime(DATE_TIME),
        status_text=lifecycle.status_label(order.status),
        customer=name or (customer.email if customer else "Deleted account"),
        phone_text=display_phone(order.contact_phone),
        phone_href=tel_href(order.contact_phone),
        street=f"Pickup at {order.pickup_store.get('name', 'a store')}: {store_text(order.pickup_store)}" if pickup
        else str(address.get("line1") or ""),
        landmark=str(address.get("line2") or ""),
        place=", ".join(str(address.get(k)) for k in ("city", "state") if address.get(k)),
        gps=str(address.get("postal_code") or ""),
        lines=[f"{line.item.quantity} × {line.item.name}" for line in stop.lines],
        payment_text=payment,
        collect=collect,
        test_payment=is_test_payment(order),
    )


def group_views(groups: list[delivery_sheet.RegionGroup]) -> list[SheetGroupView]:
    return [
        SheetGroupView(region=group.region, count_text=f"{len(group.stops)} stop{'s' if len(group.stops) != 1 else ''}",
                       stops=[stop_view(stop) for stop in group.stops])
        for group in groups
    ]


@per_user
class DeliverySheetState(rx.State):
    order_id: str = ""  # one order's sheet; "" for a day's
    day: str = ""  # YYYY-MM-DD
    groups: list[SheetGroupView] = []
    stop_count: int = 0
    waiting_count: int = 0  # the day's orders to deliver: more than stop_count when the sheet is full
    loading: bool = False
    failed: bool = False
    ready: bool = False  # an admin was confirmed (nothing renders before)

    @rx.var
    def title(self) -> str:
        if self.order_id:
            return f"Delivery sheet: order #{self.order_id[:8]}"
        return f"Deliveries for {self._day_text()}"

    def _day_text(self) -> str:
        shown = day(self.day)
        return shown.strftime("%A %d %B %Y") if shown else ""

    @rx.var
    def summary(self) -> str:
        if self.order_id:
            return ""
        if not self.stop_count:
            return "No home deliveries to make: nothing is waiting to go out."
        regions = len(self.groups)
        text = (f"{self.stop_count} stop{'s' if self.stop_count != 1 else ''} in {regions} "
                f"region{'s' if regions != 1 else ''}: open home-delivery orders placed by the end of this day, "
                "paid or paid on delivery.")
        left_out = self.waiting_count - self.stop_count
        # The sheet stops at delivery_sheet.MAX_STOPS, the oldest first: it says so, not a word before.
        return text + (f" {left_out} more wait{'s' if left_out == 1 else ''}: they are not on this sheet."
                       if left_out > 0 else "")

    def _forget(self) -> None:
        self.groups = []
        self.stop_count = self.waiting_count = 0
        self.ready = False

    def _fill(self, admin: User) -> None:
        with session_scope() as session:
            if self.order_id:
                groups, waiting = delivery_sheet.order_sheet(session, admin, self.order_id), 0
            else:
                sheet_day = day(self.day) or datetime.now(UTC).date()
                groups = delivery_sheet.day_sheet(session, admin, sheet_day)
                waiting = delivery_sheet.day_sheet_size(session, admin, sheet_day)
        self.groups = group_views(groups)
        self.stop_count = sum(len(group.stops) for group in groups)
        self.waiting_count = waiting

    @admin_event
    def load(self, admin: User):
        """/admin/delivery-sheet?order=<id> or ?day=YYYY-MM-DD (default today)."""
        parameters = self.router.url.query_parameters
        order = parameters.get("order", "")
        self.order_id = order[:36] if isinstance(order, str) else ""
        wanted = day(parameters.get("day", "") if isinstance(parameters.get("day"), str) else "")
        self.day = (wanted or datetime.now(UTC).date()).isoformat()
        self.ready = True
        return load_list(self, lambda: self._fill(admin), "delivery sheet")

    @admin_event
    def set_day(self, admin: User, value: str):
        """The day's sheet for another day (the address follows, so a reload shows it again)."""
        chosen: date | None = day(value) if isinstance(value, str) else None
        if chosen is None:
            return None
        self.order_id = ""
        return rx.redirect(f"{routes.DELIVERY_SHEET}?{urlencode({'day': chosen.isoformat()})}")

    @admin_event
    def print_sheet(self, admin: User):
        return PRINT
