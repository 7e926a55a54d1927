"""A customer withdraws their own return request (kept the items, or asked by mistake) while
nothing has moved: requested or approved, not yet received. Before, there was no way: an admin
had to reject it, and the customer was told "not approved"."""

from __future__ import annotations

from discount_deals.models import ReturnStatus

from ..builders.accounts import auth_headers
from ..builders.catalog import stock_of
from ..builders.returns import ask_return, audit_actions, delivered_order, messages_of, return_row, step

WITHDRAW = "/api/returns/{}/withdraw/"


def test_a_customer_withdraws_a_request_and_may_ask_again(client, messaging, customer, make_user, make_product,
                                                           admin_headers):
    product = make_product(price="10.00", stock=10)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 2)])
    told = len(messages_of("return_requested", order["id"]))
    stranger = make_user()
    assert client.post(WITHDRAW.format(ret["id"]), headers=auth_headers(stranger)).status_code == 404
    assert client.post(WITHDRAW.format(ret["id"]), headers=admin_headers).status_code == 404  # the customer's step
    assert client.post(WITHDRAW.format(ret["id"])).status_code == 401
    answer = client.post(WITHDRAW.format(ret["id"]), headers=auth_headers(customer))
    assert answer.status_code == 200, answer.text
    assert (answer.json()["status"], answer.json()["status_label"]) == ("withdrawn", "Withdrawn")
    assert return_row(ret["id"]).status == ReturnStatus.WITHDRAWN.value
    assert [event.action for event in audit_actions(ret["id"])][-1] == "return.withdraw"
    assert len(messages_of("return_requested", order["id"])) == told  # nobody is messaged
    again = client.post(WITHDRAW.format(ret["id"]), headers=auth_headers(customer))
    assert again.status_code == 409 and again.json()["code"] == "return_status"
    assert step(client, admin_headers, ret["id"], "approve", expect=409)["code"] == "return_status"
    asked_again = ask_return(client, customer, order["id"], [(product.id, 2)])  # its items may go back again
    assert asked_again["status"] == "requested"


def test_an_approved_return_may_be_withdrawn_a_received_one_not(client, customer, make_product, admin_headers):
    product = make_product(price="10.00", stock=10)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    first = ask_return(client, customer, order["id"], [(product.id, 1)])
    step(client, admin_headers, first["id"], "approve")
    assert client.post(WITHDRAW.format(first["id"]), headers=auth_headers(customer)).json()["status"] == "withdrawn"
    second = ask_return(client, customer, order["id"], [(product.id, 1)])
    step(client, admin_headers, second["id"], "approve")
    stock = stock_of(product.id)
    step(client, admin_headers, second["id"], "receive")
    refused = client.post(WITHDRAW.format(second["id"]), headers=auth_headers(customer))
    assert refused.status_code == 409 and refused.json()["code"] == "return_status"
    assert return_row(second["id"]).status == "received" and stock_of(product.id) == stock + 1
