"""A charge of another amount than the order's (the provider's report): the money that came in is
what is owed back when the order is cancelled, promised and recorded as such (an accounting probe:
a late one on an expired order could never be refunded; an early one promised and recorded the
order's total)."""

from __future__ import annotations

from decimal import Decimal

from discount_deals.services.orders.expiry import release_expired_payments
from discount_deals.services.orders.status import payment_label

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, after_deadline, fill_cart, order_row, place
from ..builders.payments import post_webhook
from ..builders.returns import messages_of
from ..builders.shop import add_address
from .test_cancelled_refunds import refund, returns_of


def placed(client, customer, make_product) -> dict:
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price="50.00", stock=10), 1))
    return place(client, auth_headers(customer), {**MOMO, "phone": "024 765 4321"})


def test_a_wrong_amount_paid_after_the_order_expired_is_owed_back(client, customer, make_product, admin_headers):
    order = placed(client, customer, make_product)
    assert release_expired_payments(after_deadline(order["id"])) == 1
    answer = post_webhook(client, "charge.success", order["payment_reference"], 500).json()  # 5.00 came in
    assert answer["outcome"] == "mismatch"
    row = order_row(order["id"])
    assert (row.status, row.attention) == ("cancelled", "refund_due")
    assert "reported" in row.attention_note and row.attention_note.endswith("Refund what came in.")
    assert payment_label(row) == "Refund due"  # it read "Not charged"
    refund(client, admin_headers, order["id"])  # was 409: "This order has no refund due."
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.refunded_total) == ("refunded", None, Decimal("5.00"))
    assert returns_of(order["id"]) == [] and row.receipt_number is None


def test_a_cancelled_order_paid_the_wrong_amount_promises_and_records_what_came_in(client, customer, make_product,
                                                                                    admin_headers):
    order = placed(client, customer, make_product)
    post_webhook(client, "charge.success", order["payment_reference"], 500)
    assert order_row(order["id"]).attention == "amount_mismatch"  # an admin sorts it out while the order is open
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    (message, *_) = messages_of("order_cancelled", order["id"])
    assert "A refund of USD 5.00 is due to you" in message.body_text, message.body_text  # it said the total
    assert order_row(order["id"]).attention == "refund_due"
    refund(client, admin_headers, order["id"])
    row = order_row(order["id"])
    assert (row.payment_status, row.refunded_total) == ("refunded", Decimal("5.00"))  # it recorded the total
