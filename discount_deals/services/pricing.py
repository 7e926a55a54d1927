"""Every number the shop shows: effective prices, discount windows, delivery fees and totals.

A product's discount applies only inside its window: from ``discount_start`` (inclusive) to
``discount_end`` (exclusive), compared in UTC; a missing bound leaves that side open.
:func:`price_at` is that rule, and everything that prices a product goes through it: the
stored listing columns (``effective_price``, ``discount_percent`` and ``price_changes_at``,
written by services.catalog and refreshed by services.catalog.price_schedule when a window
opens or closes), the cards, the cart, the checkout review and the order lines.

The storefront's cart summary, the checkout page's review and the server's checkout all call
:func:`cart_totals`, so the review shows exactly what the order will charge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Protocol

from ..models.orders import CouponKind
from .moments import as_utc as utc  # callers say pricing.utc
from .money import MONEY_STEP, round_amount
from .taxes import TaxLine, TaxRule, basket_tax, tax_rule

# SPEC §9's defaults; the amounts in force come from settings (DD_FREE_DELIVERY_OVER, DD_DELIVERY_FEE).
FREE_SHIPPING_OVER = Decimal("50.00")
SHIPPING_FEE = Decimal("5.99")
TAX_RATE = Decimal("0.08")  # DD_TAX=spec's rate; the rule in force is services.taxes.tax_rule()
ZERO = Decimal("0.00")


def effective_price(price: Decimal, discount_price: Decimal | None) -> Decimal:
    """The discount price when there is one, else the price (the window is :func:`price_at`'s
    business: call this only with a discount already known to be in force)."""
    return round_amount(discount_price if discount_price is not None else price)


def discount_percent(price: Decimal | None, discount_price: Decimal | None) -> int:
    """Rounded saving in percent, 0 unless the price exceeds the discount price."""
    if price is None or discount_price is None or price <= 0 or price <= discount_price:
        return 0
    percent = (Decimal(price) - Decimal(discount_price)) / Decimal(price) * 100
    return int(percent.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


# --- discount windows --------------------------------------------------------------------------

NO_DISCOUNT = "none"  # no discount price
SCHEDULED = "scheduled"  # the window has not opened yet
ACTIVE = "active"  # in force now
EXPIRED = "expired"  # the window has closed
DISCOUNT_STATES = (NO_DISCOUNT, SCHEDULED, ACTIVE, EXPIRED)


def now_utc() -> datetime:
    return datetime.now(UTC)


def discount_state(
    discount_price: Decimal | None, start: datetime | None, end: datetime | None, at: datetime
) -> str:
    """Where ``at`` falls in the discount window: start inclusive, end exclusive, UTC."""
    if discount_price is None:
        return NO_DISCOUNT
    at = utc(at)
    if start is not None and at < utc(start):
        return SCHEDULED
    if end is not None and at >= utc(end):
        return EXPIRED
    return ACTIVE


def next_change(discount_price: Decimal | None, start: datetime | None, end: datetime | None,
                at: datetime) -> datetime | None:
    """When the price next changes after ``at`` (the window opening or closing), or None."""
    state = discount_state(discount_price, start, end, at)
    if state == SCHEDULED:
        return utc(start)
    if state == ACTIVE and end is not None:
        return utc(end)
    return None


@dataclass(frozen=True)
class PriceNow:
    """A product's price at one moment."""

    price: Decimal  # the list price
    unit_price: Decimal  # what one unit costs at that moment
    discount_price: Decimal | None  # the discount in force, None outside its window
    discount_percent: int
    discount_state: str  # one of DISCOUNT_STATES
    changes_at: datetime | None  # when this stops being true (the window opens or closes)

    @property
    def discount_active(self) -> bool:
        return self.discount_state == ACTIVE


class _Priced(Protocol):
    price: Decimal
    discount_price: Decimal | None
    discount_start: datetime | None
    discount_end: datetime | None


def price_at(
    price: Decimal,
    discount_price: Decimal | None,
    discount_start: datetime | None = None,
    discount_end: datetime | None = None,
    at: datetime | None = None,
) -> PriceNow:
    """The price rule: the discount counts only inside its window (see the module docstring).

    A discount price at or above the price is no discount (0 %), but its window still decides
    what is charged, as before."""
    at = utc(at) if at is not None else now_utc()
    state = discount_state(discount_price, discount_start, discount_end, at)
    active = state == ACTIVE
    return PriceNow(
        price=round_amount(price),
        unit_price=effective_price(price, discount_price if active else None),
        discount_price=round_amount(discount_price) if active and discount_price is not None else None,
        discount_percent=discount_percent(price, discount_price) if active else 0,
        discount_state=state,
        changes_at=next_change(discount_price, discount_start, discount_end, at),
    )


def product_price(product: _Priced | Any, at: datetime | None = None) -> PriceNow:
    """:func:`price_at` for anything with a product's price fields (a Product row, a dict-like view)."""
    return price_at(product.price, product.discount_price, product.discount_start, product.discount_end, at)


class LineTotal:
    """``line_total`` of a line of ``quantity`` units at ``unit_price``: cart, order and reminder
    lines total the same way (rounded to the pesewa)."""

    unit_price: Decimal
    quantity: int

    @property
    def line_total(self) -> Decimal:
        return round_amount(self.unit_price * self.quantity)


@dataclass(frozen=True)
class PricedLine(LineTotal):
    """One cart or order line: what is paid per unit, what it would cost undiscounted, how many."""

    unit_price: Decimal
    original_price: Decimal
    quantity: int


def priced_line(product: _Priced | Any, quantity: int, at: datetime | None = None) -> PricedLine:
    """A line for ``quantity`` units of ``product`` at the price in force at ``at`` (now)."""
    now = product_price(product, at)
    return PricedLine(unit_price=now.unit_price, original_price=now.price, quantity=quantity)


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
    # ``tax`` shared over the taxes charged (services.taxes): they sum to it exactly.
    tax_lines: tuple[TaxLine, ...] = ()
    prices_include_tax: bool = False  # the tax is inside the total, not added to it


@dataclass(frozen=True)
class DeliveryRule:
    """Home delivery costs ``fee`` unless the subtotal is over ``free_over``."""

    fee: Decimal = SHIPPING_FEE
    free_over: Decimal = FREE_SHIPPING_OVER


def delivery_rule() -> DeliveryRule:
    """The delivery fee rule in force (settings)."""
    from ..config.settings import get_settings

    checkout = get_settings().checkout
    return DeliveryRule(fee=checkout.delivery_fee, free_over=checkout.free_delivery_over)


def shipping_for(subtotal: Decimal, rule: DeliveryRule | None = None) -> Decimal:
    """Shipping is free when the subtotal is over 50, else 5.99: a basket of free items too is
    carried to the door (an empty cart ships nothing: :func:`cart_totals`)."""
    rule = rule or delivery_rule()
    return ZERO if subtotal > rule.free_over else round_amount(rule.fee)


def coupon_discount(subtotal: Decimal, coupon: Coupon | None) -> Decimal:
    if coupon is None or subtotal <= 0:
        return ZERO
    if coupon.kind == CouponKind.PERCENT:
        amount = round_amount(subtotal * Decimal(coupon.value) / 100)
    else:
        amount = round_amount(coupon.value)
    return min(amount, subtotal)


def cart_totals(
    lines: Iterable[PricedLine], coupon: Coupon | None = None, *, pickup: bool = False, rule: DeliveryRule | None = None,
    tax: TaxRule | None = None,
) -> CartTotals:
    """Totals per SPEC §9: subtotal on effective prices, shipping, tax (8 % by default), total, savings.

    A coupon reduces the amount taxed and paid; shipping is decided on the subtotal and is not
    taxed. Collecting the order at a pickup store (``pickup``) costs no shipping. ``tax`` (the
    settings' rule by default): with prices that include it, the total is what the prices say
    and the tax is the part inside (services.taxes).
    """
    rule = rule or delivery_rule()
    tax_rule_now = tax or tax_rule()
    lines = list(lines)
    subtotal = round_amount(sum((line.line_total for line in lines), ZERO))
    original = round_amount(sum((round_amount(line.original_price * line.quantity) for line in lines), ZERO))
    discount = coupon_discount(subtotal, coupon)
    shipping = ZERO if pickup or not lines else shipping_for(subtotal, rule)
    tax_amount, tax_lines = basket_tax(subtotal - discount, tax_rule_now)
    added_tax = ZERO if tax_rule_now.prices_include_tax else tax_amount
    total = round_amount(subtotal - discount + shipping + added_tax)
    gap = ZERO
    if shipping > 0:
        # Shipping is free only *over* the threshold, so the shopper must reach it plus a cent.
        gap = round_amount(rule.free_over + MONEY_STEP - subtotal)
    return CartTotals(
        item_count=sum(line.quantity for line in lines),
        subtotal=subtotal,
        savings=max(round_amount(original - subtotal), ZERO),
        discount=discount,
        shipping=shipping,
        tax=tax_amount,
        total=total,
        free_shipping_gap=gap,
        tax_lines=tax_lines if lines else (),  # an empty basket is taxed nothing, on no line
        prices_include_tax=tax_rule_now.prices_include_tax,
    )
