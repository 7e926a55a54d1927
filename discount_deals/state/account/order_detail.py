"""One order (/orders/{id}), read through services.orders: its lines, totals, delivery, payment
and timeline; a pending order can be cancelled, an unpaid mobile-money one paid again.

Back from the payment provider, the page asks the provider how the payment stands (a background
event, so no lock is held while the provider answers or between its tries) and says "Payment
successful" only when the payment really succeeded.
"""

from __future__ import annotations

import asyncio
import json

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...display import money_text
from ...models import Attention, Order, PaymentMethod, PaymentStatus, User
from ...services import NotFound, ServiceError, payments
from ...services import order_status as lifecycle
from ...services import orders as order_service
from ...services.order_rules import can_cancel, is_payable
from ..actions import Toast, busy_call, load_list
from ..guards import user_event
from .order_views import (
    DATE_TIME,
    OrderLineView,
    OrderTotals,
    TimelineEntry,
    address_text,
    customer_timeline,
    is_cancelled,
    is_completed,
    is_pickup,
    line_views,
    order_totals,
    payment_method_text,
    status_label,
    store_text,
)
from .orders import OrdersState
from .session import per_user

CHECK_ATTEMPTS = 5
CHECK_PAUSE_S = 2.0
PAYMENT_WAIT_S = 1.2  # SPEC §4: 'Redirecting to payment...' shows for about 1.2 s
REDIRECTING = ("Redirecting to payment...", None, "info")


async def go_to_payment(url: str):
    """After the 'Redirecting to payment...' toast: a pause (no lock held), then a full page load
    of the provider's page (it is not one of ours; the fake one is served by the API)."""
    await asyncio.sleep(PAYMENT_WAIT_S)
    yield rx.call_script(f"window.location.assign({json.dumps(url)})")


def payment_outcome(order: Order | None) -> Toast | None:
    """What the shopper reads once the provider has answered (nothing when the order is gone)."""
    if order is None:
        return None
    if order.payment_status == PaymentStatus.PAID.value:
        return "Payment successful", "Your order has been placed."
    if order.payment_status == PaymentStatus.FAILED.value:
        return ("Payment failed",
                "The mobile money payment was not completed. You can try again or cancel the order.", "error")
    if order.attention:
        return "Payment being checked", "Our team is checking this payment.", "warning"
    return ("Waiting for your payment",
            "Your network has not confirmed the payment yet. Check again in a moment.", "info")


@per_user
class OrderDetailState(rx.State):
    order_id: str = ""
    short_id: str = ""
    status_text: str = ""
    completed: bool = False
    cancelled: bool = False
    date_text: str = ""
    lines: list[OrderLineView] = []
    totals: OrderTotals = OrderTotals()
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

    def _reread(self, user: User) -> Order:
        with session_scope() as session:
            order = order_service.get_order(session, user, self.order_id or self._requested_id())
            if order.user_id != user.id:
                raise NotFound("Order not found.")  # an admin reads other people's orders in /admin only
            lines = order_service.order_items(session, order)
            events = lifecycle.timeline(session, order)
        self._show(order, lines, events)
        return order

    def _reread_quietly(self, user: User) -> None:
        """Show what changed meanwhile (after a refusal); a gone order stays as it was shown."""
        try:
            self._reread(user)
        except ServiceError:
            pass

    def _show(self, order: Order, lines: list[order_service.OrderLine], events) -> None:
        self.order_id = order.id
        self.short_id = order.id[:8]
        self.status_text = status_label(order.status)
        self.completed = is_completed(order.status)
        self.cancelled = is_cancelled(order.status)
        self.date_text = order.created_at.strftime(DATE_TIME) if order.created_at else ""
        self.lines = line_views(lines, current_names=True)
        self.totals = order_totals(order)
        self.pickup = is_pickup(order)
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

    @user_event
    def load(self, user: User):
        requested = self._requested_id()
        if requested != self.order_id:
            self._forget()
        self.order_id = requested
        self.confirming_cancel = False
        shown: list[Order] = []
        yield from load_list(self, lambda: shown.append(self._reread(user)), f"order {requested}")
        back_from_payment = self.router.url.query_parameters.get("reference", "")
        if shown and back_from_payment and shown[0].payment_method == PaymentMethod.MOBILE_MONEY.value:
            yield OrderDetailState.check_payment

    async def _ask_provider(self, user: User, order_id: str) -> Order | None:
        """Ask the provider (again, a few seconds apart, while it has no answer yet), then show the
        order as it now stands (None when it cannot be read any more)."""
        for attempt in range(CHECK_ATTEMPTS):
            try:
                order = await asyncio.to_thread(payments.check_payment, user, order_id)
            except ServiceError:
                break
            if order.payment_status != PaymentStatus.AWAITING_PAYMENT.value or attempt == CHECK_ATTEMPTS - 1:
                break
            await asyncio.sleep(CHECK_PAUSE_S)
        async with self:
            try:
                return self._reread(user)
            except ServiceError:
                self.failed = True
                return None

    @user_event(background=True)
    async def check_payment(self, user: User):
        """Back from the payment page: say what really happened to the payment."""
        async with self:
            order_id = self.order_id
        async for update in busy_call(self, "working", lambda: self._ask_provider(user, order_id), busy="check",
                                      success=payment_outcome, failure=("Error", "Could not check the payment.")):
            yield update

    @rx.event
    def ask_cancel(self):
        self.confirming_cancel = self.can_cancel

    @rx.event
    def keep_order(self):
        self.confirming_cancel = False

    @user_event
    async def cancel(self, user: User):
        if not self.can_cancel:
            return

        async def cancel() -> Order:
            with write_session() as session:
                lifecycle.cancel_order(session, user, self.order_id)
            order = self._reread(user)
            (await self.get_state(OrdersState))._record(user.id, order)
            return order

        def cancelled(order: Order) -> Toast:
            refund = " Our team will refund your payment." if order.attention == Attention.REFUND_DUE.value else ""
            return "Order cancelled", "Your order has been cancelled." + refund

        try:
            async for update in busy_call(self, "working", cancel, busy="cancel", success=cancelled,
                                          failure=("Could not cancel", "Please try again."),
                                          on_refusal=lambda _refusal: self._reread_quietly(user)):
                yield update
        finally:
            self.confirming_cancel = False

    @user_event(background=True)
    async def pay_again(self, user: User):
        async with self:
            if not self.can_pay:
                return
            order_id, origin = self.order_id, self.router.url.origin

        async def begin() -> str:
            _order, url = await asyncio.to_thread(payments.begin_payment, user, order_id, site_origin=origin)
            return url

        async for update in busy_call(self, "working", begin, busy="pay", success=REDIRECTING,
                                      failure=("Payment not started", None),
                                      on_refusal=lambda _refusal: self._reread_quietly(user), then=go_to_payment):
            yield update
