"""An order's money beyond its goods (found by a probe of payments): a payment that came twice,
then a cancel or a payment of another amount. An order has one flag; a refund due is never
hidden or lost behind the next one, and recording the second payment's refund leaves an order
that goes on paid."""

from __future__ import annotations

from discount_deals.db import session_scope
from discount_deals.models import Order
from discount_deals.state.admin.order_views import order_page
from discount_deals.state.admin.orders import AdminOrdersState

from ..builders.accounts import auth_headers
from ..builders.checkout import order_row
from ..builders.payments import minor, paid_by_a_second_charge, post_webhook


def paid_twice(client, customer, make_product) -> dict:
    """A pending mobile-money order paid by its second charge, then by its first, late."""
    order, first = paid_by_a_second_charge(client, customer, make_product(price="10.00", stock=10))
    assert post_webhook(client, "charge.success", first, minor(order["total"])).status_code == 200
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("pending", "paid", "refund_due")
    return {**order, "first": first}


def refunded(client, admin_headers, order_id: str, expect: int = 200):
    answer = client.post(f"/api/admin/orders/{order_id}/refunded/", json={}, headers=admin_headers)
    assert answer.status_code == expect, answer.text
    return answer


def test_refunding_the_second_payment_leaves_the_order_paid_and_going_on(client, customer, make_product,
                                                                          admin_headers):
    # It was marked refunded: the order could then only be cancelled, and dropped out of revenue.
    order = paid_twice(client, customer, make_product)
    refunded(client, admin_headers, order["id"])
    row = order_row(order["id"])
    assert (row.payment_status, row.attention) == ("paid", None)
    moved = client.patch(f"/api/orders/{order['id']}/", json={"status": "processing"}, headers=admin_headers)
    assert moved.status_code == 200, moved.text
    assert order_row(order["id"]).status == "processing"


def test_a_cancel_after_a_double_payment_keeps_both_refunds_in_the_note(client, customer, make_product,
                                                                        admin_headers):
    # The cancel's flag replaced "Paid twice": one refund was forgotten.
    order = paid_twice(client, customer, make_product)
    cancel = client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer))
    assert cancel.status_code == 200, cancel.text
    row = order_row(order["id"])
    assert row.attention == "refund_due"
    assert row.attention_note.startswith("Paid twice") and "cancelled after money was received" in row.attention_note
    refunded(client, admin_headers, order["id"])  # the order's total goes back, with a credit note
    row = order_row(order["id"])
    assert (row.payment_status, row.attention) == ("refunded", "refund_due")  # the second payment is still owed
    assert "credit note CN-" in row.attention_note and "More money came than its total" in row.attention_note
    refunded(client, admin_headers, order["id"])  # the second payment, given back and recorded
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("refunded", None)


def test_a_payment_of_another_amount_never_hides_a_refund_due(client, customer, make_product, admin_headers):
    # "amount_mismatch" replaced "refund_due", and /refunded/ then answered "no refund due" for ever.
    order, first = paid_by_a_second_charge(client, customer, make_product(price="10.00", stock=10))
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    assert order_row(order["id"]).attention == "refund_due"
    post_webhook(client, "charge.success", first, 5)  # the first charge, late and for 0.05
    row = order_row(order["id"])
    assert row.attention == "refund_due" and "0.05" in row.attention_note, row.attention_note
    refunded(client, admin_headers, order["id"])  # the total, with a credit note; the 0.05 stays owed
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("refunded", "refund_due")
    refunded(client, admin_headers, order["id"])
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("refunded", None)


def test_the_back_office_says_what_the_refund_did(client, customer, make_product, admin_headers):
    order = paid_twice(client, customer, make_product)
    refunded(client, admin_headers, order["id"])
    state = AdminOrdersState(_reflex_internal_init=True)
    with session_scope() as session:
        state.shown = order_page(session.get(Order, order["id"]), customer)
    assert state._refund_text(order_row(order["id"])).endswith("stays paid: the payment beyond its total was given back.")
