"""The checkout's network field follows the number until the shopper picks one; the order page's
payment step is read from the order (state/account/payment_views.py)."""

from __future__ import annotations

import pytest

from discount_deals.models import Order
from discount_deals.services import Conflict
from discount_deals.services.payments import TooManyCharges
from discount_deals.services.payments.charges import CHARGE_IN_PROGRESS
from discount_deals.state.account.payment_views import pay_refused, payment_stage, payment_started
from discount_deals.state.shop.checkout_options import network_for


@pytest.mark.parametrize(("typed", "current", "picked", "shown"), [
    ("020 123 4567", "mtn", False, "telecel"),
    ("+233 26 123 4567", "mtn", False, "airteltigo"),
    ("0551234567", "telecel", False, "mtn"),
    ("020 12", "airteltigo", False, "airteltigo"),  # not a number yet: the field stays
    ("020 123 4567", "mtn", True, "mtn"),  # the shopper's choice stays
])
def test_the_network_follows_the_number_unless_picked(typed, current, picked, shown):
    assert network_for(typed, current, picked) == shown


def _order(**fields) -> Order:
    values = {"user_id": "u", "payment_method": "mobile_money", "payment_status": "awaiting_payment", **fields}
    return Order(**values)


@pytest.mark.parametrize(("fields", "stage"), [
    ({"payment_method": "cash_on_delivery", "payment_status": "pay_on_delivery"}, ""),
    ({"payment_step": "send_otp"}, "send_otp"),
    ({"payment_step": "pay_offline"}, "pay_offline"),
    ({"payment_step": "pending"}, "pending"),
    ({}, "start"),
    ({"payment_status": "failed"}, "failed"),
    ({"payment_status": "paid"}, "paid"),
    ({"attention": "amount_mismatch"}, "checking"),
])
def test_the_payment_step_shown(fields, stage):
    assert payment_stage(_order(**fields)) == stage


def test_an_order_cancelled_when_its_time_was_up_is_expired_and_one_cancelled_before_is_not():
    late = _order(status="cancelled", payment_status="failed", payment_step="expired")
    early = _order(status="cancelled", payment_status="failed")
    assert (payment_stage(late), payment_stage(early)) == ("expired", "")


def test_a_payment_is_started_once_the_provider_took_it():
    assert not payment_started(_order())
    assert payment_started(_order(payment_step="pay_offline"))
    assert payment_started(_order(payment_status="paid"))
    assert not payment_started(_order(payment_method="cash_on_delivery", payment_status="pay_on_delivery"))


def test_a_refused_pay_again_says_why_by_its_code():
    assert pay_refused(Conflict(CHARGE_IN_PROGRESS, code="charge_in_progress")) == (
        "Payment already started", CHARGE_IN_PROGRESS, "info")
    assert pay_refused(TooManyCharges(600)) == (
        "Please wait", "Too many payment attempts for this order. Please try again in 10 minutes.", "warning")
    assert pay_refused(Conflict("This order is already paid.", code="not_payable")) == (
        "Payment not started", "This order is already paid.", "error")
