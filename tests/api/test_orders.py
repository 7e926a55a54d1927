"""Orders over HTTP: explicit orders, the caller's list and details, admin status changes."""

from __future__ import annotations

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.shop import add_address, cart_quantities
from ..builders.rows import count_rows
from ..builders.catalog import stock_of

ORDERS = "/api/orders/"


def place(client, headers, *lines, expect=201):
    body = {"order": {"items": [{"product": product.id, "quantity": quantity} for product, quantity in lines]}}
    response = client.post("/api/orders", json=body, headers=headers)
    assert response.status_code == expect, response.text
    return response.json()


def test_order_endpoints_need_a_login(client):
    for method, path in (("GET", ORDERS), ("POST", ORDERS), ("GET", f"{ORDERS}x/"), ("PATCH", f"{ORDERS}x/")):
        assert client.request(method, path, json={}).status_code == 401, (method, path)


def test_an_explicit_order_takes_stock_and_leaves_the_cart_alone(client, shopper, shopper_headers, make_product):
    in_cart = make_product(stock=4)
    client.post("/api/cart/cartitems/", json={"product": in_cart.id, "quantity": 1}, headers=shopper_headers)
    lamp = make_product(name="Lamp", price="20.00", discount_price="17.50", stock=6)
    fan = make_product(name="Fan", price="9.99", stock=2)
    order = place(client, shopper_headers, (lamp, 1), (fan, 2), (lamp, 1))  # lamp twice: merged
    # 2 × 17.50 + 2 × 9.99 = 54.98; free shipping; tax 4.3984 → 4.40; total 59.38.
    assert (order["subtotal"], order["shipping"], order["tax"], order["total"]) == ("54.98", "0.00", "4.40", "59.38")
    assert order["item_count"] == 4
    assert sorted((item["name"], item["quantity"]) for item in order["items"]) == [("Fan", 2), ("Lamp", 2)]
    assert stock_of(lamp.id) == 4
    assert stock_of(fan.id) == 0
    assert cart_quantities(shopper) == {in_cart.id: 1}


def test_an_explicit_order_takes_a_product_id_written_in_capitals_as_the_cart_does(client, shopper_headers,
                                                                                     make_product):
    lamp = make_product(name="Lamp", stock=6)
    body = {"order": {"items": [{"product": lamp.id.upper(), "quantity": 1}, {"product": lamp.id, "quantity": 1}]}}
    answer = client.post(ORDERS, json=body, headers=shopper_headers)
    assert answer.status_code == 201, answer.text  # was 400 "Product 8DE1… not found."
    assert [(item["product"]["id"], item["quantity"]) for item in answer.json()["items"]] == [(lamp.id, 2)]
    assert stock_of(lamp.id) == 4


def test_explicit_order_input_is_validated(client, shopper_headers, make_product):
    product = make_product(stock=3)
    for body in (
        {},
        {"order": {}},
        {"order": {"items": []}},
        {"order": {"items": [{"quantity": 1}]}},
        {"order": {"items": [{"product": product.id, "quantity": 0}]}},
        {"order": {"items": [{"product": product.id, "quantity": "two"}]}},
        {"order": {"items": [{"product": "no-such-product", "quantity": 1}]}},
        {"order": {"items": "everything"}},
    ):
        response = client.post(ORDERS, json=body, headers=shopper_headers)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["detail"]
    assert count_rows(models.Order) == 0
    assert stock_of(product.id) == 3


def test_explicit_orders_follow_the_checkout_rules(client, customer, make_product, shopper_headers):
    product = make_product(name="Last Toaster", stock=1)
    no_address = client.post(
        ORDERS, json={"order": {"items": [{"product": product.id, "quantity": 1}]}}, headers=auth_headers(customer)
    )
    assert no_address.json() == {"detail": "No address found"}
    too_many = {"order": {"items": [{"product": product.id, "quantity": 2}]}}
    conflict = client.post(ORDERS, json=too_many, headers=shopper_headers)
    assert conflict.status_code == 409
    assert "Last Toaster" in conflict.json()["detail"]
    assert stock_of(product.id) == 1
    assert count_rows(models.Order) == 0


def test_the_list_holds_only_the_callers_orders_newest_first(client, shopper_headers, make_user, make_product):
    product = make_product(stock=100)
    mine = [place(client, shopper_headers, (product, 1))["id"] for _ in range(12)]
    other = make_user()
    add_address(other)
    place(client, auth_headers(other), (product, 1))

    page = client.get(ORDERS, headers=shopper_headers).json()
    assert page["count"] == 12
    assert page["next"] is None
    assert [order["id"] for order in page["results"]] == mine[::-1]
    assert all(order["items"] and order["total"] == order["amount"] for order in page["results"])

    first = client.get("/api/orders", params={"page_size": 5}, headers=shopper_headers).json()
    second = client.get(first["next"], headers=shopper_headers).json()
    third = client.get(second["next"], headers=shopper_headers).json()
    assert third["next"] is None
    assert [o["id"] for o in first["results"] + second["results"] + third["results"]] == mine[::-1]


def test_another_users_order_is_not_found(client, shopper_headers, make_user, make_product):
    order = place(client, shopper_headers, (make_product(), 1))
    stranger = auth_headers(make_user())
    assert client.get(f"{ORDERS}{order['id']}/", headers=stranger).status_code == 404
    assert client.get(f"{ORDERS}{order['id']}", headers=shopper_headers).status_code == 200
    assert client.get(f"{ORDERS}no-such-order/", headers=shopper_headers).status_code == 404


def test_a_deleted_product_leaves_its_snapshot(client, shopper_headers, make_product):
    product = make_product(name="Discontinued Mixer", price="42.00")
    order = place(client, shopper_headers, (product, 1))
    with session_scope() as session:
        session.delete(session.get(models.Product, product.id))
    item = client.get(f"{ORDERS}{order['id']}/", headers=shopper_headers).json()["items"][0]
    assert item["product"] is None
    assert (item["name"], item["price"], item["total"]) == ("Discontinued Mixer", "42.00", "42.00")


def patch_status(client, headers, order_id, status):
    return client.patch(f"{ORDERS}{order_id}/", json={"status": status}, headers=headers)


def test_only_admins_change_the_status(client, shopper_headers, make_product, admin_headers):
    order = place(client, shopper_headers, (make_product(), 1))
    assert patch_status(client, shopper_headers, order["id"], "processing").status_code == 403
    assert client.patch(f"{ORDERS}{order['id']}/", json={"status": "processing"}).status_code == 401
    assert client.get(f"{ORDERS}{order['id']}/", headers=shopper_headers).json()["status"] == "pending"

    response = patch_status(client, admin_headers, order["id"], "processing")
    assert response.status_code == 200
    assert response.json()["status"] == "processing"
    assert patch_status(client, admin_headers, order["id"], "shipped").json()["status"] == "shipped"
    assert patch_status(client, admin_headers, order["id"], "delivered").json()["status"] == "delivered"
    assert client.get(f"{ORDERS}{order['id']}/", headers=shopper_headers).json()["status"] == "delivered"
    assert patch_status(client, admin_headers, "no-such-order", "processing").status_code == 404


@pytest.mark.parametrize(
    "path, refused",
    [
        ([], "completed"),
        ([], "delivered"),
        ([], "pending"),
        ([], "shipped"),
        (["processing"], "pending"),
        (["processing"], "processing"),
        (["processing"], "completed"),
        (["processing"], "ready_for_pickup"),  # a home-delivery order is shipped, not collected
        (["processing", "shipped"], "cancelled"),
        (["processing", "shipped", "delivered"], "cancelled"),
        (["cancelled"], "pending"),
        (["cancelled"], "processing"),
    ],
)
def test_disallowed_transitions_are_a_400(client, shopper_headers, admin_headers, make_product, path, refused):
    order = place(client, shopper_headers, (make_product(), 1))
    for status in path:
        assert patch_status(client, admin_headers, order["id"], status).status_code == 200
    response = patch_status(client, admin_headers, order["id"], refused)
    assert response.status_code == 400
    assert response.json()["status"]
    expected = path[-1] if path else "pending"
    assert client.get(f"{ORDERS}{order['id']}/", headers=admin_headers).json()["status"] == expected


@pytest.mark.parametrize("path", [["cancelled"], ["processing", "cancelled"]])
def test_cancelling_restores_stock(client, shopper_headers, admin_headers, make_product, path):
    product = make_product(stock=5)
    order = place(client, shopper_headers, (product, 3))
    assert stock_of(product.id) == 2
    for status in path:
        assert patch_status(client, admin_headers, order["id"], status).status_code == 200
    assert stock_of(product.id) == 5
    with session_scope() as session:
        assert session.exec(select(models.Order.status)).one() == "cancelled"
