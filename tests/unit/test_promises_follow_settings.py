"""The pages promise what the server does: the cart's and the Terms' returns follow DD_RETURN_DAYS
(the server refused returns after 14 days while both said 30), and the Terms name the shop's
currency (they said "Ghana cedis" in a shop that charges dollars)."""

from __future__ import annotations

import pytest

from discount_deals.display import returns_promise
from discount_deals.pages.cart import order_summary
from discount_deals.pages.legal import terms


@pytest.mark.parametrize(("days", "text"), [(30, "Free returns within 30 days"), (14, "Free returns within 14 days"),
                                            (1, "Free returns within 1 day"), (0, "")])
def test_the_promise_says_the_days_returns_are_taken(days, text):
    assert returns_promise(days) == text


def test_the_cart_promises_the_window_in_force_and_nothing_when_returns_are_off(use_settings):
    assert "Free returns within 30 days" in str(order_summary())  # SPEC §9's words with the default
    use_settings(DD_RETURN_DAYS="14")
    assert "Free returns within 14 days" in str(order_summary()) and "30 days" not in str(order_summary())
    use_settings(DD_RETURN_DAYS="0")
    assert "Free returns" not in str(order_summary()) and "Secure checkout" in str(order_summary())


def test_the_terms_name_the_currency_and_the_window_in_force(use_settings):
    page = str(terms())
    assert "Prices are in US dollars" in page and "Free returns within 30 days of delivery" in page
    use_settings(DD_CURRENCY="GHS", DD_RETURN_DAYS="7")
    page = str(terms())
    assert "Prices are in Ghana cedis" in page and "Free returns within 7 days of delivery" in page
    use_settings(DD_RETURN_DAYS="0")
    assert "Items are not taken back once delivered." in str(terms())
