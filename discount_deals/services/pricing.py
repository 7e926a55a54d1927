"""Every number the shop shows: effective prices, discount percentages, delivery fees and totals.

The storefront's cart summary, the checkout page's review and the server's checkout all call
:func:`cart_totals`, so the review shows exactly what the order will charge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

MONEY_STEP = Decimal("0.01")
# SPEC §9's defaults; the amounts in force come from settings (DD_FREE_DELIVERY_OVER, DD_DELIVERY_FEE).
FREE_SHIPPING_OVER = Decimal("50.00")
SHIPPING_FEE = Decimal("5.99")
TAX_RATE = Decimal("0.08")
ZERO = Decimal("0.00")


def money(value: Decimal | int | float | str) -> Decimal:
    """Round to cents, half up (as shoppers expect, not banker's rounding)."""
    if not isinstance(value, Decimal):
        try:
            value = Decimal(str(value))
        except InvalidOperation as exc:
            raise ValueError(f"not a money amount: {value!r}") from exc
    return value.quantize(MONEY_STEP, rounding=ROUND_HALF_UP)


def minor_units(value: Decimal | int | float | str) -> int:
    """An amount in cents/pesewas, as payment providers count it (12.50 → 1250)."""
    return int(money(value) * 100)


def from_minor_units(value: int) -> Decimal:
    """Cents/pesewas back to money (1250 → 12.50)."""
    return money(Decimal(value) / 100)


def money_str(value: Decimal | int | float | str | None) -> str | None:
    """Money as the API's 2-decimal string ("12.50"); None stays None."""
    return None if value is None else f"{money(value):.2f}"


def format_money(value: Decimal | int | float | str, symbol: str = "$") -> str:
    """Money for display, e.g. ``$12.50``."""
    return f"{symbol}{money(value):,.2f}"


def effective_price(price: Decimal, discount_price: Decimal | None) -> Decimal:
    """What a shopper pays per unit: the discount price when there is one, else the price."""
    return money(discount_price if discount_price is not None else price)


def discount_percent(price: Decimal | None, discount_price: Decimal | None) -> int:
    """Rounded saving in percent, 0 unless the price exceeds the discount price."""
    if price is None or discount_price is None or price <= 0 or price <= discount_price:
        return 0
    percent = (Decimal(price) - Decimal(discount_price)) / Decimal(price) * 100
    return int(percent.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class PricedLine:
    """One cart or order line: what is paid per unit, what it would cost undiscounted, how many."""

    unit_price: Decimal
    original_price: Decimal
    quantity: int

    @property
    def line_total(self) -> Decimal:
        return money(self.unit_price * self.quantity)


def priced_line(price: Decimal, discount_price: Decimal | None, quantity: int) -> PricedLine:
    """A line for ``quantity`` units of a product priced ``price`` / ``discount_price`` today."""
    return PricedLine(unit_price=effective_price(price, discount_price), original_price=money(price), quantity=quantity)


@dataclass(frozen=True)
class Coupon:
    """A coupon's effect: a percentage of the subtotal or a fixed amount off."""

    kind: str  # "percent" | "fixed"
    value: Decimal


@dataclass(frozen=True)
class CartTotals:
    item_count: int
    subtotal: Decimal
    savings: Decimal
    discount: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal
    # How much more the shopper must spend for free shipping (0 when already free or empty).
    free_shipping_gap: Decimal


@dataclass(frozen=True)
class DeliveryRule:
    """Home delivery costs ``fee`` unless the subtotal is over ``free_over``."""

    fee: Decimal = SHIPPING_FEE
    free_over: Decimal = FREE_SHIPPING_OVER


def delivery_rule() -> DeliveryRule:
    """The delivery fee rule in force (settings)."""
    from ..settings import get_settings

    checkout = get_settings().checkout
    return DeliveryRule(fee=checkout.delivery_fee, free_over=checkout.free_delivery_over)


def shipping_for(subtotal: Decimal, rule: DeliveryRule | None = None) -> Decimal:
    """Shipping is free when the subtotal is over 50, else 5.99 (an empty cart ships nothing)."""
    rule = rule or delivery_rule()
    if subtotal <= 0:
        return ZERO
    return ZERO if subtotal > rule.free_over else money(rule.fee)


def coupon_discount(subtotal: Decimal, coupon: Coupon | None) -> Decimal:
    if coupon is None or subtotal <= 0:
        return ZERO
    if coupon.kind == "percent":
        amount = money(subtotal * Decimal(coupon.value) / 100)
    else:
        amount = money(coupon.value)
    return min(amount, subtotal)


def cart_totals(
    lines: Iterable[PricedLine], coupon: Coupon | None = None, *, pickup: bool = False, rule: DeliveryRule | None = None
) -> CartTotals:
    """Totals per SPEC §9: subtotal on effective prices, shipping, 8 % tax, total, savings.

    A coupon reduces the amount taxed and paid; shipping is decided on the subtotal. Collecting
    the order at a pickup store (``pickup``) costs no shipping.
    """
    rule = rule or delivery_rule()
    lines = list(lines)
    subtotal = money(sum((line.line_total for line in lines), ZERO))
    original = money(sum((money(line.original_price * line.quantity) for line in lines), ZERO))
    discount = coupon_discount(subtotal, coupon)
    shipping = ZERO if pickup else shipping_for(subtotal, rule)
    tax = money((subtotal - discount) * TAX_RATE)
    total = money(subtotal - discount + shipping + tax)
    gap = ZERO
    if shipping > 0:
        # Shipping is free only *over* the threshold, so the shopper must reach it plus a cent.
        gap = money(rule.free_over + MONEY_STEP - subtotal)
    return CartTotals(
        item_count=sum(line.quantity for line in lines),
        subtotal=subtotal,
        savings=max(money(original - subtotal), ZERO),
        discount=discount,
        shipping=shipping,
        tax=tax,
        total=total,
        free_shipping_gap=gap,
    )
