"""Issue 32, item 11: a failed mobile-money payment has a way out: another number or network (a
new charge at once), or cash on delivery (at pickup) instead; never while a charge is live."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from discount_deals.db import session_scope
from discount_deals.services.orders.expiry import expired_unpaid_orders
from discount_deals.services.payments.charges import CHARGE_IN_PROGRESS

from ..builders.accounts import auth_headers
from ..builders.checkout import add_store, events, fill_cart, order_row, place
from ..builders.payments import payments_of
from ..builders.shop import add_address

DECLINED = "024 123 0000"  # the fake provider declines it at once


@pytest.fixture
def failed_order(client, customer, customer_headers, make_product):
    """A mobile-money order whose first charge was declined: ``failed_order(**body)`` → JSON."""
    add_address(customer, is_default=True)

    def order(**body) -> dict:
        fill_cart(client, customer_headers, (make_product(price="20.00", stock=5), 1))
        placed = place(client, customer_headers, {"payment_method": "mobile_money", "phone": DECLINED, **body})
        assert placed["payment_status"] == "failed"
        return placed

    return order


def change(client, headers, order_id: str, **body):
    return client.post(f"/api/orders/{order_id}/payment-method/", json=body, headers=headers)


def test_switching_to_cash_keeps_the_order_and_its_stock(client, customer_headers, failed_order):
    order = failed_order()
    answer = change(client, customer_headers, order["id"], payment_method="cash_on_delivery")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["payment_method"], body["payment_status"], body["status"]) == (
        "cash_on_delivery", "pay_on_delivery", "pending")
    row = order_row(order["id"])
    assert (row.payment_method, row.payment_status, row.payment_due_at) == ("cash_on_delivery", "pay_on_delivery", None)
    # No longer an unpaid mobile-money order: the payment timer never cancels it.
    with session_scope() as session:
        assert order["id"] not in expired_unpaid_orders(session, datetime.now(UTC) + timedelta(days=1))
    # In the timeline's order (PostgreSQL returns an unordered select in any order).
    assert [e.to_value for e in events(order["id"], "payment")][-1] == "pay_on_delivery"
    again = change(client, customer_headers, order["id"], payment_method="cash_on_delivery")
    assert again.json() == {"detail": "This order is paid on delivery."} and again.status_code == 409


def test_another_number_starts_a_new_charge_to_it(client, customer_headers, failed_order):
    order = failed_order()
    answer = change(client, customer_headers, order["id"], payment_method="mobile_money", phone="020 765 4321")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    # The network follows the number when none is given: a Telecel voucher is asked for.
    assert (body["payment_status"], body["payment_step"], body["payment_network"], body["phone"]) == (
        "awaiting_payment", "send_otp", "telecel", "+233207654321")
    assert order_row(order["id"]).payment_phone == "+233207654321"
    assert len(payments_of(order["id"])) == 2


def test_a_live_charge_cannot_be_switched(client, customer_headers, failed_order):
    order = failed_order()
    change(client, customer_headers, order["id"], payment_method="mobile_money", phone="055 765 4321")  # a prompt
    refused = change(client, customer_headers, order["id"], payment_method="cash_on_delivery")
    assert (refused.status_code, refused.json()["detail"]) == (409, CHARGE_IN_PROGRESS)
    assert order_row(order["id"]).payment_method == "mobile_money"


def test_bad_numbers_and_networks_change_nothing(client, customer_headers, failed_order):
    order = failed_order()
    for body, field in (({"phone": "12"}, "phone"), ({}, "phone"),
                        ({"phone": "024 765 4321", "network": "vodafone"}, "network")):
        answer = change(client, customer_headers, order["id"], payment_method="mobile_money", **body)
        assert answer.status_code == 400 and field in answer.json(), answer.text
    bad = change(client, customer_headers, order["id"], payment_method="cheque")
    assert bad.status_code in (400, 422)
    row = order_row(order["id"])
    assert (row.payment_phone, row.payment_status, len(payments_of(order["id"]))) == ("+233241230000", "failed", 1)


def test_only_the_owner_may_change_it(client, make_user, failed_order):
    order = failed_order()
    stranger = auth_headers(make_user())
    assert change(client, stranger, order["id"], payment_method="cash_on_delivery").status_code == 404
    assert client.post(f"/api/orders/{order['id']}/payment-method/", json={"payment_method": "cash_on_delivery"}
                       ).status_code == 401
    assert order_row(order["id"]).payment_method == "mobile_money"


def test_a_pickup_order_switches_to_paying_at_the_store(client, customer_headers, failed_order):
    store = add_store("Melcom Kaneshie")
    order = failed_order(delivery_method="pickup", pickup_store=store.id)
    body = change(client, customer_headers, order["id"], payment_method="cash_on_delivery").json()
    assert (body["delivery_method"], body["payment_method"]) == ("pickup", "cash_on_delivery")
