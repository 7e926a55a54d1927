"""Checkout rules without HTTP: Ghanaian mobile numbers, delivery pricing, settings, labels."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from discount_deals.services import ValidationFailed
from discount_deals.services.phones import display_phone
from discount_deals.services.phones import guess_network as network_for
from discount_deals.services.phones import normalise_mobile as normalise_phone
from discount_deals.services.pricing import DeliveryRule, PricedLine, cart_totals
from discount_deals.services.money import from_minor_units, minor_units
from discount_deals.config.settings import get_settings
from discount_deals.state.order_views import is_completed, status_label


@pytest.mark.parametrize(
    "typed, stored",
    [
        ("0241234567", "+233241234567"),
        ("024 123 4567", "+233241234567"),
        ("024-123-4567", "+233241234567"),
        ("+233 50 123 4567", "+233501234567"),
        ("233 57 123 4567", "+233571234567"),
        ("(059) 123.4567", "+233591234567"),
    ],
)
def test_ghanaian_mobile_numbers(typed, stored):
    assert normalise_phone(typed) == stored


@pytest.mark.parametrize(
    "typed",
    ["", "   ", "024123456", "02412345678", "0302123456", "+2330241234567", "+44 7700 900123", "024 123 456a",
     "0231234567", None, 241234567],
)
def test_other_numbers_are_refused_with_a_code(typed):
    with pytest.raises(ValidationFailed) as refused:
        normalise_phone(typed)
    assert refused.value.code == "phone_invalid"
    assert refused.value.detail == "Enter a Ghanaian mobile money number, such as 024 123 4567."


def test_network_guess_and_display():
    assert network_for("+233241234567") == "mtn"
    assert network_for("+233201234567") == "telecel"
    assert network_for("+233561234567") == "airteltigo"
    assert display_phone("+233241234567") == "024 123 4567"
    assert display_phone(None) == ""


def line(unit: str, quantity: int = 1) -> PricedLine:
    return PricedLine(unit_price=D(unit), original_price=D(unit), quantity=quantity)


def test_pickup_costs_no_delivery():
    assert cart_totals([line("20.00")], pickup=True).shipping == D("0.00")
    assert cart_totals([line("20.00")], pickup=True).free_shipping_gap == D("0.00")
    assert cart_totals([line("20.00")]).shipping == D("5.99")


def test_the_delivery_rule_is_configurable():
    rule = DeliveryRule(fee=D("10.00"), free_over=D("100.00"))
    totals = cart_totals([line("60.00")], rule=rule)
    assert (totals.shipping, totals.free_shipping_gap) == (D("10.00"), D("40.01"))
    assert cart_totals([line("100.01")], rule=rule).shipping == D("0.00")


def test_minor_units():
    assert minor_units(D("36.77")) == 3677
    assert minor_units("0.1") == 10
    assert from_minor_units(3677) == D("36.77")


@pytest.mark.parametrize(
    "name, value",
    [("DD_DELIVERY_FEE", "-1"), ("DD_DELIVERY_FEE", "1.234"), ("DD_FREE_DELIVERY_OVER", "fifty"),
     ("DD_PAYMENT_PROVIDER", "stripe"), ("DD_PAYMENT_CURRENCY", "CEDI"), ("DD_CURRENCY", "GH"), ("DD_CURRENCY", "₵₵₵"), ("DD_PAYMENT_TIMEOUT_MINUTES", "0")],
)
def test_bad_checkout_settings_are_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        with pytest.raises(ValueError, match=name):
            get_settings()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_checkout_settings_defaults():
    checkout = get_settings().checkout
    assert (checkout.delivery_fee, checkout.free_delivery_over) == (D("5.99"), D("50.00"))
    assert (checkout.payment_provider, checkout.payment_timeout_minutes) == ("fake", 30)
    assert (get_settings().currency.code, get_settings().currency.symbol) == ("USD", "$")
    assert checkout.webhook_secret and "webhook_secret" not in repr(checkout)


@pytest.mark.parametrize(
    "status, label, completed",
    [("ready_for_pickup", "Ready for pickup", False), ("shipped", "Shipped", False),
     ("delivered", "Delivered", True), ("completed", "Completed", True), ("cancelled", "Cancelled", False)],
)
def test_new_status_labels(status, label, completed):
    assert status_label(status) == label
    assert is_completed(status) is completed


def test_the_app_runs_the_unpaid_order_timer():
    from discount_deals.discount_deals import app
    from discount_deals.server.timers import release_unpaid_orders

    assert release_unpaid_orders in app.get_lifespan_tasks()
