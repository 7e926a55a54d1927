"""A mobile-money refund the provider will not make is paid back in cash instead
(``POST /api/admin/returns/{id}/refund/ {"method": "cash"}``, services/returns/sending.refund_return).

Found by a probe: a refund to a wallet that takes no refunds (the fake provider's 024 123 9999)
was refused at every press, the body {"method": "cash"} was ignored and the return could not be
rejected: its items were back in stock and no refund could ever be recorded."""

from __future__ import annotations

from decimal import Decimal


from discount_deals.services import returns

from ..builders.accounts import auth_headers
from ..builders.catalog import stock_of
from ..builders.checkout import order_row
from ..builders.payments import payments_of, post_refund_webhook
from ..builders.returns import (
    ask_return, audit_actions, delivered_order, messages_of, momo_order, return_row, returned_and_received, step,
)

REFUSING = "024 123 9999"  # the fake provider refuses refunds to it


def cash(client, admin_headers, return_id: str, expect: int = 200, method="cash") -> dict:
    return step(client, admin_headers, return_id, "refund", expect=expect, method=method)


def refused_return(client, customer, admin_headers, product, units: int = 1) -> tuple[dict, dict]:
    """A return of ``units`` of a two-unit order paid from a number the provider refunds nothing
    to, received, its mobile-money refund refused."""
    order = momo_order(client, customer, admin_headers, (product, 2), phone=REFUSING)
    ret = ask_return(client, customer, order["id"], [(product.id, units)])
    returned_and_received(client, admin_headers, ret["id"])
    refused = step(client, admin_headers, ret["id"], "refund", expect=502)
    assert refused["code"] == returns.REFUND_FAILED and "cannot receive refunds" in refused["detail"]
    return order, ret


def test_a_refund_the_provider_refuses_for_good_is_paid_in_cash(client, customer, admin, make_product,
                                                                admin_headers):
    product = make_product(price="10.00", stock=10)
    order, ret = refused_return(client, customer, admin_headers, product)
    stock = stock_of(product.id)

    body = cash(client, admin_headers, ret["id"])
    assert (body["status"], body["refund_method"], body["refund_state"]) == ("refunded", "cash", "done")
    row = return_row(ret["id"])
    assert row.credit_note_number and row.refund_amount == Decimal("10.80") and row.refunded_by_id == admin.id
    assert (row.refund_reference, row.refund_provider_status) == (None, "")
    note = client.get(f"/api/returns/{ret['id']}/credit-note/", headers=auth_headers(customer)).json()
    assert (note["refund"]["method"], note["refund"]["reference"], note["total"]) == ("cash", None, "10.80")
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.payment_status) == (Decimal("10.80"), "paid")
    assert stock_of(product.id) == stock  # the items came back once, when received
    (payment,) = payments_of(order["id"])
    assert payment.provider_data["fake"].get("refunds", []) == []  # the provider moved nothing
    actions = audit_actions(ret["id"])
    switch = next(event for event in actions if event.action == "return.refund_in_cash")
    assert switch.actor_id == admin.id and switch.changes["refund_method"] == ["mobile_money", "cash"]
    assert "cannot receive refunds" in switch.changes["refund_provider_status"][0]
    assert [event.action for event in actions][-2:] == ["return.refund_in_cash", "return.refund"]
    (told,) = messages_of("return_refunded", order["id"])  # not "to your MTN number": it was paid in cash
    assert "to you in cash" in told.body_text and "number" not in told.body_text, told.body_text
    again = cash(client, admin_headers, ret["id"], expect=409)  # refunded: nothing more to pay
    assert again == {"detail": "This return is refunded: it cannot be refunded now.", "code": returns.WRONG_STATUS}
    assert order_row(order["id"]).refunded_total == Decimal("10.80")


def test_the_whole_order_paid_in_cash_is_refunded(client, customer, make_product, admin_headers):
    product = make_product(price="10.00", stock=10)
    order, ret = refused_return(client, customer, admin_headers, product, units=2)
    cash(client, admin_headers, ret["id"])
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.payment_status) == (placed.total, "refunded")
    assert return_row(ret["id"]).refund_amount == placed.total


def test_cash_is_only_for_a_mobile_money_refund_that_failed(client, customer, make_product, admin_headers):
    product = make_product(price="10.00", stock=10)
    paid_in_cash = delivered_order(client, customer, admin_headers, (product, 2))
    by_cash = ask_return(client, customer, paid_in_cash["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, by_cash["id"])
    assert cash(client, admin_headers, by_cash["id"], expect=409)["code"] == returns.WRONG_STATUS

    momo = momo_order(client, customer, admin_headers, (product, 2))
    untried = ask_return(client, customer, momo["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, untried["id"])
    refused = cash(client, admin_headers, untried["id"], expect=409)  # never tried: it goes by mobile money
    assert refused["code"] == returns.WRONG_STATUS and "did not go through" in refused["detail"]
    for untouched in (by_cash, untried):
        row = return_row(untouched["id"])
        assert (row.status, row.refund_state, row.credit_note_number) == ("received", "", None)

    failing = momo_order(client, customer, admin_headers, (product, 2), phone=REFUSING)
    asked = ask_return(client, customer, failing["id"], [(product.id, 1)])
    assert cash(client, admin_headers, asked["id"], expect=409)["code"] == returns.WRONG_STATUS  # not received
    step(client, admin_headers, asked["id"], "approve")
    assert cash(client, admin_headers, asked["id"], expect=409)["code"] == returns.WRONG_STATUS
    assert return_row(asked["id"]).status == "approved"

    wrong = cash(client, admin_headers, untried["id"], expect=400, method="cheque")
    assert wrong["code"] == "payment_method_invalid" and "method" in wrong
    assert order_row(momo["id"]).refunded_total == Decimal("0.00")



def test_never_while_the_refund_is_with_the_provider(client, customer, make_product, admin_headers, paystack):
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    assert step(client, admin_headers, ret["id"], "refund")["refund_state"] == "pending"
    waiting = cash(client, admin_headers, ret["id"], expect=409)  # it may still go through
    assert waiting["code"] == returns.REFUND_IN_PROGRESS
    row = return_row(ret["id"])
    assert (row.status, row.refund_state, row.refund_method, row.credit_note_number) == (
        "received", "pending", "mobile_money", None)
    assert len(paystack.calls("/refund")) == 1

    failed = post_refund_webhook(client, "refund.failed", order["payment_reference"], row.refund_reference, 2160,
                                 secret=paystack.secret_key)
    assert failed.json()["outcome"] == "refund_failed"
    body = cash(client, admin_headers, ret["id"])
    assert (body["status"], body["refund_method"], body["refund_amount"]) == ("refunded", "cash", "21.60")
    assert order_row(order["id"]).refunded_total == Decimal("21.60")
    assert len(paystack.calls("/refund")) == 1  # Paystack was not asked again


def test_a_refund_the_provider_makes_after_it_was_paid_in_cash_flags_the_order(client, customer, make_product,
                                                                             admin_headers, paystack):
    """Found by a review: Paystack reported the refund failed, the admin paid it in cash, then
    Paystack made the refund after all; its webhook was ignored and nobody heard of the customer
    being refunded twice. Nothing more is booked (one credit note); the order is flagged."""
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    assert step(client, admin_headers, ret["id"], "refund")["refund_state"] == "pending"
    refund_id = return_row(ret["id"]).refund_reference
    failed = post_refund_webhook(client, "refund.failed", order["payment_reference"], refund_id, 2160,
                                 secret=paystack.secret_key)
    assert failed.json()["outcome"] == "refund_failed"
    assert cash(client, admin_headers, ret["id"])["refund_method"] == "cash"
    note = client.get(f"/api/returns/{ret['id']}/credit-note/", headers=auth_headers(customer)).json()
    assert (note["refund"]["method"], note["refund"]["reference"]) == ("cash", None)
    late = post_refund_webhook(client, "refund.processed", order["payment_reference"], refund_id, 2160,
                               secret=paystack.secret_key)
    assert late.status_code == 200 and late.json()["outcome"] == "ignored"
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.attention) == (Decimal("21.60"), "refunded_twice")
    assert refund_id in placed.attention_note and "refunded twice" in placed.attention_note
    again = post_refund_webhook(client, "refund.processed", order["payment_reference"], refund_id, 2160,
                                secret=paystack.secret_key)  # sent again: one flag
    assert again.status_code == 200 and order_row(order["id"]).attention_note == placed.attention_note
