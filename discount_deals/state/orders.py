"""My orders (/orders) and one order (/orders/{id}), read through services.orders.

Only the logged-in user's own orders are ever loaded (the service refuses anyone else's).
A short summary of the list is kept in the browser under ``orders-storage`` (SPEC §9), keyed
to the user: it is replaced on every fetch, reset on login and removed on logout.

The order page also shows delivery, payment and the timeline, cancels a pending order, and
takes the shopper back from the payment provider: it asks the provider how the payment
stands (a background event, so no lock is held while the provider answers) and says
"Payment successful" only when the payment really succeeded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging

import reflex as rx

from .. import routes
from ..db import session_scope, write_session
from ..models import Attention, DeliveryMethod, Order, OrderEvent, OrderStatus, PaymentMethod, PaymentStatus
from ..services import ServiceError, payments
from ..services import order_status as lifecycle
from ..services import orders as order_service
from ..services.checkout import NETWORKS, display_phone
from ..services.order_rules import can_cancel, is_payable
from ..services.pricing import money_str
from ..settings import get_settings
from .actions import busy_call
from .session import SessionExpired, SessionState
from ..display import money_text

log = logging.getLogger("discount_deals.orders")

FILTERS = ("all", "pending", "completed")
MAX_ORDERS_SHOWN = 100


def status_label(status: str | None) -> str:
    """The badge text ("Ready for pickup"), 'Pending' when there is none."""
    return lifecycle.status_label((status or "").strip())


def is_completed(status: str | None) -> bool:
    """The 'Completed' filter: finished orders (delivered, or completed before deliveries were tracked)."""
    return (status or "").strip().lower() in lifecycle.FINISHED


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


@dataclasses.dataclass
class TimelineEntry:
    title: str = ""
    note: str = ""
    when: str = ""
    tone: str = "neutral"  # "good" | "bad" | "neutral"


PAYMENT_EVENT_TITLES = {
    PaymentStatus.PAID.value: "Payment received",
    PaymentStatus.FAILED.value: "Payment not completed",
    PaymentStatus.AWAITING_PAYMENT.value: "Waiting for payment",
    PaymentStatus.REFUNDED.value: "Refunded",
}
STATUS_EVENT_TITLES = {
    OrderStatus.PENDING.value: "Order placed",
    OrderStatus.PROCESSING.value: "Being prepared",
    OrderStatus.SHIPPED.value: "Shipped",
    OrderStatus.READY_FOR_PICKUP.value: "Ready for pickup",
    OrderStatus.DELIVERED.value: "Delivered",
    OrderStatus.CANCELLED.value: "Cancelled",
}


def timeline_entry(event: OrderEvent, owner_id: str, *, admin: bool = False) -> TimelineEntry | None:
    """One line of the timeline; customers do not see the back office's flags."""
    when = event.created_at.strftime("%d %b %Y, %H:%M") if event.created_at else ""
    if event.kind == "status":
        title = STATUS_EVENT_TITLES.get(event.to_value, status_label(event.to_value))
        tone = "bad" if event.to_value == OrderStatus.CANCELLED.value else "good"
    elif event.kind == "payment":
        title = PAYMENT_EVENT_TITLES.get(event.to_value, event.to_value)
        tone = "good" if event.to_value in (PaymentStatus.PAID.value, PaymentStatus.REFUNDED.value) else "bad"
    elif admin:
        title = lifecycle.ATTENTION_LABELS.get(event.to_value, "Flag cleared")
        tone = "bad" if event.to_value in lifecycle.ATTENTION_LABELS else "neutral"
    else:
        return None
    if admin:
        who = event.actor_label or lifecycle.SHOP
    else:
        who = "you" if event.actor_id == owner_id else (event.actor_label if not event.actor_id else lifecycle.SHOP)
    note = event.note if event.note and event.note != title else ""
    if who:
        note = f"{note} (by {who})" if note else f"By {who}"
    return TimelineEntry(title=title, note=note, when=when, tone=tone)


def customer_timeline(order: Order, events: list[OrderEvent], *, admin: bool = False) -> list[TimelineEntry]:
    """The order's timeline; an order from before timelines were kept still shows when it was placed."""
    entries = [e for e in (timeline_entry(event, order.user_id, admin=admin) for event in events) if e is not None]
    if not any(event.kind == "status" and event.from_value is None for event in events) and order.created_at:
        entries.insert(0, TimelineEntry(title="Order placed", when=order.created_at.strftime("%d %b %Y, %H:%M"),
                                        tone="good"))
    return entries


def payment_method_text(order: Order) -> str:
    if order.payment_method == PaymentMethod.MOBILE_MONEY.value:
        network = NETWORKS.get(order.payment_network or "", ("Mobile money",))[0]
        phone = display_phone(order.payment_phone)
        return f"Mobile money · {network}" + (f" · {phone}" if phone else "")
    return "Cash on delivery" if order.delivery_method != DeliveryMethod.PICKUP.value else "Cash at pickup"


def address_text(address: dict | None) -> str:
    address = address or {}
    return ", ".join(
        str(address.get(key)) for key in ("line1", "line2", "city", "state", "postal_code", "country") if address.get(key)
    )


def store_text(store: dict | None) -> str:
    store = store or {}
    return ", ".join(str(store.get(key)) for key in ("address", "city") if store.get(key))


CHECK_ATTEMPTS = 5
CHECK_PAUSE_S = 2.0


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
    pickup: bool = False
    store_name: str = ""
    store_text: str = ""
    store_hours: str = ""
    payment_text: str = ""
    payment_status: str = ""
    payment_status_text: str = ""
    payment_reference: str = ""
    payment_due_text: str = ""
    refund_text: str = ""
    timeline: list[TimelineEntry] = []
    can_cancel: bool = False
    can_pay: bool = False
    confirming_cancel: bool = False
    working: str = ""  # "cancel" | "pay" | "check" while a request runs
    loading: bool = True
    failed: bool = False

    def _forget(self) -> None:
        self.order_id = self.short_id = self.status_text = self.date_text = ""
        self.lines = []
        self.timeline = []
        self.loading = True
        self.failed = False
        self.confirming_cancel = False
        self.working = ""

    def _requested_id(self) -> str:
        path = (self.router.url.path or "").rstrip("/")
        return path.rsplit("/", 1)[-1][:64] if path.startswith(routes.ORDERS + "/") else ""

    async def _user(self):
        return await (await self.get_state(SessionState))._require_user()

    def _reread(self, user) -> Order:
        with session_scope() as session:
            order = order_service.get_order(session, user, self.order_id or self._requested_id())
            if order.user_id != user.id:
                raise ServiceError("Order not found.", status=404)  # admins see others' only in /admin
            lines = order_service.order_items(session, order)
            events = lifecycle.timeline(session, order)
        self._show(order, lines, events)
        return order

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
        self.confirming_cancel = False
        yield
        order = None
        try:
            self.order_id = requested
            order = self._reread(user)
        except ServiceError:
            self.failed = True
        except Exception:
            log.exception("order %s failed to load", requested)
            self.failed = True
        finally:
            self.loading = False
        back_from_payment = self.router.url.query_parameters.get("reference", "")
        if order is not None and back_from_payment and order.payment_method == PaymentMethod.MOBILE_MONEY.value:
            yield OrderDetailState.check_payment

    def _show(self, order: Order, lines: list[order_service.OrderLine], events: list[OrderEvent]) -> None:
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
        self.pickup = order.delivery_method == DeliveryMethod.PICKUP.value
        self.address_text = address_text(order.address)
        store = order.pickup_store or {}
        self.store_name = str(store.get("name") or "")
        self.store_text = store_text(store)
        self.store_hours = str(store.get("opening_hours") or "")
        self.payment_text = payment_method_text(order)
        self.payment_status = order.payment_status
        self.payment_status_text = lifecycle.payment_label(order)
        self.payment_reference = order.payment_reference or ""
        self.payment_due_text = (
            order.payment_due_at.strftime("%H:%M UTC, %d %b") if order.payment_due_at and is_payable(order) else ""
        )
        self.refund_text = (
            f"A refund of {money_text(order.total)} is due to you: our team will send it back to your mobile money."
            if order.attention == Attention.REFUND_DUE.value
            else ""
        )
        self.timeline = customer_timeline(order, events)
        self.can_cancel = can_cancel(order)
        self.can_pay = is_payable(order)

    @rx.event(background=True)
    async def check_payment(self):
        """Back from the payment page: ask the provider (again for a few seconds while it has no
        answer yet), then say what really happened."""
        async with self:
            if self.working:
                return
            try:
                user = await self._user()
            except SessionExpired:
                return
            self.working = "check"
            order_id = self.order_id
        order = None
        for attempt in range(CHECK_ATTEMPTS):
            try:
                order = await asyncio.to_thread(payments.check_payment, user, order_id)
            except ServiceError:
                break
            if order.payment_status != PaymentStatus.AWAITING_PAYMENT.value or attempt == CHECK_ATTEMPTS - 1:
                break
            await asyncio.sleep(CHECK_PAUSE_S)
        async with self:
            self.working = ""
            try:
                order = self._reread(user)
            except ServiceError:
                self.failed = True
                return
        if order.payment_status == PaymentStatus.PAID.value:
            yield rx.toast.success("Payment successful", description="Your order has been placed.")
        elif order.payment_status == PaymentStatus.FAILED.value:
            yield rx.toast.error(
                "Payment failed",
                description="The mobile money payment was not completed. You can try again or cancel the order.",
            )
        elif order.attention:
            yield rx.toast.warning("Payment being checked", description="Our team is checking this payment.")
        else:
            yield rx.toast.info("Waiting for your payment",
                                description="Your network has not confirmed the payment yet. Check again in a moment.")

    @rx.event
    def ask_cancel(self):
        self.confirming_cancel = self.can_cancel

    @rx.event
    def keep_order(self):
        self.confirming_cancel = False

    @rx.event
    async def cancel(self):
        if self.working or not self.can_cancel:
            return
        try:
            user = await self._user()
        except SessionExpired:
            yield (await self.get_state(SessionState))._login_redirect(f"{routes.ORDERS}/{self.order_id}")
            return

        async def cancel():
            with write_session() as session:
                lifecycle.cancel_order(session, user, self.order_id)
            order = self._reread(user)
            (await self.get_state(OrdersState))._record(user.id, order)
            return order

        def reread(_refusal: ServiceError) -> None:
            try:
                self._reread(user)
            except ServiceError:
                pass

        def cancelled(order) -> tuple[str, str]:
            refund = " Our team will refund your payment." if order.attention == Attention.REFUND_DUE.value else ""
            return "Order cancelled", "Your order has been cancelled." + refund

        try:
            async for update in busy_call(self, "working", cancel, busy="cancel", success=cancelled,
                                          failure=("Could not cancel", "Please try again."), on_refusal=reread):
                yield update
        finally:
            self.confirming_cancel = False

    @rx.event(background=True)
    async def pay_again(self):
        async with self:
            if self.working or not self.can_pay:
                return
            try:
                user = await self._user()
            except SessionExpired:
                return
            self.working = "pay"
            order_id = self.order_id
            origin = self.router.url.origin
        try:
            _order, url = await asyncio.to_thread(payments.begin_payment, user, order_id, site_origin=origin)
        except ServiceError as exc:
            async with self:
                self.working = ""
                try:
                    self._reread(user)
                except ServiceError:
                    pass
            yield rx.toast.error("Payment not started", description=exc.detail)
            return
        yield rx.toast.info("Redirecting to payment...")
        await asyncio.sleep(1.2)
        async with self:
            self.working = ""
        yield rx.call_script(f"window.location.assign({json.dumps(url)})")
