"""A NUL character in any query or path parameter is a 400 naming it, on every route (except
the storefront's search words, which its tokeniser splits on it).

PostgreSQL refuses NUL in a text parameter, so ``GET /api/admin/coupons/?search=%00`` was a 500
there (found by schemathesis); SQLite let it through. One dependency of the API refuses it
before any handler runs, so a new route is covered without thinking of it.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from discount_deals.api import create_api
from discount_deals.api.bodies import NUL_IN_PARAMETER

from ..builders.accounts import auth_headers

SOME_ID = "00000000-0000-4000-8000-000000000000"


@cache
def _operations() -> tuple[tuple[str, str, str], ...]:
    """(method, path, query parameter) of every query parameter of every operation in the OpenAPI
    document, and (method, path, "") for an operation without any."""
    document = create_api().openapi()
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            queries = [p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"]
            found += [(method, "/api" + path, query) for query in queries or [""]]
    return tuple(sorted(found))


def test_the_route_table_is_enumerated():
    operations = _operations()
    assert ("get", "/api/admin/coupons/", "search") in operations
    assert ("get", "/api/products/", "brand") in operations
    assert len([op for op in operations if op[2]]) >= 30


# The storefront's search box reads words: a NUL there separates them (test_products_search),
# and so do the facets' search and the suggestions' text (test_products_facets, _suggest).
FREE_TEXT = {("get", "/api/products/", "search"), ("get", "/api/products/facets/", "search"),
             ("get", "/api/products/suggest/", "q")}


@pytest.mark.parametrize(("method", "path", "query"), [op for op in _operations() if op[2] and op not in FREE_TEXT])
def test_a_nul_in_a_query_parameter_is_a_400_naming_it(client, admin, method, path, query):
    url = re.sub(r"\{[^}]+\}", SOME_ID, path)
    answer = client.request(method.upper(), url, params={query: "a\x00b"}, headers=auth_headers(admin))
    assert answer.status_code == 400, answer.text
    assert answer.json()[query] == [NUL_IN_PARAMETER]


@pytest.mark.parametrize(("method", "path"), sorted({(m, p) for m, p, _q in _operations() if "{" in p}))
def test_a_nul_in_a_path_parameter_is_never_a_500(client, admin, method, path):
    url = re.sub(r"\{[^}]+\}", "a%00b", path, count=1)
    url = re.sub(r"\{[^}]+\}", SOME_ID, url)
    answer = client.request(method.upper(), url, headers=auth_headers(admin))
    assert answer.status_code in (400, 404, 405), answer.text


def test_the_admin_searches_still_find_what_they_should(client, admin_headers):
    created = client.post("/api/admin/coupons/", json={"code": "SALE10", "kind": "percent", "value": "10"},
                          headers=admin_headers)
    assert created.status_code == 201, created.text
    found = client.get("/api/admin/coupons/", params={"search": "sale"}, headers=admin_headers).json()
    assert [row["code"] for row in found["results"]] == ["SALE10"]
    assert client.get("/api/admin/coupons/", params={"search": "\x00"}, headers=admin_headers).status_code == 400


# --- a NUL in a JSON body's text -------------------------------------------------------------
# PostgreSQL refuses NUL in any text a query is sent, so a body field that reaches a lookup
# unvalidated was a 500 there: {"product": "\u0000"} to /api/favorites/ and a coupon code at
# checkout (both found by schemathesis). Each field either refuses it, cleans it away, or finds
# nothing with it; never a 500. Every text field of every JSON body in the OpenAPI document is
# tried, alone, so a new field is covered without thinking of it.


def _resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    for option in schema.get("anyOf", []):  # "X | None": the object one
        if "properties" in _resolve(document, option):
            return _resolve(document, option)
    return schema


def _kinds(schema: dict) -> set:
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind}


def _text_fields(document: dict, schema: dict, prefix: tuple = ()) -> list[tuple]:
    """Paths to the text fields of a body schema (into nested objects and arrays of objects)."""
    schema = _resolve(document, schema)
    found = []
    for name, field in schema.get("properties", {}).items():
        field = _resolve(document, field)
        kinds = _kinds(field) | {kind for option in field.get("anyOf", []) for kind in _kinds(_resolve(document, option))}
        if "string" in kinds or (not kinds - {None} and "properties" not in field):
            found.append((*prefix, name))
        if "properties" in field:
            found += _text_fields(document, field, (*prefix, name))
        if "array" in _kinds(field) and "properties" in _resolve(document, field.get("items", {})):
            found += _text_fields(document, field["items"], (*prefix, name, 0))
    return found


# Bodies documented as free objects (the original client's payloads): their fields by hand.
PRODUCT_FIELDS = ("name", "description", "brand", "category", "price", "discount_price", "discount_start",
                  "discount_end", "image_url", "tags", "related_products", "status", "stock", "rating")
FREE_OBJECT_FIELDS = {
    ("post", "/api/admin/coupons/"): ("code", "kind", "value", "expires_at", "usage_limit", "min_subtotal"),
    ("patch", "/api/admin/coupons/{coupon_id}/"): ("expires_at", "usage_limit", "min_subtotal"),
    ("post", "/api/category/"): ("name", "slug", "description", "parent"),
    ("patch", "/api/category/{category_id}/"): ("name", "slug", "description", "parent"),
    ("post", "/api/products/"): PRODUCT_FIELDS,
    ("put", "/api/products/{product_id}/"): PRODUCT_FIELDS,
    ("patch", "/api/products/{product_id}/"): PRODUCT_FIELDS,
    ("post", "/api/pickup-stores/"): ("name", "retailer", "address", "city", "phone", "opening_hours"),
    ("patch", "/api/pickup-stores/{store_id}/"): ("name", "retailer", "address", "city", "phone", "opening_hours"),
}


@cache
def _body_fields() -> tuple[tuple[str, str, tuple], ...]:
    document = create_api().openapi()
    found = [(method, path, (name,)) for (method, path), names in FREE_OBJECT_FIELDS.items() for name in names]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if content:
                found += [(method, "/api" + path, field) for field in _text_fields(document, content["schema"])]
    return tuple(sorted(set(found), key=str))


def _body(field: tuple) -> object:
    value: object = "a\x00b"
    for part in reversed(field):
        value = [value] if isinstance(part, int) else {part: value}
    return value


def test_the_body_fields_are_enumerated():
    fields = _body_fields()
    assert ("post", "/api/favorites/", ("product",)) in fields
    assert ("post", "/api/orders/checkout/", ("coupon_code",)) in fields
    assert len(fields) >= 120
    assert set(FREE_OBJECT_FIELDS) <= {(method, path) for method, path, _query in _operations()}


@pytest.mark.parametrize(("method", "path", "field"), _body_fields())
def test_a_nul_in_a_body_field_is_never_a_500(client, admin, method, path, field):
    url = re.sub(r"\{[^}]+\}", SOME_ID, path)
    answer = client.request(method.upper(), url, json=_body(field), headers=auth_headers(admin))
    assert answer.status_code < 500, answer.text
