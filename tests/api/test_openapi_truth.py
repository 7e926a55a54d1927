"""Issue 13 item 9: the OpenAPI document declares what the API really answers, and 405s name
every method of the path. (The generated-request suite is test_openapi_conformance.py.)"""

from __future__ import annotations

import pytest

from ..builders.accounts import auth_headers


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("get", "/api/products/bulk-upload/", "POST"),
        ("get", "/api/products/bulk-upload", "POST"),
        ("get", "/api/category/bulk-upload/", "POST"),
        ("get", "/api/orders/checkout/", "POST"),
        ("put", "/api/products/", "GET, POST"),
        ("get", "/api/cart/1/clear/", "DELETE, POST"),
        ("delete", "/api/users/me/", "GET"),
    ],
)
def test_405_lists_every_method_of_the_path(client, admin, method, path, allow):
    answer = getattr(client, method)(path, headers=auth_headers(admin))
    assert answer.status_code == 405
    assert answer.headers["allow"] == allow
    assert answer.json() == {"detail": "Method Not Allowed"}


def test_fixed_paths_are_never_taken_for_ids(client, make_product, customer):
    product = make_product()
    assert client.get(f"/api/products/{product.id}").status_code == 200
    assert client.get("/api/products/featured").status_code == 200
    assert client.get("/api/products/featured-stuff").json() == {"detail": "Product not found."}
    assert client.get("/api/orders/not-an-order/").status_code == 401
    assert client.get("/api/orders/not-an-order/", headers=auth_headers(customer)).status_code == 404


@pytest.fixture(scope="module")
def document(api_app):
    from fastapi.testclient import TestClient

    with TestClient(api_app) as client:
        return client.get("/api/openapi.json").json()


def _responses(document, path, method):
    return set(document["paths"][path][method]["responses"])


def test_every_operation_declares_its_errors(document):
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert "422" not in codes, (method, path)
            assert "503" in codes, (method, path)
            if method in ("post", "put", "patch", "delete"):
                assert "409" in codes, (method, path)
    assert _responses(document, "/users/me/", "get") == {"200", "401", "503"}
    assert {"400", "401", "403", "404", "409", "413", "503"} <= _responses(
        document, "/users/admin/users/{user_id}/", "patch"
    )
    assert {"429", "401", "400"} <= _responses(document, "/auth/token/", "post")
    assert "429" in _responses(document, "/users/register/", "post")
    # The current password is checked a limited number of times (services.auth.password_checks):
    # a fuzzed run met the 429 undocumented.
    assert "429" in _responses(document, "/users/me/close/", "post")
    assert "429" in _responses(document, "/users/users/{user_id}/", "patch")
    assert {"409", "429"} <= _responses(document, "/orders/{order_id}/pay/", "post")
    assert {"401", "400", "404"} <= _responses(document, "/products/", "get")
    assert {"201", "400", "401", "403", "409", "413"} <= _responses(document, "/products/bulk-upload/", "post")


def test_a_fixed_path_met_as_an_id_answers_its_documented_405(client, document):
    """The fuzzed conformance run sent GET /products/bulk-upload (a product id as far as the
    path goes): the upload's 405 came back, documented nowhere on the product's operations."""
    assert client.get("/api/products/bulk-upload").status_code == 405
    for method in ("get", "put", "patch", "delete"):
        assert "405" in _responses(document, "/products/{product_id}" if method in ("get", "delete")
                                   else "/products/{product_id}/", method), method
    assert "405" not in _responses(document, "/users/users/{user_id}/", "patch")  # no fixed path beside it


def test_inputs_are_documented_with_their_real_rules(document):
    parameters = {p["name"]: p for p in document["paths"]["/products/"]["get"]["parameters"]}
    assert parameters["ordering"]["schema"]["enum"][:3] == ["", "name", "-name"]
    assert "price-low" in parameters["ordering"]["schema"]["enum"]
    assert parameters["price_range"]["schema"]["enum"] == ["", "0-25", "25-50", "50-100", "100+"]
    assert parameters["search"]["schema"]["maxLength"] == 200
    assert parameters["page"]["schema"] == {"type": "integer", "minimum": 1}
    limit = document["paths"]["/products/featured"]["get"]["parameters"][0]["schema"]
    assert (limit["type"], limit["minimum"], limit["maximum"]) == ("integer", 1, 100)
    product_id = document["paths"]["/products/{product_id}"]["get"]["parameters"][0]["schema"]
    assert product_id["format"] == "uuid"
    register = document["components"]["schemas"]["RegisterIn"]
    assert set(register["required"]) >= {"first_name", "email", "password", "gender", "date_of_birth"}
    assert register["properties"]["password"]["minLength"] == 6
    assert register["properties"]["gender"]["enum"] == ["male", "female", "other"]
    headers = [p for p in document["paths"]["/products/bulk-upload/"]["post"]["parameters"] if p["in"] == "header"]
    assert headers[0]["name"] == "Idempotency-Key"
    assert document["paths"]["/orders/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/OrderPage"
    }


def test_the_search_helpers_are_documented_and_never_taken_for_ids(client, document, make_product):
    """Issue 24: suggestions and facets beside the listing, with the listing's filters."""
    make_product()
    for path in ("/api/products/suggest", "/api/products/suggest/", "/api/products/facets", "/api/products/facets/"):
        assert client.get(path).status_code == 200, path
    assert {"200", "400", "401", "503"} <= _responses(document, "/products/suggest/", "get")
    assert {"200", "400", "401", "503"} <= _responses(document, "/products/facets/", "get")
    listing = {p["name"]: p["schema"] for p in document["paths"]["/products/"]["get"]["parameters"]}
    facets = {p["name"]: p["schema"] for p in document["paths"]["/products/facets/"]["get"]["parameters"]}
    assert {"search", "category", "brand", "price_range", "discount", "in_stock", "exact"} <= set(facets)
    assert all(facets[name] == listing[name] for name in facets)
    assert listing["exact"]["enum"] == ["", "true", "false", "1", "0", "yes", "no"]
    suggest = document["paths"]["/products/suggest/"]["get"]["parameters"][0]
    assert (suggest["name"], suggest["schema"]["maxLength"]) == ("q", 200)


@pytest.mark.parametrize("path", ["/api/live/", "/api/health/", "/api/products/", "/api/products/featured",
                                  "/api/category/"])
def test_head_is_answered_where_get_is(client, make_product, path):
    """RFC 9110 §9.1: a server answering GET answers HEAD (an uptime monitor's HEAD was a 405)."""
    make_product()
    got, head = client.get(path), client.head(path)
    assert (head.status_code, got.status_code) == (200, 200), head.text
    assert head.headers["content-type"] == got.headers["content-type"] and head.content == b""


def test_head_where_there_is_no_get_is_still_a_405(client):
    answer = client.head("/api/orders/checkout/")
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
