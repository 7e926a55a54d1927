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


def refund_share(order: OrderFigures, before: Mapping[str, int], this: Mapping[str, int],
                 given: Share | None = None) -> Share:
    """What a return of ``this`` refunds after the returns ``before`` were refunded: the share of
    everything then back less what their credit notes gave (``given``). That is the share of
    ``before`` (the default) unless a refund was booked at what it had sent (:func:`fitted`); the
    next one then gives what that left, so the refunds still add up to the order's total."""
    after = {item: before.get(item, 0) + this.get(item, 0) for item in {*before, *this}}
    return returned_share(order, after) - (given if given is not None else returned_share(order, before))


def fitted(share: Share, amount: Decimal, room: Share, prices_include_tax: bool) -> Share:
    """``share`` (what a return refunds now) as a refund of ``amount``, what was sent for it when
    the refunds before it were others (a refund the provider reported failed, then processed
    after all). The goods stay; the shipping, then the tax, then the coupon's share take up a
    difference short (the coupon's share, then the tax, then the shipping one over), each within ``room`` (what the receipt has left of it after the other credit
    notes), so the credit notes together never give back more of any than the receipt charged.
    A difference beyond that room (cents of rounding at most) is not booked: the amount is what
    the fields add up to."""
    short = share.amount - amount  # above 0: less was sent than it would refund now
    discount, tax, shipping = share.discount, share.tax, share.shipping
    taxed = not prices_include_tax
    if short > 0:
        cut = min(short, shipping)
        shipping, short = shipping - cut, short - cut
        cut = min(short, tax) if taxed else ZERO
        tax, short = tax - cut, short - cut
        discount += min(short, max(room.discount - discount, ZERO))
    elif short < 0:  # more was sent: less of the coupon's share, then tax (its rounding), then delivery
        more = -short
        cut = min(more, discount)
        discount, more = discount - cut, more - cut
        add = min(more, max(room.tax - tax, ZERO)) if taxed else ZERO
        tax, more = tax + add, more - add
        shipping += min(more, max(room.shipping - shipping, ZERO))
    amount = round_amount(share.goods - discount + (tax if taxed else ZERO) + shipping)
    return Share(share.goods, discount, tax, shipping, amount, share.complete)
