"""Concurrent checkouts and cart writes over HTTP, each thread with its own client."""

from __future__ import annotations

import threading
from collections import Counter

from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.shop import add_address
from ..builders.rows import count_rows
from ..builders.catalog import stock_of
from ..support.concurrency import at_once

SHOPPERS = 20
STOCK = 5


def test_twenty_checkouts_for_five_units(api_app, client, make_user, make_product):
    product = make_product(name="Last Five Blender", stock=STOCK)
    headers = []
    for _ in range(SHOPPERS):
        user = make_user()
        add_address(user, is_default=True)
        headers.append(auth_headers(user))
        assert client.post("/api/cart/cartitems/", json={"product": product.id}, headers=headers[-1]).status_code == 201

    def shop(own_client, shopper_headers: dict) -> tuple[int, dict]:
        response = own_client.post("/api/orders/checkout/", json={}, headers=shopper_headers)
        return response.status_code, response.json()

    results = at_once(api_app, shop, headers)

    statuses = Counter(status for status, _body in results)
    assert statuses == {201: STOCK, 409: SHOPPERS - STOCK}, results
    assert all("Last Five Blender" in body["detail"] for status, body in results if status == 409)
    assert stock_of(product.id) == 0
    assert count_rows(models.Order) == STOCK
    with session_scope() as session:
        assert session.exec(select(models.OrderItem.quantity)).all() == [1] * STOCK
        # The winners' carts are empty; the others still hold their unit.
        assert len(session.exec(select(models.CartItem)).all()) == SHOPPERS - STOCK


def test_cart_writes_keep_working_while_others_check_out(api_app, client, make_user, make_product):
    """Read-then-write requests must not fail with "database is locked" when others commit meanwhile."""
    products = [make_product(stock=1000) for _ in range(10)]
    adders, buyers = [make_user() for _ in range(4)], [make_user() for _ in range(4)]
    for buyer in buyers:
        add_address(buyer, is_default=True)
    statuses: Counter = Counter()
    lock = threading.Lock()
    start = threading.Barrier(len(adders) + len(buyers))

    def record(kind: str, response) -> None:
        with lock:
            statuses[(kind, response.status_code)] += 1

    def add_many(user) -> None:
        own_client, headers = TestClient(api_app, raise_server_exceptions=False), auth_headers(user)
        start.wait()
        for i in range(30):
            product_id = products[i % len(products)].id
            record("add", own_client.post("/api/cart/cartitems/", json={"product": product_id}, headers=headers))
        record("favourite", own_client.post("/api/favorites/", json={"product": products[0].id}, headers=headers))

    def buy_many(user) -> None:
        own_client, headers = TestClient(api_app, raise_server_exceptions=False), auth_headers(user)
        start.wait()
        for product in products:
            record("add", own_client.post("/api/cart/cartitems/", json={"product": product.id}, headers=headers))
            record("checkout", own_client.post("/api/orders/checkout/", json={}, headers=headers))

    threads = [threading.Thread(target=add_many, args=(u,)) for u in adders]
    threads += [threading.Thread(target=buy_many, args=(u,)) for u in buyers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert statuses == {("add", 201): 4 * 30 + 4 * 10, ("checkout", 201): 4 * 10, ("favourite", 201): 4}
    assert count_rows(models.Order) == 40
