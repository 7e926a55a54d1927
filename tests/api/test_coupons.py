"""Coupons in the back office (issue 16): admin-only API, limits, minimum basket, uses counted
atomically at checkout (also under concurrent checkouts), and given back on cancellation."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, place
from ..builders.shop import add_address, add_coupon
from ..builders.rows import count_rows
from ..support.concurrency import at_once

COUPONS = "/api/admin/coupons/"


def coupon_row(code: str) -> models.Coupon:
    with session_scope() as session:
        return session.exec(select(models.Coupon).where(models.Coupon.code == code)).one()


def test_coupons_are_for_admins_only(client, customer_headers):
    assert client.get(COUPONS).status_code == 401
    assert client.get(COUPONS, headers=customer_headers).status_code == 403
    body = {"code": "NOPE", "kind": "percent", "value": "10"}
    assert client.post(COUPONS, json=body, headers=customer_headers).status_code == 403
    assert count_rows(models.Coupon) == 0


def test_create_list_and_deactivate(client, admin_headers):
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date()
    created = client.post(COUPONS, headers=admin_headers, json={
        "code": " welcome10 ", "kind": "percent", "value": "10", "expires_at": tomorrow.isoformat(),
        "usage_limit": 100, "min_subtotal": "20.00"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["code"] == "WELCOME10" and body["kind"] == "percent" and body["value"] == "10"
    assert body["status"] == "active" and body["used_count"] == 0 and body["usage_limit"] == 100
    assert body["min_subtotal"] == "20.00"
    assert body["expires_at"].startswith((tomorrow + timedelta(days=1)).isoformat())  # valid through that day
    fixed = client.post(COUPONS, headers=admin_headers, json={"code": "FIVE", "kind": "fixed", "value": "5"}).json()
    assert fixed["value"] == "5.00" and fixed["expires_at"] is None and fixed["usage_limit"] is None

    listed = client.get(COUPONS, headers=admin_headers).json()
    assert [c["code"] for c in listed["results"]] == ["FIVE", "WELCOME10"] and listed["count"] == 2
    assert [c["code"] for c in client.get(COUPONS, headers=admin_headers, params={"search": "welc"}).json()["results"]] == [
        "WELCOME10"]

    off = client.post(f"{COUPONS}{fixed['id']}/deactivate/", headers=admin_headers)
    assert off.status_code == 200 and off.json()["active"] is False and off.json()["status"] == "inactive"
    assert coupon_row("FIVE").active is False
    statuses = {c["code"]: c["status"] for c in client.get(COUPONS, headers=admin_headers).json()["results"]}
    assert statuses == {"FIVE": "inactive", "WELCOME10": "active"}
    assert [c["code"] for c in client.get(COUPONS, headers=admin_headers, params={"status": "inactive"}).json()[
        "results"]] == ["FIVE"]
    on = client.patch(f"{COUPONS}{fixed['id']}/", headers=admin_headers, json={"active": True})
    assert on.json()["status"] == "active"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"code": "", "kind": "percent", "value": "10"}, "code"),
        ({"code": "HAS SPACE", "kind": "percent", "value": "10"}, "code"),
        ({"code": "K", "kind": "bogus", "value": "10"}, "kind"),
        ({"code": "K", "kind": "percent", "value": "0"}, "value"),
        ({"code": "K", "kind": "percent", "value": "101"}, "value"),
        ({"code": "K", "kind": "fixed", "value": "-2"}, "value"),
        ({"code": "K", "kind": "fixed", "value": "1.005"}, "value"),
        ({"code": "K", "kind": "fixed", "value": True}, "value"),
        ({"code": "K", "kind": "fixed", "value": "5", "expires_at": "2020-01-01"}, "expires_at"),
        ({"code": "K", "kind": "fixed", "value": "5", "expires_at": "soon"}, "expires_at"),
        ({"code": "K", "kind": "fixed", "value": "5", "usage_limit": 0}, "usage_limit"),
        ({"code": "K", "kind": "fixed", "value": "5", "usage_limit": "many"}, "usage_limit"),
        ({"code": "K", "kind": "fixed", "value": "5", "min_subtotal": "-1"}, "min_subtotal"),
        ({"code": "K", "kind": "fixed", "value": "5", "active": "yes"}, "active"),
    ],
)
def test_invalid_coupons_are_refused_per_field(client, admin_headers, body, field):
    response = client.post(COUPONS, headers=admin_headers, json=body)
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert count_rows(models.Coupon) == 0


def test_codes_are_unique_and_fixed_fields_do_not_change(client, admin_headers):
    first = client.post(COUPONS, headers=admin_headers, json={"code": "ONCE", "kind": "fixed", "value": "1"}).json()
    again = client.post(COUPONS, headers=admin_headers, json={"code": "once", "kind": "percent", "value": "2"})
    assert again.status_code == 400 and "already exists" in again.json()["detail"]
    changed = client.patch(f"{COUPONS}{first['id']}/", headers=admin_headers, json={"value": "50"})
    assert changed.status_code == 400
    assert coupon_row("ONCE").value == Decimal("1.00")
    assert client.patch(f"{COUPONS}nope/", headers=admin_headers, json={"active": False}).status_code == 404


def test_minimum_basket_and_usage_limit_at_checkout(client, shopper_headers, make_product, make_user):
    add_coupon("BIG", "fixed", "5")
    with session_scope() as session:
        coupon = session.exec(select(models.Coupon).where(models.Coupon.code == "BIG")).one()
        coupon.min_subtotal, coupon.usage_limit = Decimal("30.00"), 1
        session.add(coupon)
    product = make_product(price="10.00", stock=50)
    fill_cart(client, shopper_headers, (product, 2))
    too_small = place(client, shopper_headers, {"coupon_code": "big"}, expect=400)
    assert too_small["detail"] == "This coupon needs a basket of at least $30.00."
    assert coupon_row("BIG").used_count == 0 and count_rows(models.Order) == 0
    fill_cart(client, shopper_headers, (product, 1))
    order = place(client, shopper_headers, {"coupon_code": "big"})
    assert order["discount"] == "5.00" and coupon_row("BIG").used_count == 1
    # The limit is reached: the next shopper is told so and nothing is stored.
    other = make_user()
    add_address(other, is_default=True)
    other_headers = auth_headers(other)
    fill_cart(client, other_headers, (product, 3))
    used_up = place(client, other_headers, {"coupon_code": "BIG"}, expect=400)
    assert used_up["detail"] == "This coupon has reached its usage limit."
    assert count_rows(models.Order) == 1


def test_a_cancelled_order_gives_its_use_back(client, shopper_headers, make_product):
    add_coupon("ONE", "percent", "10")
    with session_scope() as session:
        coupon = session.exec(select(models.Coupon).where(models.Coupon.code == "ONE")).one()
        coupon.usage_limit = 1
        session.add(coupon)
    fill_cart(client, shopper_headers, (make_product(stock=5), 1))
    order = place(client, shopper_headers, {"coupon_code": "ONE"})
    assert coupon_row("ONE").used_count == 1
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=shopper_headers).status_code == 200
    assert coupon_row("ONE").used_count == 0


SHOPPERS = 12
LIMIT = 3


def test_concurrent_checkouts_never_exceed_the_usage_limit(api_app, client, make_user, make_product):
    add_coupon("RUSH", "percent", "20")
    with session_scope() as session:
        coupon = session.exec(select(models.Coupon).where(models.Coupon.code == "RUSH")).one()
        coupon.usage_limit = LIMIT
        session.add(coupon)
    product = make_product(name="Rush Item", stock=100)
    headers = []
    for _ in range(SHOPPERS):
        user = make_user()
        add_address(user, is_default=True)
        headers.append(auth_headers(user))
        fill_cart(client, headers[-1], (product, 1))

    def shop(own_client, shopper_headers: dict) -> tuple[int, dict]:
        response = own_client.post("/api/orders/checkout/", json={"coupon_code": "rush"}, headers=shopper_headers)
        return response.status_code, response.json()

    results = at_once(api_app, shop, headers)

    statuses = Counter(status for status, _body in results)
    # The winners got the coupon; the others were told it is used up (400 once counted, or 409
    # when they lost the race for the last use) and no order of theirs was stored.
    assert statuses[201] == LIMIT and statuses[400] + statuses[409] == SHOPPERS - LIMIT, results
    assert all(body["detail"] == "This coupon has reached its usage limit." for status, body in results if status != 201)
    assert coupon_row("RUSH").used_count == LIMIT
    with session_scope() as session:
        assert session.exec(select(models.Order.coupon_code)).all() == ["RUSH"] * LIMIT
        assert session.get(models.Product, product.id).stock == 100 - LIMIT
