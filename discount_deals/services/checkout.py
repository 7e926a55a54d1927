"""What a shopper chooses at checkout and what it will cost.

* :func:`checkout_options`: delivery methods (home delivery or pickup at a partner store),
  payment methods (cash on delivery or mobile money) and the pickup stores.
* :func:`resolve_choice`: checks a :class:`CheckoutChoice` against the shopper's addresses,
  the stores and the Ghanaian mobile-money numbering plan.
* :func:`quote`: the priced cart for a delivery method and coupon, computed by
  ``services.pricing`` exactly as :func:`services.orders.checkout` will charge it.

Refusals carry a ``code`` (``no_address``, ``phone_invalid``, ...) that faces branch on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlmodel import Session, select

from ..models import Address, Coupon, DeliveryMethod, PaymentMethod, PickupStore, User
from . import NotFound, ValidationFailed, pricing
from .money import round_amount
from . import pickup_stores as store_service
from .cart import CartLine, buyable, cart_lines
from .coupons import check_minimum, given_coupon
from .error_codes import ErrorCode
from .permissions import require_user
from .phones import NETWORKS, ghanaian_number, guess_network, normalise_mobile, normalise_phone
from .rows import by_id

NO_ADDRESS = "No address found"  # CLIENT-CONTRACT §5: the existing client looks for this text
CONTACT_PHONE_REQUIRED = "Enter a phone number the rider can call."

DELIVERY_METHODS: dict[str, str] = {
    DeliveryMethod.DELIVERY.value: "Home delivery",
    DeliveryMethod.PICKUP.value: "Pickup at a partner store",
}
PAYMENT_METHODS: dict[str, str] = {
    PaymentMethod.CASH_ON_DELIVERY.value: "Cash on delivery",
    PaymentMethod.MOBILE_MONEY.value: "Mobile money",
}
# --- options -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckoutOptions:
    delivery_fee: Decimal
    free_delivery_over: Decimal
    stores: list[PickupStore]


def checkout_options(session: Session) -> CheckoutOptions:
    rule = pricing.delivery_rule()
    return CheckoutOptions(
        delivery_fee=round_amount(rule.fee),
        free_delivery_over=round_amount(rule.free_over),
        stores=store_service.list_stores(session),
    )


# --- the shopper's choice ----------------------------------------------------------------------


@dataclass(frozen=True)
class CheckoutChoice:
    """What the shopper picked. The defaults are what the original client's ``{}`` means:
    home delivery to the default address, cash on delivery."""

    delivery_method: str = DeliveryMethod.DELIVERY.value
    payment_method: str = PaymentMethod.CASH_ON_DELIVERY.value
    address_id: str | None = None
    pickup_store_id: str | None = None
    phone: str | None = None
    network: str | None = None
    # The number the rider calls: None when the client does not ask for one (the account's
    # number is used); text, even blank, when it does (it must then be a Ghanaian number).
    contact_phone: str | None = None

    @property
    def pickup(self) -> bool:
        return self.delivery_method == DeliveryMethod.PICKUP.value


@dataclass(frozen=True)
class ResolvedChoice:
    delivery_method: str
    payment_method: str
    address: Address | None
    store: PickupStore | None
    phone: str | None
    network: str | None
    contact_phone: str | None = None  # E.164

    @property
    def pickup(self) -> bool:
        return self.delivery_method == DeliveryMethod.PICKUP.value

    @property
    def mobile_money(self) -> bool:
        return self.payment_method == PaymentMethod.MOBILE_MONEY.value


def _fail(field: str, message: str, code: str) -> ValidationFailed:
    return ValidationFailed(message, fields={field: [message]}, code=code)


def check_delivery_method(value: Any) -> str:
    if value not in DELIVERY_METHODS:
        raise _fail("delivery_method", "Delivery method must be delivery or pickup.", ErrorCode.DELIVERY_METHOD_INVALID)
    return value


def default_address(session: Session, user: User) -> Address | None:
    """The default address, else the first saved one."""
    return session.exec(
        select(Address)
        .where(Address.user_id == user.id)
        .order_by(Address.is_default.desc(), Address.created_at, Address.id)
    ).first()


def account_contact_phone(user: User) -> str | None:
    """The account's own number (stored E.164) when it is a Ghanaian number a rider can call."""
    return ghanaian_number(user.phonenumber)


def resolve_contact_phone(user: User, given: Any, payment_phone: str | None = None) -> str | None:
    """The order's contact phone: the one given (400 ``contact_phone_required`` when blank,
    ``contact_phone_invalid`` when not a Ghanaian number), else the account's number, else the
    mobile-money number; None when there is none of these."""
    if given is not None:
        if not isinstance(given, str) or not given.strip():
            raise _fail("contact_phone", CONTACT_PHONE_REQUIRED, ErrorCode.CONTACT_PHONE_REQUIRED)
        return normalise_phone(given)
    return account_contact_phone(user) or payment_phone


def resolve_choice(session: Session, user: User, choice: CheckoutChoice) -> ResolvedChoice:
    """Check every part of the choice; 400 with a code naming the first problem."""
    require_user(user)
    delivery = check_delivery_method(choice.delivery_method)
    if choice.payment_method not in PAYMENT_METHODS:
        raise _fail(
            "payment_method", "Payment method must be cash_on_delivery or mobile_money.", ErrorCode.PAYMENT_METHOD_INVALID
        )
    address = store = None
    if delivery == DeliveryMethod.DELIVERY.value:
        if choice.address_id:
            address = by_id(session, Address, choice.address_id)
            if address is None or address.user_id != user.id:
                raise _fail("address_id", "Address not found.", ErrorCode.UNKNOWN_ADDRESS)
        else:
            address = default_address(session, user)
            if address is None:
                raise ValidationFailed(NO_ADDRESS, code=ErrorCode.NO_ADDRESS)
    else:
        if not choice.pickup_store_id:
            raise _fail("pickup_store", "Choose a pickup store.", ErrorCode.STORE_REQUIRED)
        try:
            store = store_service.get_store(session, choice.pickup_store_id)
        except NotFound:
            raise _fail("pickup_store", "That pickup store is not available.", ErrorCode.UNKNOWN_STORE) from None
    phone = network = None
    if choice.payment_method == PaymentMethod.MOBILE_MONEY.value:
        if not choice.phone or not str(choice.phone).strip():
            raise _fail("phone", "Enter the mobile money number to charge.", ErrorCode.PHONE_REQUIRED)
        phone = normalise_mobile(choice.phone)
        network = (choice.network or "").strip().lower() or guess_network(phone)
        if network not in NETWORKS:
            raise _fail("network", "Network must be mtn, telecel or airteltigo.", ErrorCode.NETWORK_INVALID)
    contact = resolve_contact_phone(user, choice.contact_phone, phone)
    return ResolvedChoice(delivery, choice.payment_method, address, store, phone, network, contact)


# --- the review ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quote:
    lines: list[CartLine]
    totals: pricing.CartTotals
    coupon: Coupon | None


def coupon_effect(coupon: Coupon | None) -> pricing.Coupon | None:
    return pricing.Coupon(kind=coupon.kind, value=coupon.value) if coupon else None


def order_totals(lines: Iterable[pricing.PricedLine], coupon: Coupon | None, *, pickup: bool) -> pricing.CartTotals:
    """What priced lines cost with a coupon and a delivery method: the quote and the order
    alike (400 ``coupon_minimum`` when the basket is below the coupon's minimum)."""
    totals = pricing.cart_totals(lines, coupon_effect(coupon), pickup=pickup)
    if coupon is not None:
        check_minimum(coupon, totals.subtotal)
    return totals


def quote(session: Session, user: User, *, delivery_method: str = "delivery", coupon_code: str | None = None) -> Quote:
    """The user's cart priced for a delivery method and coupon (400 "Invalid coupon code", or
    with code ``coupon_used_up`` / ``coupon_minimum`` when it cannot apply). Every line is
    reviewed; a line taken off sale is priced into nothing (the order would refuse it)."""
    require_user(user)
    pickup = check_delivery_method(delivery_method) == DeliveryMethod.PICKUP.value
    coupon = given_coupon(session, coupon_code)
    lines = cart_lines(session, user)
    priced = [pricing.priced_line(line.product, line.quantity) for line in buyable(lines)]
    totals = order_totals(priced, coupon, pickup=pickup)
    return Quote(lines=lines, totals=totals, coupon=coupon)
