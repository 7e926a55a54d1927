"""What a return refunds (issue 33, item 4): its lines' share of the order, written once in
services/returns/shares.py. However an order's lines are split over returns and in whatever
order they are refunded, the refunds add up to exactly what the order charged: its subtotal
less the coupon, its tax, and its shipping (with the last return)."""

from __future__ import annotations

import random
from decimal import Decimal as D

import pytest

from discount_deals.models import Coupon
from discount_deals.services.pricing import PricedLine, cart_totals
from discount_deals.services.money import round_amount
from discount_deals.services.returns.shares import OrderFigures, refund_share, returned_share
from discount_deals.services.taxes import TAX_PARTS, SPEC_TAX, TaxRule, rule_of, split_refunded_tax, tax_on

from .test_taxes import DELIVERY, RULES


def figures(lines: list[PricedLine], coupon: Coupon | None, rule: TaxRule, pickup: bool = False):
    totals = cart_totals(lines, coupon, pickup=pickup, rule=DELIVERY, tax=rule)
    assert rule_of(totals.tax_lines) == rule  # the rule read back from the lines an order keeps
    order = OrderFigures(lines={f"item{n}": (line.unit_price, line.quantity) for n, line in enumerate(lines)},
                         subtotal=totals.subtotal, discount=totals.discount, shipping=totals.shipping,
                         tax=totals.tax, rule=rule_of(totals.tax_lines))
    return order, totals


def test_one_line_back_refunds_its_price_and_its_tax():
    order, _totals = figures([PricedLine(D("12.00"), D("12.00"), 2), PricedLine(D("5.00"), D("5.00"), 3)], None,
                             SPEC_TAX)
    share = refund_share(order, {}, {"item0": 1})
    assert (share.goods, share.discount, share.tax, share.shipping, share.amount) == (
        D("12.00"), D("0.00"), D("0.96"), D("0.00"), D("12.96"))
    assert not share.complete


def test_the_coupon_takes_its_share_off_and_the_tax_is_on_what_is_left():
    coupon = Coupon(code="TEN", kind="percent", value=D("10"))
    order, totals = figures([PricedLine(D("20.00"), D("20.00"), 1), PricedLine(D("10.00"), D("10.00"), 1)], coupon,
                            TaxRule(TAX_PARTS["ghana"]))
    share = refund_share(order, {}, {"item1": 1})
    assert share.discount == D("1.00") and share.tax == tax_on(D("9.00"), order.rule) == D("1.80")
    assert share.amount == D("10.80")
    rest = refund_share(order, {"item1": 1}, {"item0": 1})
    assert rest.complete and rest.shipping == totals.shipping
    assert share.amount + rest.amount == totals.total


def test_prices_that_include_tax_refund_no_tax_on_top():
    rule = TaxRule(TAX_PARTS["ghana"], prices_include_tax=True)
    order, _totals = figures([PricedLine(D("12.00"), D("12.00"), 2)], None, rule)
    share = refund_share(order, {}, {"item0": 1})
    assert share.amount == D("12.00") and share.tax == tax_on(D("12.00"), rule) == D("2.00")


def _random_order(rng: random.Random):
    lines = [PricedLine(price, price, rng.randint(1, 5))
             for price in (D(rng.randint(1, 9999)) / 100 for _ in range(rng.randint(1, 6)))]
    coupon = rng.choice([None, Coupon(code="P", kind="percent", value=D(rng.randint(1, 60))),
                         Coupon(code="F", kind="fixed", value=D(rng.randint(1, 3000)) / 100)])
    return figures(lines, coupon, rng.choice(RULES), pickup=rng.random() < 0.3)


def _random_split(rng: random.Random, order: OrderFigures) -> list[dict[str, int]]:
    """Every unit of every line in one of a few returns, the returns in a random order."""
    parts: list[dict[str, int]] = [{} for _ in range(rng.randint(1, 4))]
    for item, (_price, quantity) in order.lines.items():
        for _unit in range(quantity):
            part = rng.choice(parts)
            part[item] = part.get(item, 0) + 1
    parts = [part for part in parts if part]
    rng.shuffle(parts)
    return parts


@pytest.mark.parametrize("seed", range(40))
def test_refunding_every_line_in_any_split_refunds_exactly_what_the_order_charged(seed):
    rng = random.Random(seed)
    for _basket in range(25):
        order, totals = _random_order(rng)
        before: dict[str, int] = {}
        shares = []
        for part in _random_split(rng, order):
            shares.append(refund_share(order, before, part))
            before = {item: before.get(item, 0) + part.get(item, 0) for item in {*before, *part}}
        assert sum(share.amount for share in shares) == totals.total
        assert sum(share.tax for share in shares) == totals.tax
        assert sum(share.discount for share in shares) == totals.discount
        assert sum(share.goods for share in shares) == totals.subtotal
        assert [share.shipping for share in shares[:-1]] == [D("0.00")] * (len(shares) - 1)
        assert shares[-1].shipping == totals.shipping and shares[-1].complete
        assert all(share.amount >= 0 for share in shares)


@pytest.mark.parametrize("seed", range(10))
def test_a_first_return_refunds_its_lines_share_rounded_as_taxes_round(seed):
    rng = random.Random(1000 + seed)
    for _basket in range(25):
        order, _totals = _random_order(rng)
        item = rng.choice(sorted(order.lines))
        price, quantity = order.lines[item]
        taken = rng.randint(1, quantity)
        share = returned_share(order, {item: taken})
        if share.complete:
            continue
        goods = round_amount(price * taken)
        discount = round_amount(order.discount * goods / order.subtotal)
        tax = tax_on(goods - discount, order.rule)
        assert (share.goods, share.discount, share.tax) == (goods, discount, tax)
        assert share.amount == goods - discount + (D("0.00") if order.rule.prices_include_tax else tax)


@pytest.mark.parametrize("seed", range(20))
def test_the_credit_notes_give_back_each_tax_exactly_as_the_receipt_charged_it(seed):
    """A VAT return adds up each tax apart: over all of an order's refunds, VAT, NHIL and GETFund
    each come back to the cent, no refund gives back a negative tax, and each refund's lines sum
    to its tax (before, each credit note split its tax alone and the parts drifted by a pesewa)."""
    rng = random.Random(5000 + seed)
    for _basket in range(25):
        order, totals = _random_order(rng)
        charged = totals.tax_lines
        before: dict[str, int] = {}
        given = tuple(D("0.00") for _ in charged)
        for part in _random_split(rng, order):
            share = refund_share(order, before, part)
            before = {item: before.get(item, 0) + part.get(item, 0) for item in {*before, *part}}
            lines = split_refunded_tax(share.tax, charged, given, order.rule)
            assert sum((line.amount for line in lines), D("0.00")) == share.tax
            assert all(line.amount >= 0 for line in lines)
            given = tuple(total + line.amount for total, line in zip(given, lines, strict=True))
        assert given == tuple(line.amount for line in charged)
