"""Issue 20 item 7: values no field may hold are refused with a 400 naming the field, never a 500.

A lone surrogate (``"\\ud800"``) is valid JSON but not text: storing, hashing or answering it
raised UnicodeEncodeError. ``1e400`` overflows a float to infinity and ``"1e400"`` is a finite
Decimal too large to round to cents: both raised ``decimal.InvalidOperation``. The bounded
parser refuses the first two for every JSON body; the money parser refuses the third.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import cache

import pytest
from sqlmodel import select

from discount_deals import bounded_json, models
from discount_deals.api import create_api
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.payments import WEBHOOK, minor, payments_of
from ..builders.shop import add_address, add_coupon
from ..builders.rows import count_rows

SURROGATE = "\ud800"
JSON = {"Content-Type": "application/json"}
SOME_ID = "00000000-0000-4000-8000-000000000000"


@cache
def _json_operations() -> tuple[tuple[str, str, str], ...]:
    """(method, path, a field of its body) for every operation the OpenAPI document says takes JSON."""
    document = create_api().openapi()
    schemas = document.get("components", {}).get("schemas", {})
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            schema = content["application/json"].get("schema", {})
            while "$ref" in schema:
                schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
            field = next(iter(schema.get("properties", {})), "name")
            found.append((method, "/api" + path, field))
    return tuple(sorted(found))


def _url(path: str) -> str:
    # Every path parameter gets a well-formed id: bodies are parsed before anything is looked up.
    return re.sub(r"\{[^}]+\}", SOME_ID, path)


def test_the_route_table_is_enumerated():
    operations = _json_operations()
    assert len(operations) >= 28
    assert ("post", "/api/users/register/", "first_name") in operations
    assert any(path == "/api/auth/token/" for _method, path, _field in operations)


def _bodies(field: str) -> list[tuple[bytes, str]]:
    """(raw body, the field the answer must name): a surrogate in a value, nested, and in a key."""
    escaped_key = SURROGATE.encode("utf-8", "backslashreplace").decode()
    return [
        (json.dumps({field: f"A{SURROGATE}B"}).encode(), field),
        (json.dumps({field: "ok", "items": [{"name": SURROGATE}]}).encode(), "items.0.name"),
        (json.dumps({SURROGATE: "value"}).encode(), escaped_key),
    ]


@pytest.mark.parametrize(("method", "path", "field"), _json_operations())
def test_a_lone_surrogate_is_a_400_naming_the_field_on_every_json_endpoint(client, admin, method, path, field):
    headers = {**auth_headers(admin), **JSON}
    for raw, named in _bodies(field):
        answer = client.request(method.upper(), _url(path), content=raw, headers=headers)
        assert answer.status_code == 400, (raw, answer.text)
        body = answer.json()
        assert body[named] == [bounded_json.LONE_SURROGATE], body
        assert body["detail"] == f"Invalid JSON body. {named}: {bounded_json.LONE_SURROGATE}"


@pytest.mark.parametrize(("method", "path", "field"), _json_operations())
def test_a_number_out_of_range_is_a_400_naming_the_field_on_every_json_endpoint(client, admin, method, path, field):
    headers = {**auth_headers(admin), **JSON}
    for number in (b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity"):
        answer = client.request(method.upper(), _url(path), content=b'{"%s": %s}' % (field.encode(), number),
                                headers=headers)
        assert answer.status_code == 400, (number, answer.text)
        assert answer.json()[field] == [bounded_json.NOT_FINITE]


def test_register_and_login_with_a_surrogate_change_nothing(client, customer):
    answer = client.post("/api/users/register/", content=json.dumps({
        "email": "new@example.com", "username": "new", "password": f"pass{SURROGATE}word1",
        "password2": f"pass{SURROGATE}word1", "first_name": "A", "last_name": "B"}), headers=JSON)
    assert answer.status_code == 400 and answer.json()["password"] == [bounded_json.LONE_SURROGATE]
    assert count_rows(models.User) == 1
    answer = client.post("/api/auth/token/", content=json.dumps({"email": customer.email, "password": SURROGATE}),
                         headers=JSON)
    assert answer.status_code == 400 and answer.json()["password"] == [bounded_json.LONE_SURROGATE]


def test_surrogates_in_nested_arrays_and_whole_bodies_are_named():
    with pytest.raises(bounded_json.BadValue) as refused:
        bounded_json.parse(json.dumps({"order": {"items": [{"product": "x"}, {"product": SURROGATE}]}}))
    assert refused.value.field == "order.items.1.product"
    with pytest.raises(bounded_json.BadValue) as refused:
        bounded_json.parse(json.dumps(SURROGATE))
    assert refused.value.field == bounded_json.WHOLE_BODY
    # Encoded as raw UTF-8 bytes (ED A0 80) rather than escaped, it is refused the same way.
    with pytest.raises(bounded_json.InvalidJSON):
        bounded_json.parse(b'{"name": "\xed\xa0\x80"}')
    # A surrogate pair is one character (an emoji), not a lone surrogate.
    assert bounded_json.parse(b'{"name": "\\ud83d\\ude00"}') == {"name": "\U0001f600"}
    assert bounded_json.parse(b'{"a": [1e300, -1e-400, 12.5]}') == {"a": [1e300, -0.0, 12.5]}


# --- money written as text: the money parser ----------------------------------------------------

COUPONS = "/api/admin/coupons/"
HUGE = ("1e400", "-1e400", "1E+30", "NaN", "Infinity", "-Infinity", "sNaN")


@pytest.mark.parametrize("value", HUGE)
def test_coupon_values_beyond_money_are_refused(client, admin_headers, value):
    for kind in ("fixed", "percent"):
        answer = client.post(COUPONS, json={"code": "BIG", "kind": kind, "value": value}, headers=admin_headers)
        assert answer.status_code == 400, answer.text
        assert answer.json()["value"], answer.json()
    answer = client.post(COUPONS, json={"code": "BIG", "kind": "fixed", "value": "5", "min_subtotal": value},
                         headers=admin_headers)
    assert answer.status_code == 400 and answer.json()["min_subtotal"], answer.text
    assert count_rows(models.Coupon) == 0


def test_coupon_updates_beyond_money_change_nothing(client, admin_headers):
    coupon = add_coupon("KEEP", "fixed", "5")
    for raw in (b'{"min_subtotal": "1e400"}', b'{"min_subtotal": 1e400}', b'{"usage_limit": 1e400}'):
        answer = client.patch(f"{COUPONS}{coupon.id}/", content=raw, headers={**admin_headers, **JSON})
        assert answer.status_code == 400, answer.text
    with session_scope() as session:
        row = session.get(models.Coupon, coupon.id)
        assert (row.value, row.min_subtotal, row.usage_limit) == (Decimal("5.00"), None, None)


@pytest.fixture
def momo_order(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    product = make_product(price="12.00", stock=5)
    fill_cart(client, customer_headers, (product, 2))
    return place(client, customer_headers, MOMO)


@pytest.mark.parametrize("amount", [*HUGE, 10**40, -(10**40)])
def test_webhook_amounts_beyond_money_are_a_400_and_change_nothing(client, momo_order, amount):
    from discount_deals.services.payments import sign
    from discount_deals.config.settings import get_settings

    raw = json.dumps({"event": "charge.success", "data": {"reference": momo_order["payment_reference"],
                                                          "amount": amount}}).encode()
    headers = {"X-Signature": sign(raw, get_settings().checkout.webhook_secret), **JSON}
    answer = client.post(WEBHOOK, content=raw, headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"] == "Invalid webhook amount."
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"
    assert [payment.status for payment in payments_of(momo_order["id"])] == ["pending"]


def test_a_webhook_amount_that_overflows_json_is_a_400(client, momo_order):
    from discount_deals.services.payments import sign
    from discount_deals.config.settings import get_settings

    raw = b'{"event": "charge.success", "data": {"reference": "%s", "amount": 1e400}}' % (
        momo_order["payment_reference"].encode())
    headers = {"X-Signature": sign(raw, get_settings().checkout.webhook_secret), **JSON}
    answer = client.post(WEBHOOK, content=raw, headers=headers)
    assert answer.status_code == 400, answer.text
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"
    # The amount it should have been still pays the order.
    from ..builders.payments import post_webhook

    assert post_webhook(client, "charge.success", momo_order["payment_reference"],
                        minor(momo_order["total"])).status_code == 200
    assert order_row(momo_order["id"]).payment_status == "paid"


@pytest.mark.parametrize("value", HUGE)
def test_product_prices_beyond_money_are_refused(client, admin_headers, make_product, value):
    product = make_product(price="10.00")
    for field in ("price", "discount_price"):
        answer = client.patch(f"/api/products/{product.id}/", json={field: value}, headers=admin_headers)
        assert answer.status_code == 400, answer.text
        assert answer.json()[field], answer.json()
    answer = client.patch(f"/api/products/{product.id}/", content=b'{"price": 1e400}', headers={**admin_headers, **JSON})
    assert answer.status_code == 400 and answer.json()["price"] == [bounded_json.NOT_FINITE]
    with session_scope() as session:
        row = session.get(models.Product, product.id)
        assert (row.price, row.discount_price) == (Decimal("10.00"), None)


@pytest.mark.parametrize("quantity", ["1e400", b"1e400", b"-1e400", "NaN", b"NaN", 10**40])
def test_cart_quantities_beyond_range_are_refused(client, customer, customer_headers, make_product, quantity):
    product = make_product(stock=5)
    fill_cart(client, customer_headers, (product, 1))
    item = client.get("/api/cart/cartitems/", headers=customer_headers).json()
    item_id = (item["results"] if isinstance(item, dict) else item)[0]["id"]
    literal = quantity if isinstance(quantity, bytes) else json.dumps(quantity).encode()
    headers = {**customer_headers, **JSON}
    added = client.post("/api/cart/cartitems/", content=b'{"product": "%s", "quantity": %s}' % (
        product.id.encode(), literal), headers=headers)
    changed = client.patch(f"/api/cart/cartitems/{item_id}/", content=b'{"quantity": %s}' % literal, headers=headers)
    for answer in (added, changed):
        assert answer.status_code == 400, answer.text
        assert answer.json()["quantity"], answer.json()
    with session_scope() as session:
        assert session.exec(select(models.CartItem.quantity)).all() == [1]


@pytest.mark.parametrize(("value", "text"), [("99999999999", "Minimum basket is too large."),
                                             ("10000000000", "Minimum basket is too large."),
                                             ("-1", "Minimum basket must be 0 or more.")])
def test_a_minimum_basket_out_of_range_says_which_way(client, admin_headers, value, text):
    answer = client.post(COUPONS, json={"code": "BIG", "kind": "fixed", "value": "5", "min_subtotal": value},
                         headers=admin_headers)
    assert (answer.status_code, answer.json()["min_subtotal"]) == (400, [text])
    assert count_rows(models.Coupon) == 0
