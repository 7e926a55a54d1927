"""The logged-in cart over HTTP: lines, merging, stock limits, owners, clearing."""

from __future__ import annotations

import pytest
from sqlmodel import select

from ..builders.accounts import auth_headers
from ..builders.shop import cart_quantities
from ..builders.catalog import update_product
from discount_deals.services import cart as cart_service

ITEMS = "/api/cart/cartitems/"


def add(client, headers, product_id, quantity=1):
    return client.post(ITEMS, json={"product": product_id, "quantity": quantity}, headers=headers)


def set_quantity(client, headers, line, product, quantity, slash="/"):
    body = {"product": product.id, "quantity": quantity}
    return client.patch(f"{ITEMS}{line['id']}{slash}", json=body, headers=headers)


def test_every_cart_endpoint_needs_a_login(client, make_product):
    product = make_product()
    for method, path in (
        ("GET", ITEMS),
        ("POST", ITEMS),
        ("PATCH", f"{ITEMS}some-id/"),
        ("DELETE", f"{ITEMS}some-id/"),
        ("DELETE", "/api/cart/some-cart/clear/"),
        ("POST", "/api/cart/some-cart/clear/"),
    ):
        response = client.request(method, path, json={"product": product.id, "quantity": 1})
        assert response.status_code == 401, (method, path)
        assert "detail" in response.json()


def test_an_empty_cart_is_an_empty_page(client, customer_headers):
    response = client.get(ITEMS, headers=customer_headers)
    assert response.status_code == 200
    assert response.json() == {"count": 0, "next": None, "previous": None, "total_pages": 0, "results": []}


def test_add_returns_the_line_with_the_full_product_and_current_unit_price(client, customer_headers, make_product):
    product = make_product(name="Rice 5kg", price="10.00", discount_price="8.00", stock=5)
    response = add(client, customer_headers, product.id, 2)
    assert response.status_code == 201, response.text
    line = response.json()
    assert line["quantity"] == 2
    assert line["price"] == "8.00"
    assert line["product"]["id"] == product.id
    assert line["product"]["name"] == "Rice 5kg"
    assert line["product"]["price"] == "10.00"
    assert line["product"]["discount_price"] == "8.00"
    assert line["product"]["stock"] == 5
    assert set(line["product"]["category"]) == {"id", "name", "slug"}

    page = client.get(ITEMS, headers=customer_headers).json()
    assert page["count"] == 1
    assert page["results"] == [line]
    assert page["results"][0]["cart"] == line["cart"]


def test_adding_the_same_product_merges_into_one_line(client, customer_headers, make_product):
    product = make_product(stock=10)
    first = add(client, customer_headers, product.id, 2).json()
    second = add(client, customer_headers, product.id, 3)
    assert second.status_code == 201
    assert second.json()["id"] == first["id"]
    assert second.json()["quantity"] == 5
    assert client.get(ITEMS, headers=customer_headers).json()["count"] == 1


def test_quantity_defaults_to_one_and_accepts_a_numeric_string(client, customer_headers, make_product):
    product = make_product()
    assert client.post(ITEMS, json={"product": product.id}, headers=customer_headers).json()["quantity"] == 1
    assert add(client, customer_headers, product.id, "2").json()["quantity"] == 3


@pytest.mark.parametrize("quantity", [0, -1, 1.5, "abc", "", None, True, [1]])
def test_add_refuses_anything_but_a_whole_number_of_at_least_one(
    client, customer, customer_headers, make_product, quantity
):
    product = make_product()
    response = add(client, customer_headers, product.id, quantity)
    assert response.status_code == 400, response.text
    assert response.json()["quantity"]
    assert cart_quantities(customer) == {}


def test_add_without_a_product_is_a_400(client, customer_headers):
    for body in ({"quantity": 1}, {"product": "", "quantity": 1}, {"product": "no-such-id", "quantity": 1}):
        response = client.post(ITEMS, json=body, headers=customer_headers)
        assert response.status_code == 400, body
        assert "product" in response.json()


def test_more_than_the_stock_is_refused_naming_the_available_stock(client, customer, customer_headers, make_product):
    product = make_product(stock=3)
    response = add(client, customer_headers, product.id, 4)
    assert response.status_code == 400
    assert "Only 3 left in stock" in response.json()["detail"]
    assert cart_quantities(customer) == {}

    assert add(client, customer_headers, product.id, 2).status_code == 201
    response = add(client, customer_headers, product.id, 2)  # 2 + 2 > 3
    assert response.status_code == 400
    assert "Only 3 left in stock" in response.json()["detail"]
    assert cart_quantities(customer) == {product.id: 2}
    assert add(client, customer_headers, product.id, 1).json()["quantity"] == 3


def test_out_of_stock_or_hidden_products_cannot_be_added(client, customer, customer_headers, make_product):
    cases = {
        "out of stock": make_product(name="Empty shelf", stock=0),
        "not available": make_product(name="Hidden", is_available=False),
        "not available ": make_product(name="Retired", status="inactive"),
    }
    for expected, product in cases.items():
        response = add(client, customer_headers, product.id, 1)
        assert response.status_code == 400
        assert product.name in response.json()["detail"]
        assert expected.strip() in response.json()["detail"]
    assert cart_quantities(customer) == {}


def test_patch_sets_the_quantity(client, customer, customer_headers, make_product):
    product = make_product(stock=6)
    line = add(client, customer_headers, product.id, 1).json()
    response = set_quantity(client, customer_headers, line, product, 6)
    assert response.status_code == 200, response.text
    assert response.json()["quantity"] == 6
    assert cart_quantities(customer) == {product.id: 6}

    too_many = set_quantity(client, customer_headers, line, product, 7, slash="")
    assert too_many.status_code == 400
    assert "Only 6 left in stock" in too_many.json()["detail"]

    negative = set_quantity(client, customer_headers, line, product, -1)
    assert negative.status_code == 400
    assert negative.json()["quantity"] == ["Quantity cannot be negative."]

    missing = client.patch(f"{ITEMS}{line['id']}/", json={"product": product.id}, headers=customer_headers)
    assert missing.status_code == 400
    assert cart_quantities(customer) == {product.id: 6}


def test_patch_to_zero_removes_the_line(client, customer, customer_headers, make_product):
    product = make_product()
    line = add(client, customer_headers, product.id, 2).json()
    response = set_quantity(client, customer_headers, line, product, 0)
    assert response.status_code == 204
    assert cart_quantities(customer) == {}


def test_delete_removes_one_line(client, customer, customer_headers, make_product):
    keep, drop = make_product(), make_product()
    add(client, customer_headers, keep.id)
    line = add(client, customer_headers, drop.id).json()
    assert client.delete(f"{ITEMS}{line['id']}/", headers=customer_headers).status_code == 204
    assert cart_quantities(customer) == {keep.id: 1}
    assert client.delete(f"{ITEMS}{line['id']}/", headers=customer_headers).status_code == 404


def test_another_users_lines_and_cart_are_not_found(client, make_user, make_product):
    alice, bob = make_user(), make_user()
    product = make_product()
    line = add(client, auth_headers(alice), product.id, 2).json()
    bob_headers = auth_headers(bob)

    assert client.get(ITEMS, headers=bob_headers).json()["count"] == 0
    patch = client.patch(f"{ITEMS}{line['id']}/", json={"product": product.id, "quantity": 1}, headers=bob_headers)
    assert patch.status_code == 404
    assert client.delete(f"{ITEMS}{line['id']}/", headers=bob_headers).status_code == 404
    assert client.delete(f"/api/cart/{line['cart']}/clear/", headers=bob_headers).status_code == 404
    assert client.post(f"/api/cart/{line['cart']}/clear/", headers=bob_headers).status_code == 404

    # Bob having a cart of his own changes nothing.
    add(client, bob_headers, product.id, 1)
    assert client.delete(f"/api/cart/{line['cart']}/clear/", headers=bob_headers).status_code == 404
    assert cart_quantities(alice) == {product.id: 2}
    assert cart_quantities(bob) == {product.id: 1}


@pytest.mark.parametrize("method", ["DELETE", "POST"])
@pytest.mark.parametrize("slash", ["/", ""])
def test_clear_empties_the_callers_cart(client, customer, customer_headers, make_product, method, slash):
    first, second = make_product(), make_product()
    cart_id = add(client, customer_headers, first.id).json()["cart"]
    add(client, customer_headers, second.id, 2)
    response = client.request(method, f"/api/cart/{cart_id}/clear{slash}", headers=customer_headers)
    assert response.status_code == 204
    assert cart_quantities(customer) == {}
    assert client.get(ITEMS, headers=customer_headers).json()["count"] == 0
    # The cart itself stays: clearing it again is fine, an unknown cart is not.
    assert client.request(method, f"/api/cart/{cart_id}/clear/", headers=customer_headers).status_code == 204
    assert client.request(method, "/api/cart/unknown/clear/", headers=customer_headers).status_code == 404


def test_lines_show_todays_price(client, customer_headers, make_product):
    product = make_product(price="20.00", discount_price="15.00")
    add(client, customer_headers, product.id)
    update_product(product.id, discount_price=None, price="18.00")
    line = client.get(ITEMS, headers=customer_headers).json()["results"][0]
    assert line["price"] == "18.00"
    assert line["product"]["discount_price"] is None


def test_the_first_page_holds_the_whole_cart(client, customer_headers, make_product):
    products = [make_product() for _ in range(12)]
    for product in products:
        add(client, customer_headers, product.id)
    page = client.get("/api/cart/cartitems", headers=customer_headers).json()
    assert page["count"] == 12
    assert len(page["results"]) == 12
    assert page["next"] is None
    assert [line["product"]["id"] for line in page["results"]] == [p.id for p in products]

    small = client.get(ITEMS, params={"page_size": 5}, headers=customer_headers).json()
    assert len(small["results"]) == 5
    second = client.get(small["next"], headers=customer_headers).json()
    assert [line["product"]["id"] for line in second["results"]] == [p.id for p in products[5:10]]


def test_a_cart_holds_at_most_one_page_of_lines(client, customer, customer_headers, make_category, make_product):
    # Probe 76: the original client reads page 1 of the cart (100 lines) and the checkout ordered
    # all 105: the shopper was charged for five lines never shown.
    category = make_category()
    products = [make_product(category=category, price="1.00") for _ in range(cart_service.MAX_LINES + 1)]
    for product in products[:-1]:
        assert add(client, customer_headers, product.id).status_code == 201
    refused = add(client, customer_headers, products[-1].id)
    assert refused.status_code == 400
    assert refused.json()["detail"] == cart_service.CART_FULL
    assert cart_service.CART_FULL == ("Your cart holds 100 different products, the most it can. "
                                      "Check out or remove some first.")
    assert products[-1].id not in cart_quantities(customer)  # nothing written
    assert add(client, customer_headers, products[0].id).status_code == 201  # more of a line it holds
    page = client.get(ITEMS, headers=customer_headers).json()
    assert (page["count"], len(page["results"]), page["next"]) == (100, 100, None)
    first = page["results"][0]
    assert client.delete(f"{ITEMS}{first['id']}/", headers=customer_headers).status_code == 204
    assert add(client, customer_headers, products[-1].id).status_code == 201  # room again


def test_a_cart_filled_past_the_cap_before_it_is_refused_at_checkout(client, shopper_headers, shopper, make_category,
                                                                      make_product):
    # Review 79: a cart that held more than 100 lines before the cap still ordered them all, the
    # shopper having seen 100. The refusal carries its code.
    from discount_deals import models
    from discount_deals.db import session_scope

    category = make_category()
    products = [make_product(category=category, price="1.00") for _ in range(cart_service.MAX_LINES + 2)]
    assert add(client, shopper_headers, products[0].id).status_code == 201
    with session_scope() as session:
        cart = session.exec(select(models.Cart).where(models.Cart.user_id == shopper.id)).one()
        for product in products[1:]:
            session.add(models.CartItem(cart_id=cart.id, product_id=product.id, quantity=1))
    refused = client.post("/api/orders/checkout/", json={}, headers=shopper_headers)
    assert refused.status_code == 400
    assert refused.json() == {"detail": cart_service.CART_OVER, "code": "cart_full"}
    with session_scope() as session:
        assert session.exec(select(models.Order).where(models.Order.user_id == shopper.id)).all() == []
    full = add(client, shopper_headers, make_product(category=category).id)
    assert full.status_code == 400 and full.json()["code"] == "cart_full"
