"""services.pricing: every number the shop shows, checked against hand-computed values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from types import SimpleNamespace

import pytest

from discount_deals.services.money import Money
from discount_deals.services.pricing import (
    Coupon,
    PricedLine,
    cart_totals,
    coupon_discount,
    discount_percent,
    discount_state,
    effective_price,
    priced_line,
    product_price,
    shipping_for,
)
from discount_deals.services.money import money_str, round_amount

D = Decimal


def line(unit: str, quantity: int = 1, original: str | None = None) -> PricedLine:
    return PricedLine(unit_price=D(unit), original_price=D(original or unit), quantity=quantity)


@pytest.mark.parametrize(
    "raw, expected",
    [("2.005", "2.01"), ("2.004", "2.00"), ("0.125", "0.13"), (1, "1.00"), (2.675, "2.68"), ("-1.005", "-1.01")],
)
def test_money_rounds_half_up_to_cents(raw, expected):
    assert round_amount(raw) == D(expected)


def test_money_refuses_text_that_is_not_a_number():
    with pytest.raises(ValueError):
        round_amount("abc")


def test_money_strings():
    assert money_str(D("12.5")) == "12.50"
    assert money_str(None) is None
    assert Money.of("1234.5", "USD").text() == "$1,234.50"


@pytest.mark.parametrize(
    "price, discount, expected",
    [
        ("100.00", "30.00", 70),
        ("3.00", "2.00", 33),  # 33.33 → 33
        ("8.00", "7.00", 13),  # 12.5 → 13 (half up, not to even)
        ("200.00", "199.00", 1),  # 0.5 → 1
        ("10.00", "10.00", 0),
        ("10.00", "12.00", 0),
        ("10.00", None, 0),
        ("0.00", "0.00", 0),
    ],
)
def test_discount_percent_rounding(price, discount, expected):
    assert discount_percent(D(price), D(discount) if discount else None) == expected


def test_effective_price_and_priced_line():
    assert effective_price(D("10.00"), D("7.50")) == D("7.50")
    assert effective_price(D("10.00"), None) == D("10.00")
    assert effective_price(D("10.00"), D("0.00")) == D("0.00")  # a free item is still a discount price
    product = SimpleNamespace(price=D("10.00"), discount_price=D("7.50"), discount_start=None, discount_end=None)
    assert priced_line(product, 3) == PricedLine(D("7.50"), D("10.00"), 3)
    assert priced_line(product, 3).line_total == D("22.50")


# --- discount windows: start inclusive, end exclusive, UTC --------------------------------------

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
END = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)
TICK = timedelta(microseconds=1)


def windowed(start=START, end=END, discount="7.00"):
    return SimpleNamespace(price=D("10.00"), discount_price=D(discount) if discount else None,
                           discount_start=start, discount_end=end)


@pytest.mark.parametrize(
    "at, state, unit, percent, changes_at",
    [
        (START - TICK, "scheduled", "10.00", 0, START),  # just before start
        (START, "active", "7.00", 30, END),  # at start: inclusive
        (END - TICK, "active", "7.00", 30, END),  # just before end
        (END, "expired", "10.00", 0, None),  # at end: exclusive
    ],
)
def test_the_window_edges(at, state, unit, percent, changes_at):
    now = product_price(windowed(), at)
    assert now.discount_state == state
    assert now.discount_active is (state == "active")
    assert now.unit_price == D(unit)
    assert now.discount_percent == percent
    assert now.discount_price == (D("7.00") if state == "active" else None)
    assert now.changes_at == changes_at
    assert priced_line(windowed(), 2, at) == PricedLine(D(unit), D("10.00"), 2)


def test_open_sides_and_no_discount():
    assert product_price(windowed(start=None), END - TICK).discount_active
    assert not product_price(windowed(start=None), END).discount_active
    assert product_price(windowed(end=None), START).changes_at is None  # never ends
    assert product_price(windowed(start=None, end=None), START).discount_active
    nothing = product_price(windowed(discount=None), START)
    assert (nothing.discount_state, nothing.unit_price, nothing.changes_at) == ("none", D("10.00"), None)


def test_times_in_other_zones_and_without_zone_are_compared_in_utc():
    accra_noon = datetime(2026, 12, 1, 9, 0)  # no zone: UTC (Ghana is UTC+0 anyway)
    assert discount_state(D("1"), accra_noon, None, START) == "active"
    lagos = timezone(timedelta(hours=1))
    assert discount_state(D("1"), START.astimezone(lagos), None, START - TICK) == "scheduled"
    assert discount_state(D("1"), START.astimezone(lagos), None, START.astimezone(lagos)) == "active"


def test_shipping_threshold_is_over_fifty():
    assert shipping_for(D("50.00")) == D("5.99")
    assert shipping_for(D("50.01")) == D("0.00")
    assert shipping_for(D("0.01")) == D("5.99")
    assert shipping_for(D("0.00")) == D("5.99")  # free items are still carried to the door


def test_an_empty_basket_ships_nothing_but_a_basket_of_free_items_pays_delivery():
    """A 100 %-off item (discount price 0.00) was delivered free: the fee was skipped for any
    subtotal of 0, as if the cart were empty."""
    assert cart_totals([]).shipping == D("0.00")
    free = cart_totals([line("0.00", 1)])
    assert (free.subtotal, free.shipping, free.total) == (D("0.00"), D("5.99"), D("5.99"))
    assert cart_totals([line("0.00", 1)], pickup=True).shipping == D("0.00")


def test_totals_at_exactly_fifty_pay_shipping():
    totals = cart_totals([line("25.00", 2)])
    assert (totals.subtotal, totals.shipping, totals.tax, totals.total) == (
        D("50.00"), D("5.99"), D("4.00"), D("59.99"),
    )
    assert totals.free_shipping_gap == D("0.01")


def test_totals_just_over_fifty_ship_free():
    totals = cart_totals([line("50.01")])
    # tax 4.0008 → 4.00
    assert (totals.subtotal, totals.shipping, totals.tax, totals.total) == (
        D("50.01"), D("0.00"), D("4.00"), D("54.01"),
    )
    assert totals.free_shipping_gap == D("0.00")


def test_tax_is_rounded_half_up_on_the_subtotal():
    assert cart_totals([line("10.06")]).tax == D("0.80")  # 0.8048
    assert cart_totals([line("10.07")]).tax == D("0.81")  # 0.8056
    assert cart_totals([line("0.50")]).tax == D("0.04")
    assert cart_totals([line("0.0625")]).subtotal == D("0.06")  # line totals are rounded to cents first
    totals = cart_totals([line("3.33", 3)])  # 9.99 → tax 0.7992
    assert (totals.subtotal, totals.tax, totals.total) == (D("9.99"), D("0.80"), D("16.78"))


def test_savings_item_count_and_lines():
    totals = cart_totals([line("8.00", 2, original="10.00"), line("12.50", 1)])
    assert totals.item_count == 3
    assert totals.subtotal == D("28.50")
    assert totals.savings == D("4.00")
    assert totals.free_shipping_gap == D("21.51")
    assert totals.total == D("36.77")  # 28.50 + 5.99 + 2.28


def test_savings_never_go_negative():
    # A "discount" price above the price is no saving.
    assert cart_totals([line("12.00", 1, original="10.00")]).savings == D("0.00")


def test_an_empty_cart_costs_nothing():
    totals = cart_totals([])
    assert totals == type(totals)(0, D("0.00"), D("0.00"), D("0.00"), D("0.00"), D("0.00"), D("0.00"), D("0.00"))


def test_percent_coupon_rounds_half_up_and_reduces_the_taxed_amount():
    totals = cart_totals([line("28.50")], Coupon("percent", D("15")))
    # 15 % of 28.50 = 4.275 → 4.28; taxed 24.22 → 1.9376 → 1.94; shipping on 28.50: 5.99.
    assert (totals.discount, totals.tax, totals.shipping, totals.total) == (D("4.28"), D("1.94"), D("5.99"), D("32.15"))


def test_shipping_is_decided_before_the_coupon():
    totals = cart_totals([line("60.00")], Coupon("fixed", D("20.00")))
    assert (totals.discount, totals.shipping, totals.tax, totals.total) == (
        D("20.00"), D("0.00"), D("3.20"), D("43.20"),
    )


def test_a_coupon_never_exceeds_the_subtotal():
    assert coupon_discount(D("8.00"), Coupon("fixed", D("10.00"))) == D("8.00")
    assert coupon_discount(D("8.00"), Coupon("percent", D("100"))) == D("8.00")
    totals = cart_totals([line("8.00")], Coupon("fixed", D("10.00")))
    assert (totals.discount, totals.tax, totals.total) == (D("8.00"), D("0.00"), D("5.99"))


def test_no_coupon_or_empty_cart_means_no_discount():
    assert coupon_discount(D("30.00"), None) == D("0.00")
    assert coupon_discount(D("0.00"), Coupon("fixed", D("5.00"))) == D("0.00")


@pytest.mark.parametrize("subtotal, gap", [("0.00", "0.00"), ("36.50", "13.51"), ("49.99", "0.02"), ("50.00", "0.01")])
def test_free_shipping_gap_reaches_just_over_fifty(subtotal, gap):
    totals = cart_totals([line(subtotal)] if D(subtotal) else [])
    assert totals.free_shipping_gap == D(gap)
    if D(gap):
        assert cart_totals([line(subtotal), line(gap)]).shipping == D("0.00")
