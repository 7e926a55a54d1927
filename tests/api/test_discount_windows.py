"""Discount windows (issue 16): one rule in services.pricing, start inclusive, end exclusive, UTC.

The stored listing columns are checked at the window's edges with the moment passed in (no
sleeping), on the suite's database (SQLite, and PostgreSQL in ``make test-postgres``); the
API's product JSON, the cart, the checkout review and the order are checked against windows
placed around the real present.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import catalog
from discount_deals.services.catalog import price_schedule

from ..builders.accounts import auth_headers
from ..builders.shop import add_address

TICK = timedelta(microseconds=1)


@pytest.fixture(autouse=True)
def _fresh_throttle():
    price_schedule.reset_throttle()
    yield
    price_schedule.reset_throttle()


def stored(product_id: str) -> tuple[Decimal, int, datetime | None]:
    with session_scope() as session:
        product = session.get(models.Product, product_id)
        return product.effective_price, product.discount_percent, product.price_changes_at


def listed(client, **params) -> list[tuple[str, str]]:
    body = client.get("/api/products/", params=params).json()
    return [(row["name"], row["effective_price"]) for row in body["results"]]


def test_stored_prices_follow_the_window_at_its_edges(client, make_product):
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    end = start + timedelta(days=7)
    deal = make_product("Windowed Rice", price="30.00", discount_price="20.00", discount_start=start,
                        discount_end=end)
    make_product("Plain Beans", price="22.00")
    # Written before its window: the full price, due to change when the window opens.
    assert stored(deal.id) == (Decimal("30.00"), 0, start)
    assert listed(client, price_range="0-25") == [("Plain Beans", "22.00")]

    assert catalog.refresh_due_prices(start - TICK) == 0  # just before start: nothing due
    assert stored(deal.id) == (Decimal("30.00"), 0, start)

    assert catalog.refresh_due_prices(start) == 1  # at start (inclusive): the deal applies
    assert stored(deal.id) == (Decimal("20.00"), 33, end)
    # The cached count of the 0-25 listing was invalidated by the UPDATE (catalogue version).
    body = client.get("/api/products/", params={"price_range": "0-25", "ordering": "price-low"}).json()
    assert body["count"] == 2
    assert [row["name"] for row in body["results"]] == ["Windowed Rice", "Plain Beans"]
    by_discount = client.get("/api/products/", params={"ordering": "discount"}).json()["results"]
    assert [row["name"] for row in by_discount] == ["Windowed Rice", "Plain Beans"]

    assert catalog.refresh_due_prices(end - TICK) == 0  # just before end: still on
    assert stored(deal.id) == (Decimal("20.00"), 33, end)

    assert catalog.refresh_due_prices(end) == 1  # at end (exclusive): over
    assert stored(deal.id) == (Decimal("30.00"), 0, None)
    assert client.get("/api/products/", params={"price_range": "0-25"}).json()["count"] == 1
    assert catalog.refresh_due_prices(end + timedelta(days=365)) == 0  # nothing left to do


def test_an_admin_edit_reschedules_and_a_stale_refresh_does_not_undo_it(client, make_product, admin_headers):
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    deal = make_product("Moved Deal", price="10.00", discount_price="5.00", discount_start=start)
    # The admin moves the window to yesterday: the row is recomputed at once.
    response = client.patch(f"/api/products/{deal.id}/", headers=admin_headers,
                            json={"discount_start": (start - timedelta(days=1)).isoformat()})
    assert response.status_code == 200, response.text
    assert stored(deal.id) == (Decimal("5.00"), 50, None)
    assert catalog.refresh_due_prices(start) == 0


def test_many_due_rows_are_refreshed_in_batches(make_product, monkeypatch):
    monkeypatch.setattr(price_schedule, "BATCH", 3)
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
    ids = [make_product(price="4.00", discount_price="3.00", discount_start=start).id for _ in range(7)]
    assert catalog.refresh_due_prices(start) == 7
    assert {stored(pid)[0] for pid in ids} == {Decimal("3.00")}


def test_listings_refresh_by_themselves(client, make_product):
    """A shopper's listing brings due rows up to date first (the throttle is per worker)."""
    start = datetime.now(UTC) - timedelta(hours=1)
    deal = make_product("Already Started", price="40.00", discount_price="10.00", discount_start=start)
    with session_scope() as session:  # as if written before its window opened
        product = session.get(models.Product, deal.id)
        product.effective_price, product.discount_percent, product.price_changes_at = Decimal("40.00"), 0, start
        session.add(product)
    assert listed(client, price_range="0-25") == [("Already Started", "10.00")]
    assert stored(deal.id) == (Decimal("10.00"), 75, None)


# --- what shoppers see and pay, around the real present --------------------------------------


@pytest.fixture
def windows(make_product):
    now = datetime.now(UTC)
    hour = timedelta(hours=1)
    return {
        "active": make_product("Deal On", price="10.00", discount_price="6.00", discount_start=now - hour,
                               discount_end=now + hour),
        "scheduled": make_product("Deal Soon", price="10.00", discount_price="6.00", discount_start=now + hour),
        "expired": make_product("Deal Over", price="10.00", discount_price="6.00", discount_end=now - hour),
        "none": make_product("No Deal", price="10.00"),
    }


def test_the_product_json_says_whether_the_discount_is_active_now(client, windows, admin_headers):
    for state, product in windows.items():
        body = client.get(f"/api/products/{product.id}").json()["data"]
        active = state == "active"
        assert body["discount_state"] == state
        assert body["discount_active"] is active
        assert body["effective_price"] == ("6.00" if active else "10.00")
        assert body["discount_percent"] == (40 if active else 0)
        # Shoppers see a discount price only while it applies (the existing client shows it as the price).
        assert body["discount_price"] == ("6.00" if active else None)
        # Admins see the stored one, so that editing a scheduled deal keeps it.
        admin_view = client.get(f"/api/products/{product.id}", headers=admin_headers).json()["data"]
        assert admin_view["discount_price"] == (None if state == "none" else "6.00")
        assert admin_view["discount_active"] is active


def test_the_cart_checkout_and_order_charge_the_window_price(client, windows, customer):
    headers = auth_headers(customer)
    add_address(customer, is_default=True)
    for product in windows.values():
        assert client.post("/api/cart/cartitems/", json={"product": product.id, "quantity": 1},
                           headers=headers).status_code == 201
    lines = client.get("/api/cart/cartitems/", headers=headers).json()["results"]
    prices = {line["product"]["name"]: line["price"] for line in lines}
    assert prices == {"Deal On": "6.00", "Deal Soon": "10.00", "Deal Over": "10.00", "No Deal": "10.00"}
    order = client.post("/api/orders/checkout/", json={}, headers=headers)
    assert order.status_code == 201, order.text
    body = order.json()
    assert body["subtotal"] == "36.00" and body["savings"] == "4.00"
    with session_scope() as session:
        items = session.exec(select(models.OrderItem.name, models.OrderItem.unit_price)).all()
    assert dict(items) == {"Deal On": Decimal("6.00"), "Deal Soon": Decimal("10.00"),
                           "Deal Over": Decimal("10.00"), "No Deal": Decimal("10.00")}


def test_featured_and_filters_use_the_price_in_force(client, windows):
    body = client.get("/api/products/", params={"price_range": "0-25", "ordering": "price-low"}).json()
    assert [row["name"] for row in body["results"]][0] == "Deal On"
    assert {row["name"]: row["effective_price"] for row in body["results"]}["Deal Soon"] == "10.00"


def test_each_worker_looks_at_most_every_few_seconds(make_product, monkeypatch):
    started = datetime.now(UTC) - timedelta(minutes=5)

    def due_product():
        product = make_product(price="8.00", discount_price="4.00", discount_start=started)
        with session_scope() as session:  # as if written before its window opened
            row = session.get(models.Product, product.id)
            row.effective_price, row.discount_percent, row.price_changes_at = Decimal("8.00"), 0, started
            session.add(row)
        return product

    first = due_product()
    assert price_schedule.refresh_if_due() == 1
    second = due_product()
    assert price_schedule.refresh_if_due() == 0  # looked a moment ago
    assert stored(second.id)[0] == Decimal("8.00")
    monkeypatch.setattr(price_schedule, "CHECK_EVERY_S", 0.0)  # as if the few seconds had passed
    assert price_schedule.refresh_if_due() == 1
    assert stored(first.id)[0] == stored(second.id)[0] == Decimal("4.00")
