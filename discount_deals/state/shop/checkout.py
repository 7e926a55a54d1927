"""The checkout page (/checkout): address or pickup store, payment method, review, place order.

Everything comes from the services: the priced review from ``services.checkout.quote`` (the
same pricing the order will be charged with), the options, the addresses, and the order from
``services.orders.checkout``. Refusals are told apart by their ``code``, never by their text.

Placing runs as a background event: the state lock is held only while the state changes, not
while the order is written, the provider is called or the SPEC's pauses run. One attempt
carries one idempotency key, so a double click (or a retry after a lost reply) places one order.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import reflex as rx

from ... import routes
from ...db import session_scope
from ...display import money_text
from ...models import Order, User
from ...models.base import utcnow
from ...services import ErrorCode, ServiceError, ValidationFailed
from ...services import checkout as checkout_service
from ...services import coupons, phones
from ...services.money import money_str
from ...services import orders as order_service
from ..account.order_detail import PAYMENT_WAIT_S, REDIRECTING, OrderDetailState, payment_started, read_order
from ..account.orders import OrdersState
from ..account.session import per_user
from ..actions import busy_call, load_list, seq_number, toast
from ..forms import form_text
from ..guards import user_event
from .cart import LOGIN_REQUIRED, CartState
from .checkout_details import ADDRESS_REQUIRED, STORE_REQUIRED, DeliveryDetails, MobileMoneyNumber
from .checkout_options import (CASH, CHECKOUT_FAILED, DELIVERY, MOMO, PICKUP, RECENT_ORDER, ReviewLine, StoreOption,
                               network_for, phone_guess, recent_order_note, review_lines, store_option)
from .checkout_options import SHOW_PHONE_FIELD, withdrawn_note, withdrawn_refusal
from .totals import TotalsView, home_delivery_text, totals_view

log = logging.getLogger("discount_deals.checkout")
PLACING = "Placing order..."
PLACED_BEFORE_THE_DROP = ("Order placed", "Your order was placed before the connection dropped. Here it is.", "success")
# Drops the query from the address bar without a navigation (no new load, no round trip).
TIDY_ADDRESS = "window.history.replaceState(window.history.state, '', window.location.pathname)"


@per_user  # the addresses, the numbers typed: the next account on the tab starts from its own
class CheckoutState(DeliveryDetails, MobileMoneyNumber, rx.State):
    loaded: bool = False
    empty: bool = False
    # An empty cart's order placed in the last RECENT_ORDER: "Your order #… was placed at …".
    recent_order_text: str = ""
    recent_order_href: str = ""
    lines: list[ReviewLine] = []
    item_count: int = 0

    delivery_method: str = DELIVERY
    delivery_fee_text: str = ""  # the standard fee ("$5.99")
    home_delivery_text: str = ""  # what home delivery costs this basket: the fee, or "Free" over the threshold
    free_over_text: str = ""

    stores: list[StoreOption] = []
    store_id: str = ""
    store_error: str = ""  # "Pickup store required" at the store list, after a try without one

    payment_method: str = CASH

    coupon: str = ""
    coupon_code: str = ""  # the code applied to the totals
    coupon_error: str = ""

    totals: TotalsView = TotalsView()
    _total: str = ""  # the exact total the review showed (the order is refused if it changed)

    # "" (idle), "placing", "redirecting" (to the payment page), "done"
    stage: str = ""
    answered_tap: int = 0  # the last submit's number seen (components/optimistic.submit_tap)
    _attempt_key: str = ""
    _placed_id: str = ""  # the order this tab placed last (see load: a reconnection)

    @rx.var
    def busy(self) -> bool:
        return self.stage != ""

    @rx.var
    def pickup(self) -> bool:
        return self.delivery_method == PICKUP

    @rx.var
    def mobile_money(self) -> bool:
        return self.payment_method == MOMO

    @rx.var
    def cash_hint(self) -> str:
        return "Pay in cash when you collect your order." if self.delivery_method == PICKUP else (
            "Pay in cash when your order is delivered."
        )

    @rx.var
    def place_label(self) -> str:
        if self.stage == "placing":
            return PLACING
        if self.stage == "redirecting":
            return "Redirecting to payment..."
        return f"Place order · {self.totals.total_text}" if self.totals.total_text else "Place order"

    # --- helpers -----------------------------------------------------------------------------

    def _show_quote(self, quote: checkout_service.Quote) -> None:
        self.lines = review_lines(quote)
        self.item_count = quote.totals.item_count
        self.empty = not quote.lines
        self.totals = totals_view(quote.totals)
        self.home_delivery_text = home_delivery_text(quote.totals)
        self._total = money_str(quote.totals.total)

    def _requote(self, user: User) -> None:
        with session_scope() as session:
            try:
                quote = checkout_service.quote(
                    session, user, delivery_method=self.delivery_method, coupon_code=self.coupon_code or None
                )
            except ValidationFailed as exc:
                if not exc.code.startswith("coupon_"):
                    raise
                self.coupon_error = exc.detail  # the coupon expired meanwhile: price without it
                self.coupon_code = ""
                quote = checkout_service.quote(session, user, delivery_method=self.delivery_method)
        self._show_quote(quote)

    def _reprice(self, user: User):
        """Re-price after a choice changed (the review is always what the order will cost)."""
        return busy_call(self, None, lambda: self._requote(user), failure=("Checkout Error", None))

    def _load(self, user: User) -> None:
        with session_scope() as session:
            options = checkout_service.checkout_options(session)
            fresh = session.get(User, user.id) or user
        self.delivery_fee_text = money_text(options.delivery_fee)
        self.free_over_text = money_text(options.free_delivery_over)
        self.stores = [store_option(store) for store in options.stores]
        if self.store_id not in [s.id for s in self.stores]:
            self.store_id = ""
        if not self.phone:
            self.phone = phone_guess(fresh.phonenumber)
            self.network = network_for(self.phone, self.network, self.network_picked)
        self._prefill_contact(fresh)
        self._load_addresses(user)
        self._requote(user)
        self._recent_order(user)

    def _recent_order(self, user: User) -> None:
        """An empty cart right after an order: the way to it (a connection that dropped as it was
        placed, for longer than the server keeps this tab, lost the redirect there)."""
        with session_scope() as session:
            recent = order_service.latest_order_since(session, user, utcnow() - RECENT_ORDER) if self.empty else None
        self.recent_order_text, self.recent_order_href = recent_order_note(recent)

    # --- events ------------------------------------------------------------------------------

    @user_event
    async def load(self, user: User):
        """/checkout: guests log in first and come back here."""
        placed, self._placed_id = self._placed_id, ""
        if self.stage in ("done", "redirecting") and (await self.get_state(OrderDetailState))._not_shown_yet(placed):
            # The order was placed, but the connection dropped before the tab went to it (the
            # answer was lost, and a reconnection loads this page again): go there now, rather
            # than show an empty cart and invite a second order.
            self.stage = ""
            yield toast(PLACED_BEFORE_THE_DROP)
            yield rx.redirect(routes.order_path(placed))
            return
        if self.stage != "placing":  # a finished or abandoned attempt (back from the payment page)
            self.stage = ""
            self._attempt_key = ""
        self.phone_error = self.coupon_error = self.contact_phone_error = ""
        self.address_errors = {}
        shown = (self.phone, self.contact_phone, self.coupon)
        cart = await self.get_state(CartState)
        linked = form_text(self.router.url.query_parameters, "coupon", strip=True, limit=64)
        if linked:  # /checkout?coupon=...: the cart's "Proceed to Checkout" brings it as typed
            cart.coupon = self.coupon = self.coupon_code = linked
            yield rx.call_script(TIDY_ADDRESS)  # the bar says /checkout again; the code is in the field
        elif cart.coupon.strip() and not self.coupon_code:
            self.coupon = cart.coupon.strip()
            self.coupon_code = self.coupon
        for update in load_list(self, lambda: self._load(user), "checkout page", loading=None, failed=None,
                                on_error=lambda _error: toast(("Checkout Failed", CHECKOUT_FAILED, "error"))):
            yield update
        if not self.loaded or (self.phone, self.contact_phone, self.coupon) != shown:
            # The fields show what the server filled in (a reconnection leaves what was typed).
            self.fields_version += 1
            self.choice_version += 1
            self.network_version += 1
        self.loaded = True
        if cart._prices_moved({line.product_id: line.unit_text for line in self.lines}):
            yield CartState.refresh  # the cart names the prices that moved since it showed them

    def _refuse_choice(self) -> None:
        """A choice the server did not take: the radios show the server's again."""
        self.choice_version += 1

    @user_event
    def set_delivery(self, user: User, method: str):
        if self.busy or method not in (DELIVERY, PICKUP):
            return self._refuse_choice()
        self.delivery_method = method
        return self._reprice(user)

    @rx.event
    def set_store(self, store_id: str):
        if not self.busy and store_id in [s.id for s in self.stores]:
            self.store_id, self.store_error = store_id, ""
        else:
            self._refuse_choice()

    @rx.event
    def set_payment(self, method: str):
        if not self.busy and method in (CASH, MOMO):
            self.payment_method = method
            self.phone_error = ""
        else:
            self._refuse_choice()

    def _apply_coupon(self, user: User, code: str):
        with session_scope() as session:
            coupons.find_coupon(session, code)
        self.coupon_code = code
        self.coupon_error = ""
        self._requote(user)
        if not self.coupon_code:
            return None  # it cannot apply to this basket (e.g. below its minimum): coupon_error says why
        return toast(("Coupon applied", f"{code.upper()} is taken off your total.", "success"))

    def _coupon_refused(self, error: Exception) -> None:
        self.coupon_error = error.detail if isinstance(error, ServiceError) else "Could not check the coupon."

    @user_event
    def apply_coupon(self, user: User, form: dict):
        """'Apply' (or Enter in the coupon field): the code as the field holds it now."""
        self.coupon = form_text(form, "coupon", strip=True, limit=64)
        code = self.coupon
        if not code:
            self.coupon_error = "Enter a coupon code first."
            return None
        return load_list(self, lambda: self._apply_coupon(user, code), "coupon", loading=None, failed=None,
                         on_error=self._coupon_refused)

    @user_event
    async def remove_coupon(self, user: User):
        self.coupon_code = self.coupon = self.coupon_error = ""
        (await self.get_state(CartState))._clear_coupon()
        return self._reprice(user)

    # --- placing the order ------------------------------------------------------------------

    def _problem(self):
        """What must be fixed before placing (checked again by the server)."""
        problem = self._stock_problem()
        if problem is None and self.delivery_method == DELIVERY:
            problem = self._address_problem()
        if problem is not None:
            return problem
        if self.delivery_method == PICKUP and not self.store_id:
            self.store_error = STORE_REQUIRED
            return toast((STORE_REQUIRED, "Choose the store where you will collect your order.", "error"))
        if self.payment_method == MOMO:
            try:
                phones.normalise_mobile(self.phone)
            except ValidationFailed as exc:
                self.phone_error = exc.detail
                title = "Check the mobile money number" if self.phone.strip() else "Mobile money number required"
                return [toast((title, exc.detail, "error")), rx.call_script(SHOW_PHONE_FIELD)]
        return self._contact_problem()

    def _refused(self, user: User, exc: ServiceError):
        """Show a refusal where it belongs, by its code, and re-price what changed meanwhile (a line
        whose product was deleted since the review is named)."""
        shown, before = self._refusal_shown(exc), self.lines
        try:
            self._requote(user)
            shown = withdrawn_refusal(exc, withdrawn_note(before, self.lines)) or shown
            if exc.code == ErrorCode.CART_EMPTY:  # another tab placed it: the way there, a true badge
                self._recent_order(user)
                return [shown, CartState.refresh]
        except Exception:
            log.exception("checkout re-quote failed")
        return shown

    def _refusal_shown(self, exc: ServiceError):
        if exc.code == ErrorCode.NO_ADDRESS:
            self.address_form_open = True
            return toast(("Address Required", ADDRESS_REQUIRED, "error"))
        if exc.code == ErrorCode.STOCK_SHORT:
            return toast(("Not enough stock", exc.detail, "error"))  # the re-quote marks the line
        if exc.code in (ErrorCode.CONTACT_PHONE_INVALID, ErrorCode.CONTACT_PHONE_REQUIRED):
            self.contact_phone_error = exc.detail
        elif exc.code in (ErrorCode.PHONE_INVALID, ErrorCode.PHONE_REQUIRED):
            self.phone_error = exc.detail
        elif exc.code == ErrorCode.COUPON_INVALID:
            self.coupon_error = exc.detail
        elif exc.code == ErrorCode.TOTAL_CHANGED:
            return toast(("Your order changed", exc.detail, "warning"))
        return toast(("Checkout Error", exc.detail, "error"))

    def _start_attempt(self) -> dict:
        """Mark this tab as placing and take what the order is made of (under the state lock)."""
        self.stage = "placing"
        self._attempt_key = self._attempt_key or uuid.uuid4().hex
        momo = self.payment_method == MOMO
        return {
            "choice": checkout_service.CheckoutChoice(
                delivery_method=self.delivery_method,
                payment_method=self.payment_method,
                address_id=self.address_id if self.delivery_method == DELIVERY else None,
                pickup_store_id=self.store_id if self.delivery_method == PICKUP else None,
                phone=self.phone if momo else None,
                network=self.network if momo else None,
                contact_phone=self.contact_phone,
            ),
            "coupon_code": self.coupon_code or None,
            "idempotency_key": self._attempt_key,
            "site_origin": self.router.url.origin,
            "expected_total": Decimal(self._total) if self._total else None,
        }

    async def _place(self, user: User, order_args: dict) -> Order:
        """Write the order (in a worker thread, no lock held); the tab then shows it placed."""
        try:
            order: Order = await asyncio.to_thread(order_service.checkout, user, **order_args)
        except Exception:
            async with self:
                self.stage = ""
                self._attempt_key = ""
            raise
        try:
            shown = await asyncio.to_thread(read_order, user, order.id)
        except ServiceError:
            shown = None
        async with self:
            if shown is not None:  # its page shows it at once; its page load refreshes it
                (await self.get_state(OrderDetailState))._preload(*shown)
            # SPEC §4: the order is recorded locally and the cart cleared (the service emptied it).
            (await self.get_state(OrdersState))._record(user.id, order)
            (await self.get_state(CartState))._after_order(user)
            self.coupon = self.coupon_code = ""
            self.stage = "redirecting" if payment_started(order) else "done"
            self._attempt_key = ""
            self._placed_id = order.id
        return order

    async def _after_placing(self, order: Order):
        """To the order: for mobile money its payment step (the code, the prompt on the phone)."""
        if payment_started(order):
            yield toast(REDIRECTING)
            await asyncio.sleep(PAYMENT_WAIT_S)  # SPEC §4's pause, no lock held
        elif order.payment_method == MOMO:
            yield toast(("Payment not started",
                         "We could not reach the payment service. Your order is saved: pay for it from the order page.",
                         "error"))
        else:
            where = "when you collect it" if order.delivery_method == PICKUP else "when it is delivered"
            yield toast(("Order placed", f"Your order has been placed. You pay {where}.", "success"))
        yield rx.redirect(routes.order_path(order.id))

    def _take_fields(self, form: dict) -> None:
        """The numbers as the page's fields hold them when "Place order" is pressed (the
        fields are the browser's: the last pause in typing may not have reached us yet). The
        network is this state's: guessed from the number, or the shopper's pick (set_network
        came before this event), never the select's value, which may not show the guess yet."""
        form = form if isinstance(form, Mapping) else {}
        if "phone" in form:
            self._take_phone(form_text(form, "phone"))
        if "contact_phone" in form:
            self.contact_phone = form_text(form, "contact_phone", limit=20)

    @user_event(background=True, notice=LOGIN_REQUIRED)
    async def place_order(self, user: User, form: dict, seq: Any = 0):
        """Place the order (``seq``: the tap; the button said "Placing order..." from it)."""
        async with self:
            self.answered_tap = max(self.answered_tap, seq_number(seq))
            if self.stage:
                return  # this tab is already placing the order
            self._take_fields(form)
            problem = self._problem()
            order_args = self._start_attempt() if problem is None else {}
        if problem is not None:
            yield problem
            return
        async for update in busy_call(self, None, lambda: self._place(user, order_args),
                                      failure=("Checkout Failed", CHECKOUT_FAILED),
                                      on_refusal=lambda exc: self._refused(user, exc), then=self._after_placing):
            yield update
