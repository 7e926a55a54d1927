"""One currency (DD_CURRENCY): it names every amount of the order JSON and the checkout options,
is what the provider charges, shows prices with its symbol (GH₵ for GHS) and prices the demo
catalogue; the settings it replaced still work when it is not set."""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals.config.currency import parse_currency
from discount_deals.db import session_scope
from discount_deals.display import money_text
from discount_deals.services.demo_catalogue import seed_demo
from discount_deals.config.settings import get_settings
from discount_deals.state.shop.catalog import PRICE_RANGES, price_label

from ..builders.checkout import MOMO, fill_cart, place
from ..builders.payments import payments_of
from ..builders.shop import add_address


@pytest.fixture
def currency(use_settings):
    def use(**values: str) -> None:
        unset = dict.fromkeys(("DD_CURRENCY", "DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY", "DD_CURRENCY_SYMBOL"))
        use_settings(**{**unset, **values})

    return use


def _one_item_order(client, customer, headers, make_product, body: dict, **expected) -> dict:
    """One 12.00 item ordered with ``body`` by ``customer`` (given an address first)."""
    add_address(customer, is_default=True)
    fill_cart(client, headers, (make_product(price="12.00", stock=3), 1))
    return place(client, headers, body, **expected)


def test_the_default_is_the_spec_s_dollar(client, customer, customer_headers, make_product):
    options = client.get("/api/checkout/options/").json()
    assert options["currency"] == {"code": "USD", "symbol": "$"}
    assert [price_label(v) for v in PRICE_RANGES] == ["$0 - $25", "$25 - $50", "$50 - $100", "$100+"]
    assert money_text(Decimal("1234.5")) == "$1,234.50"
    order = _one_item_order(client, customer, customer_headers, make_product, MOMO)
    assert order["currency"] == "USD" and payments_of(order["id"])[0].currency == "USD"


def test_cedis_everywhere(client, customer, customer_headers, make_product, currency):
    currency(DD_CURRENCY="ghs")
    assert client.get("/api/checkout/options/").json()["currency"] == {"code": "GHS", "symbol": "GH₵"}
    assert [price_label(v) for v in PRICE_RANGES] == ["GH₵0 - GH₵25", "GH₵25 - GH₵50", "GH₵50 - GH₵100", "GH₵100+"]
    assert money_text(Decimal("25.78")) == "GH₵25.78"
    order = _one_item_order(client, customer, customer_headers, make_product, MOMO)
    assert order["currency"] == "GHS" and payments_of(order["id"])[0].currency == "GHS"
    page = client.get(order["payment_url"])
    assert "GH₵" in page.text and "$" not in page.text.split("<main>")[1]
    listed = client.get("/api/orders/", headers=customer_headers).json()["results"][0]
    assert listed["currency"] == "GHS"


def test_a_coupon_minimum_is_told_in_the_shops_currency(client, customer, customer_headers, make_product, currency):
    from discount_deals.services.coupons import create_coupon

    currency(DD_CURRENCY="GHS")
    with session_scope() as session:
        create_coupon(session, "BIGBASKET", percent="10", min_subtotal="500")
    refused = _one_item_order(client, customer, customer_headers, make_product, {"coupon_code": "BIGBASKET"},
                              expect=400)
    assert refused["detail"] == "This coupon needs a basket of at least GH₵500.00."


@pytest.mark.parametrize(("values", "code", "symbol"), [
    ({"DD_CURRENCY_CODE": "GHS"}, "GHS", "GH₵"),
    ({"DD_PAYMENT_CURRENCY": "GHS"}, "GHS", "GH₵"),
    ({"DD_CURRENCY_SYMBOL": "GH₵"}, "GHS", "GH₵"),
    ({"DD_CURRENCY": "USD", "DD_PAYMENT_CURRENCY": "GHS"}, "USD", "$"),
    ({"DD_CURRENCY": "eur"}, "EUR", "€"),
    ({"DD_CURRENCY": "CHF"}, "CHF", "CHF "),
])
def test_the_former_settings_are_read_when_dd_currency_is_not_set(currency, values, code, symbol):
    currency(**values)
    assert (get_settings().currency.code, get_settings().currency.symbol) == (code, symbol)


@pytest.mark.parametrize("raw", ["GH", "CEDI", "G1S", "₵₵₵"])
def test_a_currency_that_is_no_code_is_refused(raw):
    with pytest.raises(ValueError, match="DD_CURRENCY"):
        parse_currency(raw)


def test_seed_demo_in_cedis_has_ghanaian_shelf_prices(clean_db, currency):
    from discount_deals.models import Product
    from sqlmodel import select

    currency(DD_CURRENCY="GHS")
    with session_scope() as session:
        seed_demo(session)
        prices = dict(session.exec(select(Product.name, Product.price)).all())
    assert Decimal("400") <= prices["Mama's Pride Parboiled Rice 25kg"] <= Decimal("600")
    assert Decimal("20") <= prices["Gino Tomato Paste 400g"] <= Decimal("40")
    assert Decimal("1500") <= prices["Nasco 32 inch LED TV"] <= Decimal("3000")
