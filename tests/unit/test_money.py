"""Money (issue 33): an amount with its currency, rounded half up to cents and written out in one
place: with the symbol on screens and in emails, as ASCII ``GHS 12.35`` in texts, PDFs and
exports, as ``12.50`` in the API. No form of a cedi amount carries a "$"."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from discount_deals.services.money import Money, api_amount, money_text, plain_money_text, round_amount
from discount_deals.config.settings import get_settings


@pytest.fixture
def shop_currency(monkeypatch):
    def use(code: str) -> None:
        for name in ("DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY", "DD_CURRENCY_SYMBOL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("DD_CURRENCY", code)
        get_settings.cache_clear()

    yield use
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.mark.parametrize(("raw", "rounded"), [
    ("12.345", "12.35"), ("12.355", "12.36"), ("0.005", "0.01"), ("-0.005", "-0.01"), (12, "12.00"),
    (0.1 + 0.2, "0.30"), ("2.675", "2.68"),  # half up, not banker's rounding nor float's 2.67
])
def test_amounts_round_half_up_to_cents(raw, rounded):
    assert Money(raw, "GHS").amount == D(rounded)
    assert round_amount(raw) == D(rounded)


@pytest.mark.parametrize("raw", ["abc", "NaN", "inf", "1e400"])
def test_what_is_no_amount_is_refused(raw):
    with pytest.raises(ValueError):
        Money(raw, "USD")


def test_the_three_forms_in_dollars():
    amount = Money("1234.5", "usd")
    assert amount.currency == "USD"
    assert (amount.text(), amount.plain_text(), amount.sms_text(), amount.api()) == (
        "$1,234.50", "USD 1,234.50", "USD 1,234.50", "1234.50")
    assert str(Money("12.5", "USD")) == "$12.50"  # SPEC §9's display, not CLDR's "US$"


def test_the_three_forms_in_cedis_carry_no_dollar_and_the_text_is_ascii():
    amount = Money("12.345", "GHS")
    assert (amount.text(), amount.plain_text(), amount.api()) == ("GH₵12.35", "GHS 12.35", "12.35")
    for text in (amount.text(), amount.plain_text(), amount.api()):
        assert "$" not in text
    assert amount.plain_text().isascii()


def test_negative_amounts_put_the_sign_first():
    assert Money("-3", "USD").text() == "-$3.00"
    assert Money("-3", "GHS").plain_text() == "GHS -3.00"


def test_whole_amounts_can_drop_the_cents_as_price_ranges_read():
    assert Money(25, "GHS").text(cents=False) == "GH₵25"
    assert Money("25.5", "GHS").text(cents=False) == "GH₵25.50"  # never hides cents that are there


def test_a_currency_without_a_symbol_shows_its_code():
    assert Money(12, "CHF").text() == "CHF 12.00"


def test_a_currency_that_is_no_code_is_refused():
    with pytest.raises(ValueError):
        Money(1, "CEDI")


def test_arithmetic_keeps_the_currency():
    five, three = Money(5, "GHS"), Money("3.10", "GHS")
    assert five + three == Money("8.10", "GHS")
    assert five - three == Money("1.90", "GHS")
    assert three * 3 == 3 * three == Money("9.30", "GHS")
    assert -three == Money("-3.10", "GHS")
    assert sum([five, three]) == Money("8.10", "GHS")
    assert Money.total([five, three], "GHS") == Money("8.10", "GHS")
    assert Money.total([], "GHS") == Money(0, "GHS")


def test_amounts_in_two_currencies_do_not_add():
    with pytest.raises(ValueError):
        Money(1, "GHS") + Money(1, "USD")
    with pytest.raises(TypeError):
        Money(1, "GHS") + D(1)
    with pytest.raises(TypeError):
        Money(1, "GHS") * D("1.5")  # a price times a rate is pricing's business, rounded there


def test_money_is_frozen():
    with pytest.raises(AttributeError):
        Money(1, "GHS").amount = D(2)  # type: ignore[misc]


def test_the_shops_currency_is_the_default(shop_currency):
    shop_currency("GHS")
    assert Money.of("12.5") == Money("12.50", "GHS")
    assert (money_text("12.5"), plain_money_text("12.5"), api_amount("12.5")) == ("GH₵12.50", "GHS 12.50", "12.50")
    shop_currency("USD")
    assert (money_text("12.5"), plain_money_text("12.5")) == ("$12.50", "USD 12.50")
