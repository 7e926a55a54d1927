"""An admin acts on an order as their page showed it (services.orders.seen): a payment that came in
after the page was loaded, or a flag raised since, refuses the action (409 ``changed``, nothing
written) rather than cancel an order its customer has just paid. Without a snapshot (the original
client's ``PATCH /orders/{id}/``) the status change works as before."""

from __future__ import annotations

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import Conflict, ErrorCode, returns
from discount_deals.services.orders import status as lifecycle
from discount_deals.services.orders.seen import SeenOrder

from ..builders.catalog import stock_of
from ..builders.checkout import MOMO, events, fill_cart, order_row, place
from ..builders.payments import minor, post_webhook

CHANGED_TEXT = "The order was changed meanwhile. Reload it and try again."


def momo_order(client, headers, product) -> dict:
    fill_cart(client, headers, (product, 2))
    return place(client, headers, MOMO)


def shown(client, admin_headers, order_id) -> dict:
    """The order as the back office's page loads it: what a status change sends back."""
    body = client.get(f"/api/admin/orders/{order_id}/", headers=admin_headers).json()
    return {"status": body["status"], "payment_status": body["payment_status"], "attention": body["attention"]}


def patch(client, headers, order_id, status, seen=None):
    body = {"status": status} if seen is None else {"status": status, "seen": seen}
    return client.patch(f"/api/orders/{order_id}/", json=body, headers=headers)


def pay(client, order) -> None:
    response = post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert response.status_code == 200, response.text


def test_a_payment_that_came_in_after_the_page_was_loaded_refuses_the_cancel(
    client, shopper_headers, admin_headers, make_product
):
    product = make_product(stock=5)
    order = momo_order(client, shopper_headers, product)
    seen = shown(client, admin_headers, order["id"])
    assert seen == {"status": "pending", "payment_status": "awaiting_payment", "attention": None}
    pay(client, order)  # the customer's MoMo payment comes in while the page still says "Awaiting payment"

    response = patch(client, admin_headers, order["id"], "cancelled", seen)
    assert response.status_code == 409, response.text
    assert response.json() == {"detail": CHANGED_TEXT, "code": "changed"}
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("pending", "paid", None)
    assert stock_of(product.id) == 3  # nothing went back
    assert [event.to_value for event in events(order["id"], "status")] == ["pending"]


def test_the_page_as_it_stands_cancels(client, shopper_headers, admin_headers, make_product):
    product = make_product(stock=5)
    order = momo_order(client, shopper_headers, product)
    response = patch(client, admin_headers, order["id"], "cancelled", shown(client, admin_headers, order["id"]))
    assert response.status_code == 200, response.text
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("cancelled", "failed", None)
    assert stock_of(product.id) == 5


def test_a_page_reloaded_after_the_payment_cancels_with_a_refund_due(
    client, shopper_headers, admin_headers, make_product
):
    product = make_product(stock=5)
    order = momo_order(client, shopper_headers, product)
    pay(client, order)
    response = patch(client, admin_headers, order["id"], "cancelled", shown(client, admin_headers, order["id"]))
    assert response.status_code == 200, response.text
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("cancelled", "paid", "refund_due")


def test_the_original_client_sends_no_snapshot_and_is_not_checked(
    client, shopper_headers, admin_headers, make_product
):
    product = make_product(stock=5)
    order = momo_order(client, shopper_headers, product)
    pay(client, order)
    response = patch(client, admin_headers, order["id"], "processing")
    assert response.status_code == 200, response.text
    assert order_row(order["id"]).status == "processing"


def set_flag(order_id: str, code: str | None, note: str = "") -> None:
    with session_scope() as session:
        lifecycle.flag(session, session.get(models.Order, order_id), code, note)


def test_a_flag_cleared_meanwhile_does_not_refuse(client, shopper_headers, admin_headers, make_product):
    order = momo_order(client, shopper_headers, make_product(stock=5))
    pay(client, order)
    set_flag(order["id"], "amount_mismatch", "Paid twice?")
    flagged = shown(client, admin_headers, order["id"])
    set_flag(order["id"], None)  # another admin resolved it: the order asks less than the page said
    response = patch(client, admin_headers, order["id"], "processing", flagged)
    assert response.status_code == 200, response.text
    assert order_row(order["id"]).status == "processing"


def test_a_flag_raised_meanwhile_refuses(client, shopper_headers, admin_headers, make_product):
    order = momo_order(client, shopper_headers, make_product(stock=5))
    pay(client, order)
    seen = shown(client, admin_headers, order["id"])
    set_flag(order["id"], "amount_mismatch", "A second payment of another amount came in.")
    refused = patch(client, admin_headers, order["id"], "cancelled", seen)
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "changed"
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("pending", "paid", "amount_mismatch")


def test_a_bad_snapshot_is_a_400_that_changes_nothing(client, shopper_headers, admin_headers, make_product):
    order = momo_order(client, shopper_headers, make_product(stock=5))
    response = patch(client, admin_headers, order["id"], "cancelled", {"status": "pending"})
    assert response.status_code == 400, response.text
    assert order_row(order["id"]).status == "pending"


def test_a_refund_pressed_on_a_page_the_payment_moved_since_is_refused(
    client, shopper_headers, admin, admin_headers, make_product
):
    """The page offered "Refund GH₵…" (the provider sends it back); the payment was refunded
    meanwhile: the press records no refund of its own."""
    order = momo_order(client, shopper_headers, make_product(stock=5))
    pay(client, order)
    assert patch(client, admin_headers, order["id"], "cancelled").status_code == 200
    with session_scope() as session:
        seen = SeenOrder.of(session.get(models.Order, order["id"]))
        lifecycle.set_payment_status(session, session.get(models.Order, order["id"]), "refunded",
                                     note="Refunded from the provider's dashboard")
    with pytest.raises(Conflict) as refused:
        returns.settle_refund_due(admin, order["id"], seen)
    assert refused.value.code == ErrorCode.CHANGED
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.refunded_total) == ("refunded", "refund_due", 0)
    with session_scope() as session:
        assert session.exec(select(models.ReturnRequest).where(models.ReturnRequest.order_id == row.id)).all() == []


def test_the_refund_endpoint_takes_what_the_page_showed_too(client, shopper_headers, admin_headers, make_product):
    """POST /admin/orders/{id}/refunded/ with ``seen``: refused once the payment moved since; without
    a body it settles as before."""
    order = momo_order(client, shopper_headers, make_product(stock=5))
    pay(client, order)
    assert patch(client, admin_headers, order["id"], "cancelled").status_code == 200
    before = shown(client, admin_headers, order["id"])
    with session_scope() as session:
        lifecycle.set_payment_status(session, session.get(models.Order, order["id"]), "refunded",
                                     note="Refunded from the provider's dashboard")
    refused = client.post(f"/api/admin/orders/{order['id']}/refunded/", json={"seen": before}, headers=admin_headers)
    assert (refused.status_code, refused.json()) == (409, {"detail": CHANGED_TEXT, "code": "changed"})
    assert order_row(order["id"]).attention == "refund_due"
    assert client.post(f"/api/admin/orders/{order['id']}/refunded/", headers=admin_headers).status_code == 200
    assert order_row(order["id"]).attention is None
