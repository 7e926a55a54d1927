"""What the checkout page offers and reviews: its choices (addresses, pickup stores, networks),
the order lines as priced, and the page's fixed texts."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from ... import routes
from ...db import session_scope
from ...display import LineStockView, ghana_time, line_stock, money_text
from ...models import Address, DeliveryMethod, Order, PaymentMethod, PickupStore
from ...services import ErrorCode, ServiceError
from ...services import cart as cart_service
from ...services import checkout as checkout_service
from ...services import phones
from ..actions import toast

CHECKOUT_FAILED = "An error occurred during checkout. Please try again."
DELIVERY = DeliveryMethod.DELIVERY.value
PICKUP = DeliveryMethod.PICKUP.value
CASH = PaymentMethod.CASH_ON_DELIVERY.value
MOMO = PaymentMethod.MOBILE_MONEY.value
# A refused mobile money number: its field, with the reason under it, comes into sight.
SHOW_PHONE_FIELD = ("document.getElementById('checkout-phone')?.scrollIntoView({block: 'center'});"
                    "document.getElementById('checkout-phone')?.focus({preventScroll: true})")
NETWORK_CHOICES = [(code, name) for code, (name, _prefixes) in phones.NETWORKS.items()]


@dataclasses.dataclass
class ReviewLine(LineStockView):
    """A cart line as checkout reviews it, with its stock note."""

    id: str = ""  # the cart line's
    product_id: str = ""
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


def address_option(address: Address) -> AddressOption:
    """"14 Oxford Street" / "Near the Osu Castle, Accra, Greater Accra, GA-123-4567, Ghana"."""
    rest = [address.line2, address.city, address.state, address.postal_code, address.country]
    return AddressOption(
        id=address.id, title=address.line1, detail=", ".join(p for p in rest if p), is_default=address.is_default
    )


def store_option(store: PickupStore) -> StoreOption:
    return StoreOption(id=store.id, name=store.name, detail=f"{store.address}, {store.city}", hours=store.opening_hours)


def review_lines(quote: checkout_service.Quote) -> list[ReviewLine]:
    return [
        ReviewLine(
            id=line.id,
            product_id=line.product.id,
            name=line.product.name,
            quantity=line.quantity,
            unit_text=money_text(line.unit_price),
            line_text=money_text(line.line_total),
            image_url=line.product.image_url,
            **line_stock(line.stock),
        )
        for line in quote.lines
    ]


def withdrawn_note(before: list[ReviewLine], now: list[ReviewLine]) -> str:
    """"Kettle is no longer available and was removed from your cart." for the lines the review
    showed that are gone now because their products were deleted (not placed or removed); ""."""
    kept = {line.product_id for line in now}
    vanished = {line.product_id: line.name for line in before if line.product_id not in kept}
    if not vanished:
        return ""
    with session_scope() as session:
        gone = cart_service.unavailable_names(session, vanished)
    return cart_service.withdrawn_from_cart(gone) if gone else ""


def withdrawn_refusal(exc: ServiceError, note: str):
    """The toast of a refusal caused by lines deleted since the review (``note`` names them): the
    cart left empty, or the total changed; None otherwise (the refusal's own toast stands)."""
    if not note or exc.code not in (ErrorCode.CART_EMPTY, ErrorCode.TOTAL_CHANGED):
        return None
    if exc.code == ErrorCode.TOTAL_CHANGED:
        return toast(("Your order changed", f"{note} {exc.detail}", "warning"))
    return toast(("Checkout Error", note, "error"))


def network_for(phone: str, current: str, picked: bool) -> str:
    """The network field as the number is typed: the network its prefix was issued by (a guess:
    numbers move between networks), unless the shopper picked one themselves."""
    if picked:
        return current
    return phones.guess_network(phones.parse_mobile(phone)) or current


def phone_guess(stored: str) -> str:
    """The profile's phone number (stored E.164), shown as 024 123 4567 when it is a Ghanaian mobile number."""
    return phones.display_phone(phones.mobile_number(stored))


RECENT_ORDER = timedelta(minutes=30)  # how long an empty checkout points to the order just placed


def recent_order_note(order: Order | None) -> tuple[str, str]:
    """"Your order #… was placed at 6:01 GMT." and the way to it; blanks without one."""
    if order is None:
        return "", ""
    return (f"Your order #{order.id[:8]} was placed at {ghana_time(order.created_at, '%H:%M')}.",
            routes.order_path(order.id))
