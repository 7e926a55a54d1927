"""When an unpaid mobile-money order's hold ends (``payment_due_at``), found by a probe: the shop
started a new charge after the deadline (before the release ran), or cancelled the order under a
charge it had started just before it, and the shopper, approving on the phone, paid for a
cancelled order (refunded by hand). Now no charge starts and no switch to cash is made once the
time is up, and the release waits for a live charge (for at most its lifetime)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.orders.expiry import release_expired_payments
from discount_deals.services.payments import CHARGE_LIFETIME

from ..builders.catalog import stock_of
from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.payments import minor, payments_of, post_webhook


def declined_order(client, headers, product) -> dict:
    fill_cart(client, headers, (product, 2))
    order = place(client, headers, MOMO)
    post_webhook(client, "charge.failed", order["payment_reference"], minor(order["total"]))
    return order


def due_at(order_id: str, moment: datetime) -> None:
    with session_scope() as session:
        row = session.get(models.Order, order_id)
        row.payment_due_at = moment
        session.add(row)


def test_no_new_charge_and_no_cash_once_the_time_is_up(client, shopper_headers, make_product):
    product = make_product(price="10.00", stock=3)
    order = declined_order(client, shopper_headers, product)
    due_at(order["id"], datetime.now(UTC) - timedelta(minutes=1))  # the release has not run yet
    again = client.post(f"/api/orders/{order['id']}/pay/", headers=shopper_headers)
    assert again.status_code == 409 and again.json()["detail"] == "The time to pay this order is up.", again.text
    cash = client.post(f"/api/orders/{order['id']}/payment-method/", json={"payment_method": "cash_on_delivery"},
                       headers=shopper_headers)
    assert cash.status_code == 409 and cash.json()["detail"] == "The time to pay this order is up.", cash.text
    assert len(payments_of(order["id"])) == 1 and order_row(order["id"]).payment_method == "mobile_money"
    assert release_expired_payments() == 1
    assert (order_row(order["id"]).status, stock_of(product.id)) == ("cancelled", 3)


def test_the_release_waits_for_a_charge_started_before_the_deadline(client, shopper_headers, make_product):
    product = make_product(price="10.00", stock=3)
    order = declined_order(client, shopper_headers, product)
    again = client.post(f"/api/orders/{order['id']}/pay/", headers=shopper_headers)
    assert again.status_code == 200 and again.json()["payment_step"] == "pay_offline", again.text
    due_at(order["id"], datetime.now(UTC) + timedelta(minutes=2))  # begun again 2 minutes before the end
    assert release_expired_payments(datetime.now(UTC) + timedelta(minutes=3)) == 0  # the prompt still lives
    assert (order_row(order["id"]).status, stock_of(product.id)) == ("pending", 1)
    approved = client.post(again.json()["payment_url"] + "approve/", follow_redirects=False)
    assert approved.status_code == 303
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("pending", "paid", None)
    assert stock_of(product.id) == 1


def test_a_charge_never_answered_holds_the_order_no_longer_than_its_lifetime(client, shopper_headers,
                                                                            make_product):
    product = make_product(price="10.00", stock=3)
    order = declined_order(client, shopper_headers, product)
    assert client.post(f"/api/orders/{order['id']}/pay/", headers=shopper_headers).status_code == 200
    due_at(order["id"], datetime.now(UTC) + timedelta(minutes=2))
    later = datetime.now(UTC) + CHARGE_LIFETIME + timedelta(minutes=1)
    assert release_expired_payments(later) == 1
    assert (order_row(order["id"]).status, stock_of(product.id)) == ("cancelled", 3)
