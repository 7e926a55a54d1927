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
import dataclasses
import json
import logging
import uuid
from decimal import Decimal

import reflex as rx

from .. import routes
from ..db import session_scope, write_session
from ..models import DeliveryMethod, Order, PaymentMethod, User
from ..services import ServiceError, ValidationFailed
from ..services import checkout as checkout_service
from ..services import orders as order_service
from ..services import users as user_service
from .cart import CartState
from .orders import OrdersState
from .profile import error_text
from .session import SessionExpired, SessionState
from ..display import money_text

log = logging.getLogger("discount_deals.checkout")

ADDRESS_REQUIRED = "You cannot proceed to checkout without an address. Please set your address in your profile."
CHECKOUT_FAILED = "An error occurred during checkout. Please try again."
PAYMENT_WAIT_S = 1.2  # SPEC §4: 'Redirecting to payment...' shows for about 1.2 s
ADDRESS_FIELDS = ("line1", "line2", "city", "state", "postal_code", "country")
DELIVERY = DeliveryMethod.DELIVERY.value
PICKUP = DeliveryMethod.PICKUP.value
CASH = PaymentMethod.CASH_ON_DELIVERY.value
MOMO = PaymentMethod.MOBILE_MONEY.value
NETWORK_CHOICES = [(code, name) for code, (name, _prefixes) in checkout_service.NETWORKS.items()]


@dataclasses.dataclass
class ReviewLine:
    name: str = ""
    quantity: int = 0
    unit_text: str = ""
    line_text: str = ""
    image_url: str = ""


@dataclasses.dataclass
class AddressOption:
    id: str = ""
    title: str = ""
    detail: str = ""
    is_default: bool = False


@dataclasses.dataclass
class StoreOption:
    id: str = ""
    name: str = ""
    detail: str = ""
    hours: str = ""


def _address_option(address) -> AddressOption:
    rest = [address.line2, address.city, " ".join(p for p in (address.state, address.postal_code) if p), address.country]
    return AddressOption(
        id=address.id, title=address.line1, detail=", ".join(p for p in rest if p), is_default=address.is_default
    )


def _phone_guess(raw: str) -> str:
    """The profile's phone number, shown as 024 123 4567 when it is a Ghanaian mobile number."""
    try:
        return checkout_service.display_phone(checkout_service.normalise_phone(raw))
    except ValidationFailed:
        return ""


class CheckoutState(rx.State):
    loaded: bool = False
    empty: bool = False
    lines: list[ReviewLine] = []
    item_count: int = 0

    delivery_method: str = DELIVERY
    delivery_fee_text: str = ""  # the standard fee ("$5.99"), shown beside the option
    free_over_text: str = ""

    addresses: list[AddressOption] = []
    address_id: str = ""
    address_form_open: bool = False
    saving_address: bool = False
    address_form_version: int = 0

    stores: list[StoreOption] = []
    store_id: str = ""

    payment_method: str = CASH
    network: str = "mtn"
    phone: str = ""
    phone_error: str = ""

    coupon: str = ""
    coupon_code: str = ""  # the code applied to the totals
    coupon_error: str = ""

    subtotal_text: str = ""
    savings_text: str = ""
    has_savings: bool = False
    shipping_text: str = ""
    tax_text: str = ""
    discount_text: str = ""
    has_discount: bool = False
    total_text: str = ""
    _total: str = ""

    # "" (idle), "placing", "redirecting" (to the payment page), "done"
    stage: str = ""
    _attempt_key: str = ""

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
            return "Placing order..."
        if self.stage == "redirecting":
            return "Redirecting to payment..."
        return f"Place order · {self.total_text}" if self.total_text else "Place order"

    # --- helpers -----------------------------------------------------------------------------

    async def _user(self) -> User:
        return await (await self.get_state(SessionState))._require_user()

    async def _to_login(self):
        return (await self.get_state(SessionState))._login_redirect(routes.CHECKOUT)

    def _show_quote(self, quote: checkout_service.Quote) -> None:
        totals = quote.totals
        self.lines = [
            ReviewLine(
                name=line.product.name,
                quantity=line.quantity,
                unit_text=money_text(line.unit_price),
                line_text=money_text(line.line_total),
                image_url=line.product.image_url,
            )
            for line in quote.lines
        ]
        self.item_count = totals.item_count
        self.empty = not quote.lines
        self.subtotal_text = money_text(totals.subtotal)
        self.savings_text = money_text(totals.savings)
        self.has_savings = totals.savings > 0
        self.shipping_text = "Free" if totals.shipping == 0 else money_text(totals.shipping)
        self.tax_text = money_text(totals.tax)
        self.discount_text = "-" + money_text(totals.discount)
        self.has_discount = totals.discount > 0
        self.total_text = money_text(totals.total)
        self._total = f"{totals.total:.2f}"

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

    def _load_addresses(self, user: User, select: str = "") -> None:
        with session_scope() as session:
            addresses = user_service.list_addresses(session, user)
        self.addresses = [_address_option(a) for a in addresses]
        ids = [a.id for a in self.addresses]
        if select in ids:
            self.address_id = select
        elif self.address_id not in ids:
            self.address_id = ids[0] if ids else ""  # the default comes first
        self.address_form_open = self.address_form_open and bool(ids) or not ids

    # --- events ------------------------------------------------------------------------------

    @rx.event
    async def load(self):
        """/checkout: guests log in first and come back here."""
        try:
            user = await self._user()
        except SessionExpired:
            yield await self._to_login()
            return
        if self.stage != "placing":  # a finished or abandoned attempt (back from the payment page)
            self.stage = ""
            self._attempt_key = ""
        self.phone_error = self.coupon_error = ""
        cart = await self.get_state(CartState)
        if cart.coupon.strip() and not self.coupon_code:
            self.coupon = cart.coupon.strip()
            self.coupon_code = self.coupon
        try:
            with session_scope() as session:
                options = checkout_service.checkout_options(session)
                fresh = session.get(User, user.id) or user
            self.delivery_fee_text = money_text(options.delivery_fee)
            self.free_over_text = money_text(options.free_delivery_over)
            self.stores = [
                StoreOption(id=s.id, name=s.name, detail=f"{s.address}, {s.city}", hours=s.opening_hours)
                for s in options.stores
            ]
            if self.store_id not in [s.id for s in self.stores]:
                self.store_id = ""
            if not self.phone:
                self.phone = _phone_guess(fresh.phonenumber)
            self._load_addresses(user)
            self._requote(user)
        except Exception:
            log.exception("checkout page failed to load")
            yield rx.toast.error("Checkout Failed", description=CHECKOUT_FAILED)
        self.loaded = True

    async def _changed(self):
        """Re-price after a choice changed (the review is always what the order will cost)."""
        try:
            self._requote(await self._user())
        except SessionExpired:
            return await self._to_login()
        except ServiceError as exc:
            return rx.toast.error("Checkout Error", description=exc.detail)
        return None

    @rx.event
    async def set_delivery(self, method: str):
        if self.busy or method not in (DELIVERY, PICKUP):
            return
        self.delivery_method = method
        return await self._changed()

    @rx.event
    def set_address(self, address_id: str):
        if not self.busy and address_id in [a.id for a in self.addresses]:
            self.address_id = address_id

    @rx.event
    def set_store(self, store_id: str):
        if not self.busy and store_id in [s.id for s in self.stores]:
            self.store_id = store_id

    @rx.event
    def open_address_form(self):
        self.address_form_open = True

    @rx.event
    def close_address_form(self):
        self.address_form_open = not self.addresses  # with no address the form stays

    @rx.event
    async def add_address(self, form: dict):
        """'Add Address' in the inline form: the same fields and rules as the profile's form."""
        if self.saving_address:
            return
        try:
            user = await self._user()
        except SessionExpired:
            yield await self._to_login()
            return
        data = {name: form.get(name) if isinstance(form.get(name), str) else "" for name in ADDRESS_FIELDS}
        data["is_default"] = form.get("is_default") in ("on", "true", True)
        self.saving_address = True
        yield
        try:
            with write_session() as session:
                address = user_service.add_address(session, user, data)
                new_id = address.id
            self.address_form_open = False
            self._load_addresses(user, select=new_id)
            self.address_form_version += 1
            yield rx.toast.success("Address added")
        except ServiceError as exc:
            yield rx.toast.error("Error", description=error_text(exc) or "Could not add address.")
        except Exception:
            log.exception("checkout address add failed")
            yield rx.toast.error("Error", description="Could not add address.")
        finally:
            self.saving_address = False

    @rx.event
    def set_payment(self, method: str):
        if not self.busy and method in (CASH, MOMO):
            self.payment_method = method
            self.phone_error = ""

    @rx.event
    def set_network(self, network: str):
        if network in checkout_service.NETWORKS:
            self.network = network

    @rx.event
    def set_phone(self, value: str):
        self.phone = value[:20]
        self.phone_error = ""

    @rx.event
    def check_phone(self):
        """On leaving the field: say at once when the number cannot be a Ghanaian mobile number."""
        if self.phone.strip():
            try:
                checkout_service.normalise_phone(self.phone)
                self.phone_error = ""
            except ValidationFailed as exc:
                self.phone_error = exc.detail

    @rx.event
    def set_coupon(self, value: str):
        self.coupon = value[:64]
        self.coupon_error = ""

    @rx.event
    async def apply_coupon(self):
        code = self.coupon.strip()
        if not code:
            self.coupon_error = "Enter a coupon code first."
            return
        try:
            user = await self._user()
        except SessionExpired:
            return await self._to_login()
        try:
            with session_scope() as session:
                order_service.find_coupon(session, code)
        except ValidationFailed as exc:
            self.coupon_error = exc.detail
            return
        self.coupon_code = code
        self.coupon_error = ""
        self._requote(user)
        if not self.coupon_code:
            return  # it cannot apply to this basket (e.g. below its minimum): coupon_error says why
        return rx.toast.success("Coupon applied", description=f"{code.upper()} is taken off your total.")

    @rx.event
    async def remove_coupon(self):
        self.coupon_code = self.coupon = self.coupon_error = ""
        (await self.get_state(CartState))._clear_coupon()
        return await self._changed()

    # --- placing the order ------------------------------------------------------------------

    def _problem(self):
        """What must be fixed before placing (checked again by the server)."""
        if self.delivery_method == DELIVERY and not self.address_id:
            self.address_form_open = True
            return rx.toast.error("Address Required", description=ADDRESS_REQUIRED)
        if self.delivery_method == PICKUP and not self.store_id:
            return rx.toast.error("Pickup store required", description="Choose the store where you will collect your order.")
        if self.payment_method == MOMO:
            try:
                checkout_service.normalise_phone(self.phone)
            except ValidationFailed as exc:
                self.phone_error = exc.detail
                return rx.toast.error("Mobile money number required", description=exc.detail)
        return None

    def _refused(self, exc: ServiceError):
        """Show a refusal where it belongs, by its code."""
        if exc.code == "no_address":
            self.address_form_open = True
            return rx.toast.error("Address Required", description=ADDRESS_REQUIRED)
        if exc.code in ("phone_invalid", "phone_required"):
            self.phone_error = exc.detail
        elif exc.code == "coupon_invalid":
            self.coupon_error = exc.detail
        elif exc.code == "total_changed":
            return rx.toast.warning("Your order changed", description=exc.detail)
        return rx.toast.error("Checkout Error", description=exc.detail)

    @rx.event(background=True)
    async def place_order(self):
        async with self:
            if self.stage:
                return  # this tab is already placing the order
            session_state = await self.get_state(SessionState)
            try:
                user = await session_state._require_user()
            except SessionExpired:
                yield rx.toast.error("Login Required", description="Please log in to proceed with checkout.")
                yield session_state._login_redirect(routes.CHECKOUT)
                return
            problem = self._problem()
            if problem is not None:
                yield problem
                return
            self.stage = "placing"
            self._attempt_key = self._attempt_key or uuid.uuid4().hex
            key = self._attempt_key
            choice = checkout_service.CheckoutChoice(
                delivery_method=self.delivery_method,
                payment_method=self.payment_method,
                address_id=self.address_id if self.delivery_method == DELIVERY else None,
                pickup_store_id=self.store_id if self.delivery_method == PICKUP else None,
                phone=self.phone if self.payment_method == MOMO else None,
                network=self.network if self.payment_method == MOMO else None,
            )
            coupon = self.coupon_code or None
            expected = Decimal(self._total) if self._total else None
            origin = self.router.url.origin
        try:
            order: Order = await asyncio.to_thread(
                order_service.checkout,
                user,
                choice,
                coupon_code=coupon,
                idempotency_key=key,
                site_origin=origin,
                expected_total=expected,
            )
        except ServiceError as exc:
            async with self:
                self.stage = ""
                self._attempt_key = ""
                shown = self._refused(exc)
                try:
                    self._requote(user)
                except Exception:
                    log.exception("checkout re-quote failed")
            yield shown
            return
        except Exception:
            log.exception("checkout failed")
            async with self:
                self.stage = ""
                self._attempt_key = ""
            yield rx.toast.error("Checkout Failed", description=CHECKOUT_FAILED)
            return

        async with self:
            # SPEC §4: the order is recorded locally and the cart cleared (the service emptied it).
            (await self.get_state(OrdersState))._record(user.id, order)
            (await self.get_state(CartState))._after_order(user)
            self.coupon = self.coupon_code = ""
            self.stage = "redirecting" if order.payment_method == MOMO else "done"
        order_page = f"{routes.ORDERS}/{order.id}"
        if order.payment_method != MOMO:
            where = "when you collect it" if order.delivery_method == PICKUP else "when it is delivered"
            yield rx.toast.success("Order placed", description=f"Your order has been placed. You pay {where}.")
            yield rx.redirect(order_page)
            async with self:
                self._attempt_key = ""
            return
        if not order.payment_url:
            async with self:
                self.stage = "done"
                self._attempt_key = ""
            yield rx.toast.error(
                "Payment not started",
                description="We could not reach the payment service. Your order is saved: pay for it from the order page.",
            )
            yield rx.redirect(order_page)
            return
        yield rx.toast.info("Redirecting to payment...")
        await asyncio.sleep(PAYMENT_WAIT_S)
        async with self:
            self._attempt_key = ""
        # A full page load: the provider's page is not one of ours (the fake one is served by the API).
        yield rx.call_script(f"window.location.assign({json.dumps(order.payment_url)})")
