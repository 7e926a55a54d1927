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
