"""One order (/orders/{id}), read through services.orders: its lines, totals, delivery, payment
and timeline; a pending order can be cancelled, an unpaid mobile-money one paid again.

A mobile-money order shows its payment step (payment_views.py): a field for the code when the
charge asks for one (a Telecel voucher), "Approve the prompt on your phone" while it waits on the
phone or the network, and the outcome with a way to try again. While it waits, a background event
asks the provider every ``payments.POLL_SECONDS`` (no lock is held while it waits or the provider
answers) and says "Payment successful" only when the payment really succeeded.
"""

from __future__ import annotations

import asyncio

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...display import ghana_time, money_text, whatsapp_chat_url, whatsapp_order_share_url
from ...config.public_url import absolute_url
from ...models import Attention, Order, PaymentMethod, User
from ...services import ErrorCode, NotFound, ServiceError, ValidationFailed, payments
from ...services.phones import display_phone, network_name
from ...services.orders import status as lifecycle
from ...services import orders as order_service
from ...services.orders.rules import can_cancel, is_payable, is_test_payment
from ...services.payments import changes as payment_changes
from ...services.payments.flow import clean_otp
from ..actions import Toast, busy_call, load_list, toast
from ..forms import form_text
from ..guards import user_event
from ..order_views import (DATE_TIME, OrderLineView, OrderTotals, TimelineEntry, address_text, customer_timeline,
                          is_cancelled, is_completed, is_pickup, line_views, order_totals, payment_badge,
                          payment_method_text, status_label, store_text)
from .orders import OrdersState
from .payment_views import (CODE_REFUSED, WATCHED, cash_chosen, pay_refused, payment_outcome, payment_stage,
                            payment_started, watch_limit)
from .session import per_user

__all__ = ["PAYMENT_WAIT_S", "REDIRECTING", "OrderDetailState", "payment_started"]

PAYMENT_WAIT_S = 1.2  # SPEC §4: 'Redirecting to payment...' shows for about 1.2 s
REDIRECTING = ("Redirecting to payment...", None, "info")
CASH_REFUSED = "Could not change the payment"  # "Pay cash on delivery instead" refused


def read_order(user: User, order_id: str) -> tuple[Order, list[order_service.OrderLine], list]:
    """The customer's own order with its lines and timeline (an admin reads other people's
    orders in /admin only)."""
    with session_scope() as session:
        order = order_service.get_order(session, user, order_id)
        if order.user_id != user.id:
            raise NotFound("Order not found.")
        return order, order_service.order_items(session, order), lifecycle.timeline(session, order)


@per_user
class OrderDetailState(rx.State):
    _arriving: str = ""  # the order this tab just placed, until its page opens (see _preload)
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
    payment_status_text: str = ""  # beside the status badge: "Paid", "Awaiting payment", ...
    payment_badge: str = "warning"
    payment_reference: str = ""
    payment_due_text: str = ""
    receipt_number: str = ""  # given when the money is in: the page links its receipt
    chat_url: str = ""  # "Chat with us on WhatsApp" about this order ("" without DD_WHATSAPP_NUMBER)
    share_url: str = ""  # "Share on WhatsApp": tell a friend where they shopped
    # The payment step (payment_views.payment_stage) and what it shows.
    pay_stage: str = ""
    payment_prompt: str = ""
    payment_test: bool = False
    test_phone_url: str = ""  # the fake provider's "phone" where a test payment is approved
    network_text: str = ""
    phone_text: str = ""
    network: str = ""  # the network code charged ("mtn"), the default of "Use another number"
    number_error: str = ""  # "Use another number": the number or network refused
    otp_error: str = ""
    watching: bool = False  # the page asks the provider every POLL_SECONDS
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
        self.confirming_cancel = self.can_cancel = self.can_pay = False
        self.working = ""

    def _requested_id(self) -> str:
        return routes.order_id_in((self.router.url.path or "").rstrip("/")).rsplit("/", 1)[-1][:64]

    def _reread(self, user: User) -> Order:
        order, lines, events = read_order(user, self.order_id or self._requested_id())
        self._show(order, lines, events)
        return order

    def _preload(self, order: Order, lines: list[order_service.OrderLine], events) -> None:
        """The order just placed, shown before its page opens (its page load then refreshes it
        in place: the shopper sees it as soon as the page's code runs)."""
        self._forget()
        self._show(order, lines, events)
        self.loading = False
        self._arriving = order.id

    def _not_shown_yet(self, order_id: str) -> bool:
        """Whether the order just placed by this tab (:meth:`_preload`) has yet to open its page:
        the way there (the checkout's redirect) may have been lost with the connection."""
        return bool(order_id) and self._arriving == order_id

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
        self.payment_badge = payment_badge(order)
        self.payment_status_text = lifecycle.payment_label(order)
        self.payment_reference = order.payment_reference or ""
        self.receipt_number = order.receipt_number or ""
        self.chat_url = whatsapp_chat_url(f"Hello, I have a question about my order #{self.short_id}.")
        self.share_url = whatsapp_order_share_url(absolute_url(routes.HOME, self.router.url.origin))
        self._show_payment(order)
        self.payment_due_text = (
            ghana_time(order.payment_due_at, "%H:%M, %d %b") if order.payment_due_at and is_payable(order) else ""
        )
        self.refund_text = (
            f"A refund of {money_text(order.total)} is due to you: our team will send it back to your mobile money."
            if order.attention == Attention.REFUND_DUE.value
            else ""
        )
        self.timeline = customer_timeline(order, events)
        self.can_cancel = can_cancel(order)
        self.can_pay = is_payable(order)

    def _show_payment(self, order: Order) -> None:
        self.pay_stage = payment_stage(order)
        self.payment_prompt = order.payment_prompt or ""
        self.payment_test = is_test_payment(order)  # "Test payment" beside the payment state
        self.test_phone_url = order.payment_url or "" if order.payment_test else ""
        self.network_text = network_name(order.payment_network)
        self.phone_text = display_phone(order.payment_phone)
        self.network = order.payment_network or ""

    @user_event
    def load(self, user: User):
        requested = self._requested_id()
        if requested == self._arriving:
            self._arriving = ""  # the order just placed has opened its page
        shown_already = requested == self.order_id and not self.loading and not self.failed
        if requested != self.order_id:
            self._forget()
        self.order_id = requested
        self.confirming_cancel = False
        shown: list[Order] = []
        yield from load_list(self, lambda: shown.append(self._reread(user)), f"order {requested}",
                             loading=None if shown_already else "loading")
        back_from_payment = self.router.url.query_parameters.get("reference", "")
        if shown and back_from_payment and shown[0].payment_method == PaymentMethod.MOBILE_MONEY.value:
            yield OrderDetailState.check_payment
        elif self.pay_stage in WATCHED:
            yield OrderDetailState.watch_payment

    async def _ask_provider(self, user: User, order_id: str) -> Order | None:
        """Ask the provider (at most every POLL_SECONDS: sooner, the order as it stands), then show
        the order as it now stands (None when it cannot be read any more)."""
        try:
            await asyncio.to_thread(payments.check_payment, user, order_id)
        except ServiceError:
            pass
        async with self:
            try:
                return self._reread(user)
            except ServiceError:
                self.failed = True
                return None

    @user_event(background=True)
    async def check_payment(self, user: User):
        """Back from the test phone, or "Check now": say what really happened to the payment, and
        keep asking while it waits."""
        async with self:
            order_id = self.order_id
        async for update in busy_call(self, "working", lambda: self._ask_provider(user, order_id), busy="check",
                                      success=payment_outcome, failure=("Error", "Could not check the payment.")):
            yield update
        yield OrderDetailState.watch_payment

    @user_event(background=True)
    async def watch_payment(self, user: User):
        """While the charge waits on the phone or the network: ask the provider every POLL_SECONDS
        (sleeping without the lock) until it answers, the shopper leaves the order or time is up."""
        async with self:
            if self.watching or self.pay_stage not in WATCHED:
                return
            self.watching = True
            order_id = self.order_id
        try:
            for _ in range(watch_limit()):
                await asyncio.sleep(payments.POLL_SECONDS)
                async with self:
                    if self.order_id != order_id or self.pay_stage not in WATCHED:
                        return  # another order is shown, or the code / a retry moved it on
                order = await self._ask_provider(user, order_id)
                if order is None or payment_stage(order) not in WATCHED:
                    yield toast(payment_outcome(order))
                    return
        finally:
            async with self:
                self.watching = False

    async def _send_code(self, user: User, order_id: str, code: str) -> Order | None:
        """Hand over the code; a code the provider asks for again was mistyped: it says so at the
        field, and the shopper types it again (issue 32: not a failed payment). None then (no toast)."""
        await asyncio.to_thread(payments.submit_otp, user, order_id, code)
        async with self:
            order = self._reread(user)
            if order is not None and order.payment_step == payments.SEND_OTP:
                self.otp_error = CODE_REFUSED
                return None
            return order

    def _code_refused(self, user: User, exc: ServiceError):
        if exc.code == ErrorCode.OTP_INVALID:
            self.otp_error = exc.detail
        self._reread_quietly(user)

    @user_event(background=True)
    async def submit_code(self, user: User, form: dict):
        """The code (a Telecel voucher) typed on the payment step, handed to the provider. The
        field is the browser's (it is read from the submitted form, never written back)."""
        async with self:
            order_id, code = self.order_id, form_text(form, "otp", limit=16)
            self.otp_error = ""
            try:
                clean_otp(code)
            except ValidationFailed as exc:
                self.otp_error = exc.detail
                return
        async for update in busy_call(self, "working", lambda: self._send_code(user, order_id, code), busy="code",
                                      success=payment_outcome, failure=("Payment not completed", None),
                                      on_refusal=lambda exc: self._code_refused(user, exc)):
            yield update
        yield OrderDetailState.watch_payment

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

    def _pay_refused(self, user: User, exc: ServiceError, title: str = "Payment not started"):
        """A charge not started (one already waits, too many tries, nothing owed): say why by its
        code and show the order as it now stands."""
        self._reread_quietly(user)
        return toast(pay_refused(exc, title))

    async def _start_charge(self, user: User, order_id: str, origin: str, on_refusal, change=None):
        """A new charge for the order (after ``change``, run in a worker thread), shown, then
        watched: "Try again" and "Use another number" alike."""
        async def begin() -> Order:
            if change is not None:
                await asyncio.to_thread(change)
            await asyncio.to_thread(payments.begin_payment, user, order_id, site_origin=origin)
            async with self:
                self.otp_error = ""
                return self._reread(user)

        async for update in busy_call(self, "working", begin, busy="pay", success=payment_outcome,
                                      failure=("Payment not started", None), on_refusal=on_refusal):
            yield update
        yield OrderDetailState.watch_payment

    @user_event(background=True)
    async def pay_again(self, user: User):
        async with self:
            if not self.can_pay:
                return
            order_id, origin = self.order_id, self.router.url.origin
        async for update in self._start_charge(user, order_id, origin,
                                               lambda refusal: self._pay_refused(user, refusal)):
            yield update

    # --- a way out of a failed payment (issue 32) ------------------------------------------------

    def _number_refused(self, user: User, exc: ServiceError):
        if exc.code in (ErrorCode.PHONE_INVALID, ErrorCode.NETWORK_INVALID):
            self.number_error = exc.detail
            self._reread_quietly(user)
            return None
        return self._pay_refused(user, exc)

    @user_event(background=True)
    async def pay_from_number(self, user: User, form: dict):
        """Pay from another number or network: kept on the order, then a new charge to it."""
        async with self:
            if not self.can_pay:
                return
            order_id, origin = self.order_id, self.router.url.origin
            phone, network = form_text(form, "phone", limit=32), form_text(form, "network", limit=16)
            self.number_error = ""

        def change() -> None:
            with write_session() as session:
                payment_changes.change_payment_number(session, user, order_id, phone, network)

        async for update in self._start_charge(user, order_id, origin,
                                               lambda exc: self._number_refused(user, exc), change):
            yield update

    @user_event(background=True)
    async def pay_cash_instead(self, user: User):
        """Pay in cash on delivery (or at pickup) instead of mobile money."""
        async with self:
            if not self.can_pay:
                return
            order_id = self.order_id

        def switch() -> None:
            with write_session() as session:
                payment_changes.switch_to_cash(session, user, order_id)

        async def run() -> Order:
            await asyncio.to_thread(switch)
            async with self:
                return self._reread(user)

        async for update in busy_call(self, "working", run, busy="cash", success=cash_chosen,
                                      failure=(CASH_REFUSED, None),
                                      on_refusal=lambda refusal: self._pay_refused(user, refusal, CASH_REFUSED)):
            yield update
