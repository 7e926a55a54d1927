"""Bursts of writes in ONE event loop, as one server worker sees them (api/admission.py).

Before writes queued for their turn, 60 add-to-cart requests at once locked the worker up: the
thread pool filled with requests waiting for SQLite's write lock while the holder waited for a
thread to finish its response (21 × 201, 38 × 503, 1 × 500, median 30 s). Timing targets live
in bench/write_burst.py; these tests check the outcomes and the stored rows.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.api import admission
from discount_deals.db import session_scope
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..builders.shop import add_address
from ..builders.rows import count_rows
from ..builders.catalog import stock_of

pytestmark = pytest.mark.skipif(not get_settings().is_sqlite, reason="the write queue only exists on SQLite")


async def _burst(app, requests: list[tuple[str, str, dict, dict | None]]) -> list[httpx.Response]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as client:
        return await asyncio.gather(
            *(client.request(method, url, headers=headers, json=body) for method, url, headers, body in requests)
        )


def test_sixty_shoppers_add_to_cart_at_once(api_app, clean_db, make_user, make_product):
    product = make_product(name="Popular Rice", stock=1000)
    headers = [auth_headers(make_user()) for _ in range(60)]
    responses = asyncio.run(
        _burst(api_app, [("POST", "/api/cart/cartitems/", h, {"product": product.id, "quantity": 1}) for h in headers])
    )
    assert Counter(r.status_code for r in responses) == {201: 60}, [r.text for r in responses if r.status_code != 201]
    with session_scope() as session:
        assert [item.quantity for item in session.exec(select(models.CartItem)).all()] == [1] * 60


def test_fifty_checkouts_for_ten_units_at_once(api_app, client, make_user, make_product):
    product = make_product(name="Last Ten Kettle", stock=10)
    headers = []
    for _ in range(50):
        user = make_user()
        add_address(user, is_default=True)
        headers.append(auth_headers(user))
        assert client.post("/api/cart/cartitems/", json={"product": product.id}, headers=headers[-1]).status_code == 201
    responses = asyncio.run(_burst(api_app, [("POST", "/api/orders/checkout/", h, {}) for h in headers]))
    assert Counter(r.status_code for r in responses) == {201: 10, 409: 40}
    assert all("Last Ten Kettle" in r.json()["detail"] for r in responses if r.status_code == 409)
    assert stock_of(product.id) == 0
    assert count_rows(models.Order) == 10


@pytest.fixture
def short_write_wait(use_settings):
    use_settings(DD_WRITE_WAIT_SECONDS="0.3")


def test_a_write_that_cannot_start_in_time_is_a_fast_503_and_changes_nothing(
    api_app, clean_db, make_user, make_product, short_write_wait
):
    product = make_product(stock=5)
    headers = auth_headers(make_user())

    async def scenario():
        transport = httpx.ASGITransport(app=api_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=30) as client:
            queue = admission._current_queue()
            holding, done = asyncio.Event(), asyncio.Event()

            async def other_writer():  # holds the turn for longer than the wait
                async with queue.lock:
                    holding.set()
                    await done.wait()

            holder = asyncio.create_task(other_writer())
            await holding.wait()
            try:
                began = time.monotonic()
                refused = await client.post("/api/cart/cartitems/", json={"product": product.id}, headers=headers)
                waited = time.monotonic() - began
                # Reads never queue behind writers.
                listing = await client.get("/api/products/")
            finally:
                done.set()
                await holder
            accepted = await client.post("/api/cart/cartitems/", json={"product": product.id}, headers=headers)
            return refused, waited, listing, accepted

    refused, waited, listing, accepted = asyncio.run(scenario())
    assert refused.status_code == 503
    assert refused.json() == {"detail": "The service is busy. Please try again."}
    assert int(refused.headers["retry-after"]) >= 1
    assert waited < 5  # bounded by DD_WRITE_WAIT_SECONDS, nowhere near the old 30 s
    assert listing.status_code == 200
    assert accepted.status_code == 201
    with session_scope() as session:
        assert len(session.exec(select(models.CartItem)).all()) == 1  # only the accepted request wrote


def test_a_full_queue_refuses_at_once(api_app, clean_db, make_user, make_product, monkeypatch):
    product = make_product(stock=5)
    headers = auth_headers(make_user())
    monkeypatch.setenv("DD_WRITE_QUEUE_LIMIT", "0")
    get_settings.cache_clear()
    try:
        responses = asyncio.run(_burst(api_app, [("POST", "/api/cart/cartitems/", headers, {"product": product.id})]))
    finally:
        monkeypatch.delenv("DD_WRITE_QUEUE_LIMIT")
        get_settings.cache_clear()
    assert responses[0].status_code == 503
    assert "retry-after" in responses[0].headers
    assert count_rows(models.CartItem) == 0
