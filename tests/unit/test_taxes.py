"""Tax rules as a setting (issue 33, item 2): the spec's 8 % or Ghana's VAT, NHIL and GETFund levy,
added to prices or inside them, split into lines that always sum to the tax."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discount_deals.server import preflight
from discount_deals.models import Order
from discount_deals.services.pricing import Coupon, DeliveryRule, PricedLine, cart_totals
from discount_deals.services.taxes import (
    SPEC_TAX,
    TAX_PARTS,
    TaxRule,
    legacy_tax_lines,
    split_tax,
    stored_tax_lines,
    tax_on,
    tax_rule,
)
from discount_deals.config.settings import get_settings
from discount_deals.state.order_views import order_totals
from discount_deals.state.shop.totals import totals_view

GHANA = TaxRule(parts=TAX_PARTS["ghana"])
GHANA_INCLUSIVE = TaxRule(parts=TAX_PARTS["ghana"], prices_include_tax=True)
SPEC_INCLUSIVE = TaxRule(prices_include_tax=True)
RULES = [SPEC_TAX, SPEC_INCLUSIVE, GHANA, GHANA_INCLUSIVE]
DELIVERY = DeliveryRule(fee=D("5.99"), free_over=D("50.00"))


def line(price: str, quantity: int = 1) -> PricedLine:
    return PricedLine(unit_price=D(price), original_price=D(price), quantity=quantity)


def cents(low: int, high: int):
    return st.integers(low, high).map(lambda value: D(value) / 100)


baskets = st.lists(st.tuples(cents(1, 500_000), st.integers(1, 20)), min_size=1, max_size=8)
coupons = st.one_of(
    st.none(),
    st.builds(Coupon, kind=st.just("percent"), value=st.integers(1, 100).map(D)),
    st.builds(Coupon, kind=st.just("fixed"), value=cents(1, 100_000)),
)


@settings(max_examples=400, deadline=None)
@given(basket=baskets, coupon=coupons, rule=st.sampled_from(RULES), pickup=st.booleans())
def test_tax_lines_sum_to_the_tax_and_the_total_adds_up(basket, coupon, rule, pickup):
    totals = cart_totals([line(f"{price:.2f}", qty) for price, qty in basket], coupon, pickup=pickup,
                         rule=DELIVERY, tax=rule)
    assert sum((tax.amount for tax in totals.tax_lines), D(0)) == totals.tax
    assert [tax.code for tax in totals.tax_lines] == [part.code for part in rule.parts]
    assert all(tax.amount >= 0 and tax.amount == tax.amount.quantize(D("0.01")) for tax in totals.tax_lines)
    taxable = totals.subtotal - totals.discount
    if rule.prices_include_tax:
        # The total is what the prices say; the tax is the part inside the taxable value.
        assert totals.total == taxable + totals.shipping
        assert abs(totals.tax - (taxable - taxable / (1 + rule.rate))) <= D("0.005")
    else:
        assert totals.total == taxable + totals.shipping + totals.tax
        assert abs(totals.tax - taxable * rule.rate) <= D("0.005")
    # Each line is its rate's share of the tax, within a cent (largest remainder).
    total_rate = sum(part.rate for part in rule.parts)
    for tax in totals.tax_lines:
        assert abs(tax.amount - totals.tax * tax.rate / total_rate) < D("0.01")


@settings(max_examples=300, deadline=None)
@given(tax=cents(0, 10_000_000))
def test_the_split_is_exact_for_any_amount(tax):
    lines = split_tax(tax, GHANA)
    assert sum(line.amount for line in lines) == tax


def test_the_spec_default_is_one_8_percent_tax_line_unchanged():
    totals = cart_totals([line("12.35", 3)], Coupon("fixed", D("2.00")), rule=DELIVERY)
    assert totals.tax == D("2.80")  # (37.05 - 2.00) × 8 % = 2.804
    assert [(tax.code, tax.label, tax.rate, tax.amount, tax.included) for tax in totals.tax_lines] == [
        ("tax", "Tax", D("8.00"), D("2.80"), False)]
    assert totals.total == D("37.05") - D("2.00") + D("5.99") + D("2.80")


def test_ghana_charges_vat_nhil_and_getfund_on_the_same_value():
    totals = cart_totals([line("100.00")], rule=DELIVERY, tax=GHANA)
    assert totals.tax == D("20.00")
    assert [(tax.code, tax.amount) for tax in totals.tax_lines] == [
        ("vat", D("15.00")), ("nhil", D("2.50")), ("getfund", D("2.50"))]
    assert totals.total == D("120.00")  # shipping is free over 50 and never taxed


def test_shipping_is_not_taxed():
    totals = cart_totals([line("10.00")], rule=DELIVERY, tax=GHANA)
    assert (totals.shipping, totals.tax, totals.total) == (D("5.99"), D("2.00"), D("17.99"))


def test_prices_including_ghana_taxes():
    totals = cart_totals([line("120.00")], rule=DELIVERY, tax=GHANA_INCLUSIVE)
    assert (totals.tax, totals.total) == (D("20.00"), D("120.00"))
    assert [tax.amount for tax in totals.tax_lines] == [D("15.00"), D("2.50"), D("2.50")]
    assert all(tax.included for tax in totals.tax_lines)
    assert totals.prices_include_tax


def test_the_remainder_cent_goes_to_the_largest_fraction():
    # 0.01 over 15 : 2.5 : 2.5 → VAT's share 0.0075 is the largest remainder.
    assert [line.amount for line in split_tax(D("0.01"), GHANA)] == [D("0.01"), D("0.00"), D("0.00")]
    # 0.03 → 0.0225, 0.00375, 0.00375: VAT gets 2 cents, then NHIL (first of the tie) 1.
    assert [line.amount for line in split_tax(D("0.03"), GHANA)] == [D("0.02"), D("0.01"), D("0.00")]
    assert tax_on(D("0.00"), GHANA) == D("0.00")
    assert tax_on(D("0.03"), GHANA_INCLUSIVE) == D("0.01")  # 0.03 - 0.025 = 0.005 → half up


def test_an_order_keeps_its_lines_and_an_old_one_reads_as_its_8_percent():
    kept = [{"code": "vat", "label": "VAT", "rate": "15.00", "amount": "1.50", "included": False}]
    assert [(line.code, line.amount) for line in stored_tax_lines(kept, D("1.50"))] == [("vat", D("1.50"))]
    assert legacy_tax_lines(D("3.2")) == [
        {"code": "tax", "label": "Tax", "rate": "8.00", "amount": "3.20", "included": False}]
    assert [line.code for line in stored_tax_lines(None, D("3.20"))] == ["tax"]


def test_an_old_untaxed_order_reads_as_no_tax_so_a_return_refunds_none():
    """Found by the returns' browser test: an order kept without lines and with no tax was
    refunded 8 % tax it never charged."""
    from discount_deals.services.taxes import rule_of, tax_on

    [line] = stored_tax_lines(None, D("0.00"))
    assert (line.rate, line.amount) == (D("0.00"), D("0.00"))
    assert tax_on(D("40.00"), rule_of([line])) == D("0.00")


@pytest.mark.parametrize(
    "scheme, include, codes, inclusive",
    [("ghana", "1", ["vat", "nhil", "getfund"], True), ("spec", "no", ["tax"], False), ("GHANA", "", ["vat", "nhil", "getfund"], False)],
)
def test_the_rule_comes_from_settings(monkeypatch, scheme, include, codes, inclusive):
    monkeypatch.setenv("DD_TAX", scheme)
    monkeypatch.setenv("DD_PRICES_INCLUDE_TAX", include)
    get_settings.cache_clear()
    try:
        rule = tax_rule()
        assert ([part.code for part in rule.parts], rule.prices_include_tax) == (codes, inclusive)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_the_default_rule_is_the_spec():
    assert tax_rule() == SPEC_TAX


@pytest.mark.parametrize("name, value", [("DD_TAX", "vat"), ("DD_PRICES_INCLUDE_TAX", "sometimes")])
def test_a_bad_tax_setting_is_one_clear_error(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        with pytest.raises(ValueError, match=name):
            get_settings()
        problems = [problem for problem in preflight.plan_server(production=False, connect=False).problems if name in problem]
        assert len(problems) == 1 and value in problems[0]
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_the_cart_and_checkout_views_show_each_tax():
    ghana = totals_view(cart_totals([line("10.00")], rule=DELIVERY, tax=GHANA))
    assert [(tax.label_text, tax.amount_text) for tax in ghana.tax_lines] == [
        ("VAT (15%)", "$1.50"), ("NHIL (2.5%)", "$0.25"), ("GETFund levy (2.5%)", "$0.25")]
    assert ghana.tax_text == "$2.00"
    inclusive = totals_view(cart_totals([line("12.00")], rule=DELIVERY, tax=GHANA_INCLUSIVE))
    assert inclusive.tax_lines[0].label_text == "VAT (15%), included"
    spec = totals_view(cart_totals([line("10.00")], rule=DELIVERY))
    assert [(tax.label_text, tax.amount_text) for tax in spec.tax_lines] == [("Tax", "$0.80")]
    assert [(tax.label_text, tax.amount_text) for tax in totals_view(cart_totals([], rule=DELIVERY)).tax_lines] == [
        ("Tax", "$0.00")]


def test_the_order_page_shows_the_lines_the_order_was_placed_with():
    kept = [line.as_json() for line in split_tax(D("2.00"), GHANA)]
    order = Order(user_id="u", subtotal=D("10.00"), tax=D("2.00"), total=D("17.99"), shipping=D("5.99"),
                  tax_lines=kept)
    assert [tax.label_text for tax in order_totals(order).tax_lines] == [
        "VAT (15%)", "NHIL (2.5%)", "GETFund levy (2.5%)"]
    old = Order(user_id="u", subtotal=D("10.00"), tax=D("0.80"), total=D("16.79"), shipping=D("5.99"))
    assert [(tax.label_text, tax.amount_text) for tax in order_totals(old).tax_lines] == [("Tax", "$0.80")]
