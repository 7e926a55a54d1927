"""After an order is placed: the customer's cancel, admin status changes with their history,
the admin order list and its filters, and the pickup stores' admin API."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta


from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, add_store, events, fill_cart, order_row, place
from ..builders.payments import minor, post_webhook
from ..builders.shop import add_address
from ..builders.catalog import stock_of
from ..support.concurrency import at_once


def cash_order(client, headers, product, quantity=2, **body):
    fill_cart(client, headers, (product, quantity))
    return place(client, headers, body)


def patch_status(client, headers, order_id, status):
    return client.patch(f"/api/orders/{order_id}/", json={"status": status}, headers=headers)


# --- the customer's cancel --------------------------------------------------------------------------


def test_cancel_returns_the_stock_once_and_twice_is_a_409(client, shopper, shopper_headers, make_product):
    product = make_product(stock=5)
    order = cash_order(client, shopper_headers, product, 3)
    assert stock_of(product.id) == 2
    response = client.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "cancelled"
    assert body["can_cancel"] is False
    assert [(h["kind"], h["to"]) for h in body["history"]] == [("status", "pending"), ("status", "cancelled")]
    assert stock_of(product.id) == 5
    assert events(order["id"], "status")[-1].actor_id == shopper.id

    again = client.post(f"/api/orders/{order['id']}/cancel", headers=shopper_headers)
    assert again.status_code == 409
    assert again.json()["detail"] == "This order is already cancelled."
    assert stock_of(product.id) == 5
    assert len(events(order["id"], "status")) == 2


def test_others_cannot_cancel_an_order(client, shopper_headers, make_user, admin_headers, make_product):
    product = make_product(stock=5)
    order = cash_order(client, shopper_headers, product, 1)
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(make_user())).status_code == 404
    # Admins cancel through the back office, not as if they were the customer.
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=admin_headers).status_code == 404
    assert client.post(f"/api/orders/{order['id']}/cancel/").status_code == 401
    assert client.post("/api/orders/no-such-order/cancel/", headers=shopper_headers).status_code == 404
    assert order_row(order["id"]).status == "pending"
    assert stock_of(product.id) == 4


def test_an_order_being_prepared_cannot_be_cancelled_by_the_customer(
    client, shopper_headers, admin_headers, make_product
):
    product = make_product(stock=5)
    order = cash_order(client, shopper_headers, product, 1)
    assert patch_status(client, admin_headers, order["id"], "processing").status_code == 200
    response = client.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers)
    assert response.status_code == 409
    assert response.json()["detail"] == "This order is being prepared and can no longer be cancelled."
    assert stock_of(product.id) == 4


def test_cancelling_an_unpaid_mobile_money_order(client, shopper_headers, make_product):
    product = make_product(stock=5)
    fill_cart(client, shopper_headers, (product, 2))
    order = place(client, shopper_headers, MOMO)
    body = client.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers).json()
    assert (body["status"], body["payment_status"], body["payment_url"]) == ("cancelled", "failed", None)
    assert stock_of(product.id) == 5
    # Its payment page can no longer take money without an admin hearing of it.
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert order_row(order["id"]).attention == "refund_due"


def test_cancelling_a_paid_order_asks_an_admin_to_refund(client, shopper_headers, admin_headers, make_product):
    product = make_product(stock=5)
    fill_cart(client, shopper_headers, (product, 1))
    order = place(client, shopper_headers, MOMO)
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    body = client.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers).json()
    assert (body["status"], body["payment_status"]) == ("cancelled", "paid")
    row = order_row(order["id"])
    assert row.attention == "refund_due"
    admin_view = client.get(f"/api/admin/orders/{order['id']}/", headers=admin_headers).json()
    assert admin_view["attention"] == "refund_due"
    assert admin_view["next_statuses"] == []


def test_two_cancels_at_once_restock_once(api_app, client, shopper, shopper_headers, make_product):
    product = make_product(stock=6)
    order = cash_order(client, shopper_headers, product, 4)
    def cancel(own, _n) -> int:
        return own.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers).status_code

    codes = at_once(api_app, cancel, range(4), timeout=60)
    assert Counter(codes) == {200: 1, 409: 3}
    assert stock_of(product.id) == 6


# --- admin status changes ------------------------------------------------------------------------------


def test_a_delivery_order_moves_to_delivered_with_its_history(client, shopper_headers, admin, admin_headers,
                                                             make_product):
    product = make_product(stock=5)
    order = cash_order(client, shopper_headers, product, 1)
    for status in ("processing", "shipped", "delivered"):
        response = patch_status(client, admin_headers, order["id"], status)
        assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "delivered"
    assert body["payment_status"] == "paid"  # the cash was collected on delivery
    assert body["next_statuses"] == []
    history = [(h["kind"], h["to"], h["by"]) for h in body["history"]]
    assert history[1:] == [
        ("status", "processing", admin.email),
        ("status", "shipped", admin.email),
        ("status", "delivered", admin.email),
        ("payment", "paid", admin.email),
    ]
    assert all(h["created_at"] for h in body["history"])
    # The customer sees the timeline without the admin's address.
    mine = client.get(f"/api/orders/{order['id']}/", headers=shopper_headers).json()
    assert [h["to"] for h in mine["history"]] == ["pending", "processing", "shipped", "delivered", "paid"]
    assert "by" not in mine["history"][1]
    assert stock_of(product.id) == 4


def test_a_pickup_order_is_made_ready_for_pickup_not_shipped(client, shopper_headers, admin_headers, make_product):
    store = add_store()
    order = cash_order(client, shopper_headers, make_product(stock=5), 1, delivery_method="pickup",
                       pickup_store=store.id)
    assert patch_status(client, admin_headers, order["id"], "processing").json()["next_statuses"] == [
        "ready_for_pickup", "cancelled"]
    refused = patch_status(client, admin_headers, order["id"], "shipped")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "A pickup order is not shipped: mark it ready for pickup."
    assert patch_status(client, admin_headers, order["id"], "ready_for_pickup").status_code == 200
    assert patch_status(client, admin_headers, order["id"], "delivered").json()["status"] == "delivered"


def test_an_unpaid_mobile_money_order_is_not_processed(client, shopper_headers, admin_headers, make_product):
    fill_cart(client, shopper_headers, (make_product(stock=5), 1))
    order = place(client, shopper_headers, MOMO)
    refused = patch_status(client, admin_headers, order["id"], "processing")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "This order has not been paid yet."
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert patch_status(client, admin_headers, order["id"], "processing").status_code == 200


def test_an_admin_cancel_from_processing_returns_stock(client, shopper_headers, admin, admin_headers, make_product):
    product = make_product(stock=5)
    order = cash_order(client, shopper_headers, product, 2)
    patch_status(client, admin_headers, order["id"], "processing")
    body = patch_status(client, admin_headers, order["id"], "cancelled").json()
    assert body["status"] == "cancelled"
    assert stock_of(product.id) == 5
    assert body["history"][-1]["by"] == admin.email
    assert patch_status(client, admin_headers, order["id"], "cancelled").status_code == 400
    assert stock_of(product.id) == 5


def test_an_unknown_status_is_a_400(client, shopper_headers, admin_headers, make_product):
    order = cash_order(client, shopper_headers, make_product(stock=5), 1)
    for status in ("lost", "", "COMPLETED", 3):
        response = client.patch(f"/api/orders/{order['id']}/", json={"status": status}, headers=admin_headers)
        assert response.status_code == 400, (status, response.text)
    assert order_row(order["id"]).status == "pending"


# --- the admin list ------------------------------------------------------------------------------------


def test_the_admin_list_filters_and_searches(client, make_user, admin_headers, make_product):
    product = make_product(stock=100)
    ama = make_user(email="ama.mensah@example.com")
    kofi = make_user(email="kofi@example.com")
    for user in (ama, kofi):
        add_address(user, is_default=True)
    store = add_store()
    first = cash_order(client, auth_headers(ama), product, 1)
    pickup = cash_order(client, auth_headers(kofi), product, 1, delivery_method="pickup", pickup_store=store.id)
    fill_cart(client, auth_headers(kofi), (product, 1))
    momo = place(client, auth_headers(kofi), MOMO)
    patch_status(client, admin_headers, first["id"], "processing")

    def ids(**params):
        response = client.get("/api/admin/orders/", params=params, headers=admin_headers)
        assert response.status_code == 200, response.text
        return [order["id"] for order in response.json()["results"]]

    assert ids() == [momo["id"], pickup["id"], first["id"]]  # newest first
    assert ids(status="processing") == [first["id"]]
    assert ids(payment_status="awaiting_payment") == [momo["id"]]
    assert ids(delivery_method="pickup") == [pickup["id"]]
    assert ids(search="ama.mensah") == [first["id"]]
    assert ids(search="KOFI@") == [momo["id"], pickup["id"]]
    assert ids(search=first["id"][:8]) == [first["id"]]
    assert ids(search="#" + first["id"][:6]) == [first["id"]]
    assert ids(search="100%_") == []
    today = datetime.now(UTC).date()
    assert len(ids(date_from=today.isoformat(), date_to=today.isoformat())) == 3
    assert ids(date_from=(today + timedelta(days=1)).isoformat()) == []
    assert ids(date_to=(today - timedelta(days=1)).isoformat()) == []
    listed = client.get("/api/admin/orders/", headers=admin_headers).json()["results"][0]
    assert listed["customer"]["email"] == "kofi@example.com"
    bad = client.get("/api/admin/orders/", params={"date_from": "yesterday"}, headers=admin_headers)
    assert bad.status_code == 400
    # A value none of a filter's choices found nothing ("PENDING") or, for attention, everything ("yes").
    for params in ({"status": "PENDING"}, {"payment_status": "nope"}, {"delivery_method": "x"}, {"attention": "yes"}):
        refused = client.get("/api/admin/orders/", params=params, headers=admin_headers)
        assert refused.status_code == 400 and set(refused.json()) >= {"detail", *params}, refused.text
    assert len(ids(attention="false")) == 3 and ids(attention="true") == []
    # a range that ends before it starts is refused, as the orders export refuses it (it read as "no orders")
    days = {"date_from": today.isoformat(), "date_to": (today - timedelta(days=1)).isoformat()}
    for path in ("/api/admin/orders/", "/api/admin/exports/orders.csv"):
        reversed_range = client.get(path, params=days, headers=admin_headers)
        assert reversed_range.status_code == 400
        assert reversed_range.json()["date_to"] == ["The end date must not be before the start date."]


def test_the_admin_list_is_for_admins(client, shopper_headers):
    assert client.get("/api/admin/orders/").status_code == 401
    assert client.get("/api/admin/orders/", headers=shopper_headers).status_code == 403
    assert client.post("/api/admin/orders/x/refunded/", headers=shopper_headers).status_code == 403


# --- pickup stores ----------------------------------------------------------------------------------------


def test_admins_edit_pickup_stores(client, admin_headers, shopper_headers, make_product):
    created = client.post("/api/pickup-stores/", json={
        "name": "Melcom Tema", "retailer": "melcom", "address": "Community 1, Tema", "city": "Tema",
        "opening_hours": "Mon-Sat 8:30-20:00"}, headers=admin_headers)
    assert created.status_code == 201, created.text
    store = created.json()
    assert store["is_active"] is True
    assert [s["name"] for s in client.get("/api/pickup-stores/").json()["results"]] == ["Melcom Tema"]

    duplicate = client.post("/api/pickup-stores/", json={"name": "melcom tema", "address": "x", "city": "y"},
                            headers=admin_headers)
    assert duplicate.status_code == 400
    accented = client.post("/api/pickup-stores/", json={"name": "Melcom Élan", "address": "x", "city": "y"},
                           headers=admin_headers)
    assert accented.status_code == 201, accented.text
    # SQLite's lower() lowers A-Z only: "MELCOM ÉLAN" was a second store beside "Melcom Élan".
    assert client.post("/api/pickup-stores/", json={"name": "MELCOM ÉLAN", "address": "x", "city": "y"},
                       headers=admin_headers).status_code == 400
    client.delete(f"/api/pickup-stores/{accented.json()['id']}/", headers=admin_headers)
    missing = client.post("/api/pickup-stores/", json={"name": "No address"}, headers=admin_headers)
    assert missing.status_code == 400 and set(missing.json()) >= {"address", "city"}
    assert client.post("/api/pickup-stores/", json={"name": "x", "address": "y", "city": "z"},
                       headers=shopper_headers).status_code == 403

    hidden = client.patch(f"/api/pickup-stores/{store['id']}/", json={"is_active": False}, headers=admin_headers)
    assert hidden.json()["is_active"] is False
    assert client.get("/api/pickup-stores/").json()["results"] == []
    assert client.get("/api/checkout/options/").json()["pickup_stores"] == []
    everything = client.get("/api/pickup-stores/", params={"all": "1"}, headers=admin_headers).json()
    assert [s["id"] for s in everything["results"]] == [store["id"]]
    assert client.get("/api/pickup-stores/", params={"all": "1"}, headers=shopper_headers).status_code == 403

    client.patch(f"/api/pickup-stores/{store['id']}/", json={"is_active": True}, headers=admin_headers)
    order = cash_order(client, shopper_headers, make_product(stock=2), 1, delivery_method="pickup",
                       pickup_store=store["id"])
    renamed = client.patch(f"/api/pickup-stores/{store['id']}/", json={"name": "Melcom Tema Community 1"},
                           headers=admin_headers)
    assert renamed.json()["name"] == "Melcom Tema Community 1"
    # The order keeps the store as it was; a store with orders is hidden, never deleted.
    assert order_row(order["id"]).pickup_store["name"] == "Melcom Tema"
    assert client.delete(f"/api/pickup-stores/{store['id']}/", headers=admin_headers).status_code == 409
    unused = add_store("Unused store")
    assert client.delete(f"/api/pickup-stores/{unused.id}/", headers=admin_headers).status_code == 204
    with session_scope() as session:
        assert session.get(models.PickupStore, unused.id) is None
