"""Issue 13 item 2: every JSON body goes through one bounded parser (nesting ≤ 32 levels,
a size limit per endpoint): hostile bodies answer 400 or 413 with a message, never a 500."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from discount_deals import bounded_json, models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.shop import add_address

TOO_DEEP = "Invalid JSON body: nested more than 32 levels deep."
BRACKETS = b"[" * 5000 + b"]" * 5000  # 10 kB: far past Python's recursion limit


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth - 1):
        value = [value]
    return [value] if depth else 1


def test_the_parser_accepts_32_levels_and_refuses_33():
    assert bounded_json.parse(json.dumps(_nested(32)).encode()) == _nested(32)
    with pytest.raises(bounded_json.TooDeep):
        bounded_json.parse(json.dumps(_nested(33)))
    with pytest.raises(bounded_json.TooDeep):
        bounded_json.parse(BRACKETS)
    with pytest.raises(bounded_json.TooDeep):
        bounded_json.parse(b'{"a":' * 40 + b"1" + b"}" * 40)
    with pytest.raises(bounded_json.InvalidJSON):
        bounded_json.parse(b"\xff\xfe")


def _profile_url(client, headers) -> str:
    return f"/api/users/profiles/{client.get('/api/users/me/', headers=headers).json()['profile']['id']}/"


def test_deep_bodies_to_the_profile_are_400(client, customer):
    headers = {**auth_headers(customer), "Content-Type": "application/json"}
    url = _profile_url(client, headers)
    for body in (BRACKETS, json.dumps({"bio": _nested(40)}).encode()):
        answer = client.patch(url, content=body, headers=headers)
        assert answer.status_code == 400
        assert answer.json() == {"detail": TOO_DEEP}


@pytest.mark.parametrize("path", ["/api/products/bulk-upload/", "/api/category/bulk-upload/"])
def test_deep_bodies_to_the_bulk_uploads_are_400(client, admin, path):
    headers = {**auth_headers(admin), "Content-Type": "application/json"}
    answer = client.post(path, content=BRACKETS, headers=headers)
    assert answer.status_code == 400
    assert answer.json()["detail"] == TOO_DEEP
    with session_scope() as session:
        assert session.exec(select(models.Product.id)).all() == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/users/addresses/"),
        ("post", "/api/cart/cartitems/"),
        ("post", "/api/orders/checkout/"),
        ("post", "/api/auth/token/"),
        ("post", "/api/users/register/"),
        ("post", "/api/products/"),
        ("post", "/api/pickup-stores/"),
    ],
)
def test_every_json_endpoint_refuses_deep_bodies_with_400(client, admin, method, path):
    headers = {**auth_headers(admin), "Content-Type": "application/json"}
    answer = getattr(client, method)(path, content=BRACKETS, headers=headers)
    assert answer.status_code == 400
    assert answer.json() == {"detail": TOO_DEEP}


def test_bodies_over_the_endpoint_limit_are_413(client, customer, admin):
    headers = {**auth_headers(customer), "Content-Type": "application/json"}
    big = json.dumps({"line1": "x" * (70 * 1024), "city": "Accra", "country": "Ghana"})
    answer = client.post("/api/users/addresses/", content=big, headers=headers)
    assert answer.status_code == 413
    assert answer.json() == {"detail": "Request body too large: at most 64 KB."}

    # Without a Content-Length (chunked), the limit holds while reading.
    def chunks():
        yield b'{"line1": "'
        for _ in range(100):
            yield b"y" * 1024
        yield b'"}'

    answer = client.post("/api/users/addresses/", content=chunks(), headers=headers)
    assert answer.status_code == 413

    # A product's long description fits its own, larger limit.
    product = {"name": "Long one", "price": "5.00", "category": "nope", "description": "d" * 200_000}
    answer = client.post("/api/products/", json=product, headers=auth_headers(admin))
    assert answer.status_code == 400 and answer.json()["category"]


# Found by the generated requests of the OpenAPI conformance test on PostgreSQL, which refuses a
# NUL character in any text it is sent: {"product": "\u0000"} was a 500 there. An id no key can
# be answers as an unknown one, on both databases, without asking the database (rows.by_id).
@pytest.mark.parametrize("product", ["\u0000", "a\u0000b", "00000000-0000-0000-0000-00000000000\u0000"])
@pytest.mark.parametrize("path", ["/api/favorites/", "/api/cart/cartitems/"])
def test_an_id_with_a_nul_character_answers_as_an_unknown_one(client, customer, path, product):
    headers = auth_headers(customer)
    unknown = client.post(path, json={"product": "00000000-0000-0000-0000-000000000000"}, headers=headers)
    answer = client.post(path, json={"product": product}, headers=headers)
    assert unknown.status_code in (400, 404)
    assert (answer.status_code, answer.json()) == (unknown.status_code, unknown.json())
    with session_scope() as session:
        assert session.exec(select(models.Favourite)).all() == []
        assert session.exec(select(models.CartItem)).all() == []


# Found by a probe on PostgreSQL: the original client's explicit order ({"order": {"items": ...}})
# sent its product ids straight into the query, so one with a NUL was a 500 there.
@pytest.mark.parametrize("product", ["\u0000", "00000000-0000-0000-0000-00000000000\u0000"])
def test_an_explicit_order_naming_an_id_with_a_nul_is_refused_as_an_unknown_product(client, customer, make_product,
                                                                                    product):
    add_address(customer, is_default=True)
    real = make_product(stock=5)
    body = {"order": {"items": [{"product": real.id, "quantity": 1}, {"product": product, "quantity": 1}]}}
    answer = client.post("/api/orders/", json=body, headers=auth_headers(customer))
    assert answer.status_code == 400 and answer.json()["detail"].endswith("not found."), answer.text
    with session_scope() as session:
        assert session.exec(select(models.Order)).all() == []
        assert session.get(models.Product, real.id).stock == 5


BROKEN = b'{"product": '


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/cart/cartitems/"), ("POST", "/api/orders/checkout/"),
                                              ("POST", "/api/products/"), ("POST", "/api/users/addresses/"),
                                              ("POST", "/api/category/bulk-upload/")])
def test_a_broken_body_without_a_valid_token_is_401_as_a_good_one_is(client, method, path):
    """The original server authenticated before it read a body; FastAPI reads it first, so a
    guest's unreadable body was a 400 that told nothing of the missing login (SPEC: protected
    endpoints answer 401 when unauthenticated)."""
    headers = {"Content-Type": "application/json"}
    for auth in ({}, {"Authorization": "Bearer not-a-token"}):
        answer = client.request(method, path, content=BROKEN, headers={**headers, **auth})
        assert answer.status_code == 401, (path, auth, answer.text)
        assert answer.headers["WWW-Authenticate"] == "Bearer"


def test_a_broken_body_on_an_admins_route_is_403_for_a_customer_and_400_for_an_admin(client, customer, admin):
    headers = {"Content-Type": "application/json"}
    for user, status in ((customer, 403), (admin, 400)):
        answer = client.post("/api/products/", content=BROKEN, headers={**headers, **auth_headers(user)})
        assert answer.status_code == status, answer.text
    for method, path in (("POST", "/api/pickup-stores/"), ("PATCH", "/api/pickup-stores/x/"),
                         ("PATCH", "/api/orders/00000000-0000-4000-8000-000000000000/")):
        answer = client.request(method, path, content=BROKEN, headers={**headers, **auth_headers(customer)})
        assert answer.status_code == 403, (path, answer.text)  # admins' routes, as with a good body
    mine = client.post("/api/cart/cartitems/", content=BROKEN, headers={**headers, **auth_headers(customer)})
    assert mine.status_code == 400  # a signed-in caller hears what is wrong with the body
    guest_listing = client.get("/api/products/", params={"page_size": "2"})
    assert guest_listing.status_code == 200
