"""Flash sales (issue 34 item 2): a discount window's limit per customer, in the cart and at checkout.

The limit counts the units of the product in the customer's orders placed inside the current
window and not cancelled; it applies only while the discount does (services.pricing's window).
The PostgreSQL race (two checkouts of one customer) is in test_races_postgres.py.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, order_row, place
from ..builders.shop import add_address, cart_quantities
from ..builders.rows import count_rows
from ..builders.catalog import stock_of, update_product
from ..support.concurrency import at_once

CART = "/api/cart/cartitems/"
ORDERS = "/api/orders/"


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def flash(make_product):
    """A product on a flash sale since an hour ago, for 5 more hours, at most 2 per customer."""
    return make_product("Flash Milo 400g", price="20.00", discount_price="12.00", stock=20,
                        discount_start=_now() - timedelta(hours=1), discount_end=_now() + timedelta(hours=5),
                        per_customer_limit=2)


def _limit(product_id: str) -> int | None:
    with session_scope() as session:
        return session.get(models.Product, product_id).per_customer_limit


def _explicit_order(client, headers, product, quantity):
    body = {"order": {"items": [{"product": product.id, "quantity": quantity}]}}
    return client.post(ORDERS, json=body, headers=headers)


def _refused_for_limit(response, text: str) -> None:
    assert response.status_code == 409, response.text
    assert response.json() == {"detail": text, "code": "per_customer_limit"}


LIMIT_TEXT = "Flash sale: at most 2 per customer for Flash Milo 400g."


# --- the limit on the product ------------------------------------------------------------------


def test_an_admin_sets_the_limit_with_the_window_and_clears_it(client, admin_headers, make_category):
    category = make_category()
    body = {"name": "Flash Rice", "price": "30.00", "category": category.id, "discount_price": "20.00",
            "discount_start": (_now() - timedelta(hours=1)).isoformat(),
            "discount_end": (_now() + timedelta(hours=3)).isoformat(), "per_customer_limit": "3"}
    created = client.post("/api/products/", json=body, headers=admin_headers)
    assert created.status_code == 201, created.text
    product = created.json()["data"]
    assert product["per_customer_limit"] == 3
    assert _limit(product["id"]) == 3

    shown = client.get(f"/api/products/{product['id']}").json()["data"]
    assert shown["per_customer_limit"] == 3
    assert shown["discount_end"] is not None

    patched = client.patch(f"/api/products/{product['id']}/", json={"per_customer_limit": 1}, headers=admin_headers)
    assert patched.status_code == 200, patched.text
    assert _limit(product["id"]) == 1
    cleared = client.patch(f"/api/products/{product['id']}/", json={"per_customer_limit": None},
                           headers=admin_headers)
    assert cleared.status_code == 200, cleared.text
    assert cleared.json()["data"]["per_customer_limit"] is None
    assert _limit(product["id"]) is None


@pytest.mark.parametrize("value", [0, -1, 1.5, "two", True, [2]])
def test_a_limit_that_is_no_whole_number_of_one_or_more_is_refused(client, admin_headers, flash, value):
    response = client.patch(f"/api/products/{flash.id}/", json={"per_customer_limit": value}, headers=admin_headers)
    assert response.status_code == 400, response.text
    assert response.json()["per_customer_limit"] == ["Limit per customer must be a whole number of 1 or more."]
    assert _limit(flash.id) == 2


def test_a_limit_without_a_discount_price_is_refused(client, admin_headers, make_category, make_product, flash):
    category = make_category()
    body = {"name": "No Sale Beans", "price": "30.00", "category": category.id, "per_customer_limit": 2}
    refused = client.post("/api/products/", json=body, headers=admin_headers)
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "limit_without_discount"
    assert refused.json()["per_customer_limit"] == ["A limit per customer needs a discount price."]
    assert count_rows(models.Product) == 1  # only the flash product

    plain = make_product("Plain Oil", price="15.00")
    patched = client.patch(f"/api/products/{plain.id}/", json={"per_customer_limit": 2}, headers=admin_headers)
    assert (patched.status_code, patched.json()["code"]) == (400, "limit_without_discount")
    assert _limit(plain.id) is None

    # Clearing the discount of a capped product while keeping its cap is refused too.
    cleared = client.patch(f"/api/products/{flash.id}/", json={"discount_price": None}, headers=admin_headers)
    assert (cleared.status_code, cleared.json()["code"]) == (400, "limit_without_discount")
    with session_scope() as session:
        row = session.get(models.Product, flash.id)
        assert (str(row.discount_price), row.per_customer_limit) == ("12.00", 2)


# --- the cart ------------------------------------------------------------------------------------


def test_the_cart_refuses_more_than_the_limit(client, shopper, flash):
    headers = auth_headers(shopper)
    assert client.post(CART, json={"product": flash.id, "quantity": 2}, headers=headers).status_code == 201
    _refused_for_limit(client.post(CART, json={"product": flash.id}, headers=headers), LIMIT_TEXT)
    assert cart_quantities(shopper) == {flash.id: 2}

    line = client.get(CART, headers=headers).json()["results"][0]
    _refused_for_limit(client.patch(f"{CART}{line['id']}/", json={"quantity": 3}, headers=headers), LIMIT_TEXT)
    assert cart_quantities(shopper) == {flash.id: 2}
    assert client.patch(f"{CART}{line['id']}/", json={"quantity": 1}, headers=headers).status_code == 200
    assert cart_quantities(shopper) == {flash.id: 1}


def test_units_bought_in_the_window_count_against_the_limit(client, shopper, flash):
    headers = auth_headers(shopper)
    fill_cart(client, headers, (flash, 1))
    place(client, headers)
    refused = client.post(CART, json={"product": flash.id, "quantity": 2}, headers=headers)
    _refused_for_limit(refused, LIMIT_TEXT + " You have already bought 1.")
    assert cart_quantities(shopper) == {}
    assert client.post(CART, json={"product": flash.id, "quantity": 1}, headers=headers).status_code == 201


# --- checkout --------------------------------------------------------------------------------------


def test_checkout_refuses_more_than_the_limit_and_writes_nothing(client, shopper, flash):
    headers = auth_headers(shopper)
    fill_cart(client, headers, (flash, 2))  # fits while nothing is bought
    assert _explicit_order(client, headers, flash, 1).status_code == 201  # bought elsewhere meanwhile
    assert stock_of(flash.id) == 19

    refused = client.post("/api/orders/checkout/", json={}, headers=headers)
    _refused_for_limit(refused, LIMIT_TEXT + " You have already bought 1.")
    assert stock_of(flash.id) == 19
    assert count_rows(models.Order) == 1
    assert cart_quantities(shopper) == {flash.id: 2}  # the cart is kept for the shopper to fix

    # An explicit order (the guest cart's way in after signing in) meets the same check.
    _refused_for_limit(_explicit_order(client, headers, flash, 2), LIMIT_TEXT + " You have already bought 1.")
    assert count_rows(models.Order) == 1


def test_an_order_of_a_guest_cart_beyond_the_limit_is_refused(client, shopper, flash):
    _refused_for_limit(_explicit_order(client, auth_headers(shopper), flash, 3), LIMIT_TEXT)
    assert (count_rows(models.Order), stock_of(flash.id)) == (0, 20)


def test_cancelled_orders_and_orders_before_the_window_do_not_count(client, shopper, flash):
    headers = auth_headers(shopper)
    cancelled = _explicit_order(client, headers, flash, 2).json()
    assert client.post(f"{ORDERS}{cancelled['id']}/cancel/", headers=headers).status_code == 200
    assert order_row(cancelled["id"]).status == "cancelled"
    earlier = _explicit_order(client, headers, flash, 2).json()
    with session_scope() as session:  # placed before this window opened (an earlier sale)
        row = session.get(models.Order, earlier["id"])
        row.created_at = flash.discount_start - timedelta(minutes=1)
        session.add(row)

    fill_cart(client, headers, (flash, 2))
    assert place(client, headers)["id"]
    with session_scope() as session:
        quantities = session.exec(select(models.OrderItem.quantity)).all()
    assert sorted(quantities) == [2, 2, 2]


def test_the_limit_goes_when_the_window_closes(client, shopper, flash, make_product):
    headers = auth_headers(shopper)
    fill_cart(client, headers, (flash, 2))
    place(client, headers)
    update_product(flash.id, discount_end=_now() - timedelta(seconds=1))  # the sale is over
    fill_cart(client, headers, (flash, 3))
    assert place(client, headers)["item_count"] == 3

    later = make_product("Scheduled Sale Soap", price="5.00", discount_price="3.00", per_customer_limit=1,
                         discount_start=_now() + timedelta(days=1))
    fill_cart(client, headers, (later, 4))  # the sale has not started: no limit yet
    assert cart_quantities(shopper) == {later.id: 4}


def test_a_sale_at_the_list_price_caps_nothing(client, shopper, make_product):
    """A "discount" equal to the price (0 %) with a limit: the cart refused a third unit, yet
    three orders of two went through (no unit bought at a discount counted): no cap at all now."""
    headers = auth_headers(shopper)
    even = make_product("Even Price Gari", price="20.00", discount_price="20.00", stock=20, per_customer_limit=2,
                        discount_start=_now() - timedelta(hours=1), discount_end=_now() + timedelta(hours=5))
    fill_cart(client, headers, (even, 3))
    assert cart_quantities(shopper) == {even.id: 3}
    assert place(client, headers)["item_count"] == 3
    fill_cart(client, headers, (even, 3))
    assert place(client, headers)["item_count"] == 3
    assert stock_of(even.id) == 14


def test_another_customer_is_not_limited_by_what_one_bought(client, shopper, flash, make_user):
    fill_cart(client, auth_headers(shopper), (flash, 2))
    place(client, auth_headers(shopper))
    other = make_user()
    add_address(other, is_default=True)
    fill_cart(client, auth_headers(other), (flash, 2))
    assert place(client, auth_headers(other))["item_count"] == 2
    assert stock_of(flash.id) == 16


def test_two_checkouts_of_one_customer_at_once_pass_once(api_app, shopper, flash):
    """On SQLite the write lock queues them; the PostgreSQL variant holds the product row."""
    headers = auth_headers(shopper)
    answers = at_once(api_app, lambda own, _n: _explicit_order(own, headers, flash, 2), range(2), timeout=60)

    assert Counter(answer.status_code for answer in answers) == {201: 1, 409: 1}, [a.text for a in answers]
    refused = next(answer for answer in answers if answer.status_code == 409)
    assert refused.json()["code"] == "per_customer_limit"
    assert (count_rows(models.Order), stock_of(flash.id)) == (1, 18)


def test_full_price_units_bought_before_an_open_start_sale_do_not_count(client, shopper, make_product, admin_headers):
    """A sale with no start reaches back to every order: 2 units bought at the full price 60 days
    before the sale existed shut the shopper out of it ("You have already bought 2")."""
    headers = auth_headers(shopper)
    beans = make_product("Open Start Beans", price="20.00", stock=20)
    earlier = _explicit_order(client, headers, beans, 2).json()
    with session_scope() as session:
        row = session.get(models.Order, earlier["id"])
        row.created_at = _now() - timedelta(days=60)
        session.add(row)
    sale = {"discount_price": "12.00", "discount_end": (_now() + timedelta(hours=5)).isoformat(),
            "per_customer_limit": 2}
    assert client.patch(f"/api/products/{beans.id}/", json=sale, headers=admin_headers).status_code == 200
    assert client.post(CART, json={"product": beans.id, "quantity": 2}, headers=headers).status_code == 201
    third = client.post(CART, json={"product": beans.id, "quantity": 1}, headers=headers)
    _refused_for_limit(third, "Flash sale: at most 2 per customer for Open Start Beans.")
    assert cart_quantities(shopper) == {beans.id: 2}


def test_an_edit_without_the_limit_field_keeps_the_sale_s_limit(client, admin_headers, flash, shopper):
    """The original client's edit form has no per_customer_limit: its PUT (the whole form, stock
    changed) wiped the cap, and a shopper could then put 5 in the cart."""
    shown = client.get(f"/api/products/{flash.id}").json()["data"]
    form = {key: shown[key] for key in ("name", "description", "price", "discount_price", "discount_start",
                                        "discount_end", "image_url", "status", "is_available", "is_featured")}
    saved = client.put(f"/api/products/{flash.id}/", headers=admin_headers,
                       json={**form, "category": shown["category"]["id"], "tags": [], "related_products": [],
                             "stock": 40})
    assert saved.status_code == 200, saved.text
    assert _limit(flash.id) == 2 and stock_of(flash.id) == 40
    assert client.post(CART, json={"product": flash.id, "quantity": 5}, headers=auth_headers(shopper)).status_code == 409
    # Sent blank, or with the discount gone, the cap goes with the sale.
    blank = client.put(f"/api/products/{flash.id}/", headers=admin_headers,
                       json={**form, "category": shown["category"]["id"], "stock": 40, "per_customer_limit": ""})
    assert blank.status_code == 200 and _limit(flash.id) is None
    client.patch(f"/api/products/{flash.id}/", json={"per_customer_limit": 2}, headers=admin_headers)
    no_sale = {key: value for key, value in form.items() if not key.startswith("discount")}
    ended = client.put(f"/api/products/{flash.id}/", headers=admin_headers,
                       json={**no_sale, "category": shown["category"]["id"], "stock": 40})
    assert ended.status_code == 200, ended.text
    assert _limit(flash.id) is None
