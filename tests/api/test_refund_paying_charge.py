"""A refund goes back to the charge that paid the order (services/returns/refunds.paid_reference).

Found by a probe: an order paid twice (its first charge came through after a second one was
started, then the second was approved too) had its return's refund, and a cancellation's refund,
sent to the newest successful charge: the second one, which is money beyond the total that the
admin gives back on its own. Given back through the provider, that charge had nothing left, and
the return's refund was refused for ever ("more than what is left of the payment")."""

from __future__ import annotations

from decimal import Decimal

from discount_deals.services.payments import get_provider

from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.accounts import auth_headers
from ..builders.payments import minor, paid_by_the_first_after_a_second, payments_of, post_webhook
from ..builders.shop import add_address
from ..builders.returns import ask_return, deliver, return_row, returned_and_received, step


def refunds_by_charge(order_id: str) -> dict[str, list[dict]]:
    """What the (fake) provider gave back of each of the order's charges."""
    return {payment.reference: (payment.provider_data.get("fake") or {}).get("refunds", [])
            for payment in payments_of(order_id)}


def paid_twice(client, customer, product, quantity: int = 1) -> tuple[dict, str, str]:
    order, paying, second = paid_by_the_first_after_a_second(client, customer, product, quantity)
    assert post_webhook(client, "charge.success", second, minor(order["total"])).json()["outcome"] == "paid"
    return order, paying, second


def duplicate_given_back(client, admin_headers, order_id: str) -> None:
    settled = client.post(f"/api/admin/orders/{order_id}/refunded/", json={}, headers=admin_headers)
    assert settled.status_code == 200, settled.text
    assert order_row(order_id).attention is None


def test_a_returns_refund_goes_to_the_charge_that_paid(client, customer, make_product, admin_headers):
    product = make_product(price="10.00", stock=10)
    order, paying, second = paid_twice(client, customer, product, quantity=2)
    placed = order_row(order["id"])
    assert (placed.payment_reference, placed.attention) == (paying, "refund_due") and second in placed.attention_note
    duplicate_given_back(client, admin_headers, order["id"])
    deliver(client, order["id"], admin_headers)

    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    body = step(client, admin_headers, ret["id"], "refund")
    row = return_row(ret["id"])
    assert body["status"] == "refunded" and row.credit_note_number
    given = refunds_by_charge(order["id"])
    assert given[paying] == [{"id": row.refund_reference, "amount": minor(f"{row.refund_amount:.2f}")}]
    assert given[second] == []
    after = order_row(order["id"])
    assert (after.refunded_total, after.payment_status) == (row.refund_amount, "paid")


def test_a_duplicate_given_back_through_the_provider_leaves_the_return_refundable(client, customer, make_product,
                                                                                  admin_headers):
    product = make_product(price="10.00", stock=10)
    order, paying, second = paid_twice(client, customer, product, quantity=2)
    # The admin gives the second payment back whole at the provider, then records it.
    assert get_provider().refund(second, minor(order["total"])).status == "success"
    duplicate_given_back(client, admin_headers, order["id"])
    deliver(client, order["id"], admin_headers)

    ret = ask_return(client, customer, order["id"], [(product.id, 2)])
    returned_and_received(client, admin_headers, ret["id"])
    answer = client.post(f"/api/admin/returns/{ret['id']}/refund/", headers=admin_headers)
    assert answer.status_code == 200, answer.text  # 502: "more than what is left of the payment"
    row = return_row(ret["id"])
    assert (row.status, row.refund_amount) == ("refunded", Decimal(order["total"]))
    assert refunds_by_charge(order["id"])[paying] == [{"id": row.refund_reference, "amount": minor(order["total"])}]
    after = order_row(order["id"])
    assert (after.refunded_total, after.payment_status) == (Decimal(order["total"]), "refunded")


def test_a_cancelled_orders_refund_goes_to_the_charge_that_paid(client, customer, make_product, admin_headers):
    product = make_product(price="10.00", stock=10)
    order, paying, second = paid_by_the_first_after_a_second(client, customer, product)
    cancelled = client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer))
    assert cancelled.status_code == 200, cancelled.text
    post_webhook(client, "charge.success", second, minor(order["total"]))  # approved too: paid twice
    assert order_row(order["id"]).payment_reference == paying
    refunded = client.post(f"/api/admin/orders/{order['id']}/refunded/", json={}, headers=admin_headers)
    assert refunded.status_code == 200, refunded.text
    given = refunds_by_charge(order["id"])
    assert [item["amount"] for item in given[paying]] == [minor(order["total"])] and given[second] == []
    after = order_row(order["id"])
    assert (after.refunded_total, after.payment_status) == (Decimal(order["total"]), "refunded")
    # The second charge is still owed back, and the flag says so.
    assert after.attention == "refund_due" and "More money came than its total" in after.attention_note


def test_an_order_paid_after_it_was_cancelled_is_refunded_to_the_charge_that_came(client, customer, make_product,
                                                                                   admin_headers):
    # The order keeps its last charge's reference, and that one never came: the refund goes to the one that did.
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price="7.00", stock=10), 1))
    order = place(client, auth_headers(customer), MOMO)
    late = order["payment_reference"]
    post_webhook(client, "charge.failed", late, minor(order["total"]))
    current = client.post(f"/api/orders/{order['id']}/pay/", json={}, headers=auth_headers(customer))
    assert current.status_code == 200, current.text
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    post_webhook(client, "charge.success", late, minor(order["total"]))  # the declined charge came after all
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.payment_reference) == (
        "paid", "refund_due", current.json()["payment_reference"])
    refunded = client.post(f"/api/admin/orders/{order['id']}/refunded/", json={}, headers=admin_headers)
    assert refunded.status_code == 200, refunded.text
    given = refunds_by_charge(order["id"])
    assert [item["amount"] for item in given[late]] == [minor(order["total"])]
    assert given[row.payment_reference] == []
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("refunded", None)
