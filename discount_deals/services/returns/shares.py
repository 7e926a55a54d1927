"""What a return refunds: its lines' share of what the order charged, written once.

A share of the order is computed for *everything returned so far* and a return refunds the
difference between the share after it and the share before it (the returns refunded earlier).
So however an order's lines are split over returns, and in whatever order they are refunded,
the refunds add up to exactly what the order charged once every line is back: the last one
refunds what the earlier ones' rounding left.

The share of a set of returned quantities:

* goods: ``unit_price × quantity`` of each line returned;
* less the coupon's share: the order's coupon discount × goods / subtotal, rounded to cents
  half up (all of it when everything is back);
* plus its tax: the tax on that taxable share by the rule the order was taxed with
  (``services.taxes.tax_on``, the same rounding); all of the order's tax when everything is
  back. Tax inside the prices (``prices_include_tax``) is part of the goods and adds nothing;
* plus shipping, only when everything is back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from ..money import round_amount
from ..taxes import ZERO, TaxRule, tax_on


@dataclass(frozen=True)
class OrderFigures:
    """What the arithmetic needs of an order: its lines ``{item id: (unit price, quantity)}``
    and its amounts as charged."""

    lines: Mapping[str, tuple[Decimal, int]]
    subtotal: Decimal
    discount: Decimal
    shipping: Decimal
    tax: Decimal
    rule: TaxRule


@dataclass(frozen=True)
class Share:
    """Money of a return (or of everything returned so far): ``amount`` is what is paid back."""

    goods: Decimal = ZERO
    discount: Decimal = ZERO
    tax: Decimal = ZERO
    shipping: Decimal = ZERO
    amount: Decimal = ZERO
    complete: bool = False  # everything the order had is back

    def __sub__(self, other: Share) -> Share:
        return Share(self.goods - other.goods, self.discount - other.discount, self.tax - other.tax,
                     self.shipping - other.shipping, self.amount - other.amount, self.complete)


def returned_share(order: OrderFigures, returned: Mapping[str, int]) -> Share:
    """The share of the order that ``returned`` ({item id: quantity}) makes up (see above)."""
    goods = round_amount(sum((order.lines[item][0] * quantity for item, quantity in returned.items() if quantity),
                      ZERO))
    complete = all(returned.get(item, 0) >= quantity for item, (_price, quantity) in order.lines.items())
    if complete:
        discount, tax, shipping = order.discount, order.tax, order.shipping
    else:
        discount = round_amount(order.discount * goods / order.subtotal) if order.subtotal > 0 else ZERO
        tax, shipping = tax_on(goods - discount, order.rule), ZERO
    added_tax = ZERO if order.rule.prices_include_tax else tax
    return Share(goods, discount, tax, shipping, round_amount(goods - discount + added_tax + shipping), complete)


def refund_share(order: OrderFigures, before: Mapping[str, int], this: Mapping[str, int]) -> Share:
    """What a return of ``this`` refunds after the returns ``before`` were refunded."""
    after = {item: before.get(item, 0) + this.get(item, 0) for item in {*before, *this}}
    return returned_share(order, after) - returned_share(order, before)
