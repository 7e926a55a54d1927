"""Admin product writes over HTTP: permissions, create, update (PUT and PATCH), delete, validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from discount_deals.db import session_scope
from discount_deals.models import Category, Product
from discount_deals.config.settings import get_settings


@pytest.fixture
def groceries(make_category) -> Category:
    return make_category("Groceries")


# A discount window around today (datetime-local text, as the admin form sends it, read as UTC).
WINDOW_START = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
WINDOW_END = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")


def valid_body(group: Category, **overrides) -> dict:
    body = {
        "name": "Royal Rice 5kg",
        "description": "Fragrant rice",
        "price": "12.50",
        "discount_price": "9.99",
        "discount_start": WINDOW_START,
        "discount_end": WINDOW_END,
        "image_url": "https://example.com/rice.jpg",
        "category": group.id,
        "tags": ["rice", " staples ", ""],
        "status": "active",
        "is_available": True,
        "is_featured": True,
        "stock": 12,
        "related_products": [],
    }
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not ...}


def product_count() -> int:
    with session_scope() as session:
        return len(session.exec(select(Product.id)).all())


# --- permissions ------------------------------------------------------------------------------


def write_calls(product_id: str):
    return [
        ("post", "/api/products/", {"json": {"name": "X", "price": "1.00", "category": "x"}}),
        ("put", f"/api/products/{product_id}/", {"json": {"name": "X", "price": "1.00", "category": "x"}}),
        ("patch", f"/api/products/{product_id}/", {"json": {"stock": 1}}),
        ("delete", f"/api/products/{product_id}", {}),
        ("post", "/api/products/bulk-upload/", {"json": {"products": [{"name": "X", "price": "1", "category": "x"}]}}),
        (
            "post",
            "/api/products/bulk-upload/",
            {"files": {"file": ("p.csv", b"name,price,category\nX,1,x\n", "text/csv")}},
        ),
        ("post", "/api/category/", {"json": {"id": "", "name": "New", "slug": "new"}}),
        (
            "post",
            "/api/category/bulk-upload/",
            {"json": {"categories": [{"name": "N", "slug": "n", "description": "d"}]}},
        ),
    ]


def test_every_write_endpoint_is_401_for_guests_and_403_for_customers(client, make_product, customer_headers):
    product = make_product("Keep Me", stock=3)
    for method, path, kwargs in write_calls(product.id):
        anonymous = client.request(method.upper(), path, **kwargs)
        assert anonymous.status_code == 401, (method, path)
        assert anonymous.headers.get("www-authenticate") == "Bearer"
        assert client.request(method.upper(), path, headers=customer_headers, **kwargs).status_code == 403, (
            method,
            path,
        )
    with session_scope() as session:
        assert session.exec(select(Product.name, Product.stock)).all() == [("Keep Me", 3)]
        assert len(session.exec(select(Category)).all()) == 1


# --- create -----------------------------------------------------------------------------------


def test_create_returns_201_with_the_product_under_data(client, admin_headers, groceries):
    response = client.post("/api/products/", json=valid_body(groceries), headers=admin_headers)
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert data["name"] == "Royal Rice 5kg" and data["price"] == "12.50" and data["discount_price"] == "9.99"
    assert data["discount_percent"] == 20
    assert data["discount_start"].startswith(WINDOW_START) and data["discount_end"].startswith(WINDOW_END)
    assert data["discount_active"] is True and data["discount_state"] == "active" and data["effective_price"] == "9.99"
    assert data["tags"] == ["rice", "staples"] and data["stock"] == 12 and data["is_featured"] is True
    assert data["category"] == {"id": groceries.id, "name": "Groceries", "slug": "groceries"}
    assert client.get(f"/api/products/{data['id']}").json()["data"] == data
    # Derived columns are right, so the SQL filters find it at its effective price.
    assert [p["id"] for p in client.get("/api/products/?price_range=0-25").json()["results"]] == [data["id"]]


@pytest.mark.parametrize("reference", ["id", "slug", "name", "NAME"])
def test_create_accepts_the_category_as_id_slug_or_name(client, admin_headers, groceries, reference):
    value = {"id": groceries.id, "slug": "groceries", "name": "Groceries", "NAME": "GROCERIES"}[reference]
    response = client.post("/api/products/", json=valid_body(groceries, category=value), headers=admin_headers)
    assert response.status_code == 201
    assert response.json()["data"]["category"]["id"] == groceries.id


def test_minimal_create_takes_defaults_and_the_placeholder_image(client, admin_headers, groceries):
    response = client.post(
        "/api/products/",
        json={"name": "Plain", "price": 3, "category": "groceries", "image_url": "  "},
        headers=admin_headers,
    )
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["price"] == "3.00" and data["discount_price"] is None and data["stock"] == 0
    assert data["status"] == "active" and data["is_available"] is True and data["is_featured"] is False
    assert data["tags"] == [] and data["related_products"] == [] and data["description"] == ""
    assert data["image_url"] == f"http://testserver{get_settings().placeholder_image_url}"
    absent = client.post(
        "/api/products/", json={"name": "Plain 2", "price": "3", "category": "groceries"}, headers=admin_headers
    )
    assert absent.json()["data"]["image_url"] == data["image_url"]


def test_blank_optional_fields_from_the_admin_form_are_omitted(client, admin_headers, groceries):
    body = valid_body(groceries, discount_price="", discount_start="", discount_end="", stock="")
    response = client.post("/api/products/", json=body, headers=admin_headers)
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["discount_price"] is None and data["discount_start"] is None and data["stock"] == 0


def test_related_products_must_exist(client, admin_headers, groceries, make_product):
    other = make_product("Other", category=groceries)
    ok = client.post("/api/products/", json=valid_body(groceries, related_products=[other.id]), headers=admin_headers)
    assert ok.status_code == 201 and ok.json()["data"]["related_products"] == [other.id]
    bad = client.post(
        "/api/products/",
        json=valid_body(groceries, name="Another", related_products=[other.id, "nope"]),
        headers=admin_headers,
    )
    assert bad.status_code == 400
    assert bad.json()["related_products"] == ["Products not found: nope."]


# --- validation -------------------------------------------------------------------------------


def test_required_fields_are_named(client, admin_headers):
    response = client.post("/api/products/", json={"description": "no name"}, headers=admin_headers)
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "Please fill in all required fields: name, price, category."
    assert body["name"] == body["price"] == body["category"] == ["This field is required."]
    blank = client.post("/api/products/", json={"name": "  ", "price": "", "category": ""}, headers=admin_headers)
    assert blank.status_code == 400 and {"name", "price", "category"} <= set(blank.json())


def test_a_discount_price_equal_to_the_price_means_no_discount(client, admin_headers, groceries):
    """Retailer feeds carry discount_price = price for undiscounted lines: accepted, no badge."""
    response = client.post("/api/products/", json=valid_body(groceries, discount_price="12.50"), headers=admin_headers)
    assert response.status_code == 201, response.text
    product_id = response.json()["data"]["id"]
    stored = client.get(f"/api/products/{product_id}").json()["data"]
    assert stored["price"] == stored["discount_price"] == "12.50" and stored["discount_percent"] == 0
    listed = client.get("/api/products/", params={"price_range": "0-25", "ordering": "discount"}).json()["results"]
    assert [(p["id"], p["discount_percent"]) for p in listed] == [(product_id, 0)]


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"price": "-1.00"}, "price", "Must not be negative."),
        ({"price": "12.505"}, "price", "Use at most 2 decimal places."),
        ({"price": "twelve"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": True}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": "NaN"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": "10000000000"}, "price", "Must be less than 10,000,000,000."),
        ({"price": "1e3"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": "1_000"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": {"amount": 1}}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"discount_price": "-0.01"}, "discount_price", "Must not be negative."),
        ({"discount_price": "1.001"}, "discount_price", "Use at most 2 decimal places."),
        ({"discount_price": "13"}, "discount_price", "Discount price must not be above the price."),
        ({"discount_price": "12.51"}, "discount_price", "Discount price must not be above the price."),
        ({"discount_end": WINDOW_START}, "discount_end", "The discount end must be after the discount start."),
        ({"discount_end": "2026-11-01T10:00"}, "discount_end", "The discount end must be after the discount start."),
        ({"discount_start": "tomorrow"}, "discount_start", "Enter a valid date and time, e.g. 2026-11-30T10:00."),
        ({"stock": -1}, "stock", "Stock must be a whole number of 0 or more."),
        ({"stock": "1.5"}, "stock", "Stock must be a whole number of 0 or more."),
        ({"stock": 2.5}, "stock", "Stock must be a whole number of 0 or more."),
        ({"stock": "lots"}, "stock", "Stock must be a whole number of 0 or more."),
        ({"stock": True}, "stock", "Stock must be a whole number of 0 or more."),
        ({"stock": 2**31}, "stock", "Stock must be at most 2,147,483,647."),
        ({"status": "draft"}, "status", 'Status must be "active" or "inactive".'),
        ({"tags": "a, b"}, "tags", "Tags must be a list of text values."),
        ({"tags": ["a", 1]}, "tags", "Tags must be a list of text values."),
        ({"related_products": "abc"}, "related_products", "Related products must be a list of text values."),
        ({"related_products": ["no-such-product"]}, "related_products", "Products not found: no-such-product."),
        ({"category": "Furniture"}, "category", 'Category "Furniture" not found.'),
        ({"is_featured": "maybe"}, "is_featured", "Must be true or false."),
        ({"is_available": 3}, "is_available", "Must be true or false."),
        ({"rating": 7}, "rating", "Rating must be a number from 0 to 5."),
        (
            {"image_url": "javascript:alert(1)"},
            "image_url",
            "Enter a valid URL (http://, https:// or a path starting with /).",
        ),
        ({"name": "x" * 201}, "name", "Must be at most 200 characters."),
        ({"name": ["a list"]}, "name", "Must be text."),
        # A probe's (issue of the field): money in other scripts' digits, a name of invisible
        # characters only, tags without the text rules or any size.
        ({"price": "\u0661\u0662.\u0665\u0660"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"price": "\uff11\uff12"}, "price", "Enter a valid amount, e.g. 12.50."),
        ({"name": "\u200b\u2060"}, "name", "This field is required."),
        ({"tags": ["a\u0000b"]}, "tags", "Must not contain control characters."),
        ({"tags": ["x" * 101]}, "tags", "Ensure each item has at most 100 characters."),
        ({"tags": [f"tag{n}" for n in range(51)]}, "tags", "Ensure this list has at most 50 items."),
        ({"tags": ["5,5 kg"]}, "tags", "Tags must not contain commas."),
    ],
)
def test_each_validation_rule_answers_400_with_the_field(client, admin_headers, groceries, overrides, field, message):
    response = client.post("/api/products/", json=valid_body(groceries, **overrides), headers=admin_headers)
    assert response.status_code == 400, response.text
    assert response.json()[field] == [message]
    assert field in response.json()["detail"]
    assert product_count() == 0


@pytest.mark.parametrize(
    "overrides",
    [
        {"price": 12.5, "discount_price": 0},
        {"price": "0", "discount_price": ...},
        {"price": "12.500"},
        {"stock": "7"},
        {"stock": 0},
        {"status": "inactive"},
        {"discount_start": "2026-11-30", "discount_end": "2026-12-01T00:00:00Z"},
        {"discount_start": "2026-11-30T10:00:00+02:00", "discount_end": "2026-11-30T09:00:00Z"},
        {"image_url": "/api/media/x.webp"},
        {"is_featured": "false"},
        {"discount_start": None, "discount_end": None, "tags": None},
    ],
)
def test_acceptable_edge_values(client, admin_headers, groceries, overrides):
    response = client.post("/api/products/", json=valid_body(groceries, **overrides), headers=admin_headers)
    assert response.status_code == 201, response.text


def test_a_name_that_only_looks_like_another_is_the_same_name(client, admin_headers, groceries, make_product):
    """Full-width letters, an invisible character, a soft hyphen or another composition of "é"
    made a second product that the shop shows under the same name."""
    make_product("Royal Rice 5kg", category=groceries)
    make_product("Café Latte", category=groceries)
    for name in ("\uff32oyal Rice 5kg", "Royal Rice 5kg\u200b", "Royal R\u00adice 5kg", "Cafe\u0301 Latte"):
        response = client.post("/api/products/", json=valid_body(groceries, name=name), headers=admin_headers)
        assert response.status_code == 400, name
        assert "already exists" in response.json()["name"][0]
    assert product_count() == 2
    # Invisible characters are dropped and the rest stored composed: no name reads backwards.
    created = client.post("/api/products/", headers=admin_headers,
                          json=valid_body(groceries, name="\u202eeciR Tea", tags=["gr\u200been", "Cafe\u0301"]))
    assert created.status_code == 201, created.text
    with session_scope() as session:
        row = session.get(Product, created.json()["data"]["id"])
        assert (row.name, row.tags) == ("eciR Tea", ["green", "Caf\u00e9"])


def test_duplicate_name_is_a_400_already_exists_whatever_the_case(client, admin_headers, groceries, make_product):
    make_product("Royal Rice 5kg", category=groceries)
    for name in ("Royal Rice 5kg", "ROYAL RICE 5KG", "  royal  rice 5kg "):
        response = client.post("/api/products/", json=valid_body(groceries, name=name), headers=admin_headers)
        assert response.status_code == 400
        assert "already exists" in response.json()["detail"]
        assert "already exists" in response.json()["name"][0]
    assert product_count() == 1


@pytest.mark.parametrize("body", [[1, 2], "text", None])
def test_a_body_that_is_not_an_object_is_a_400(client, admin_headers, body):
    response = client.post("/api/products/", json=body, headers=admin_headers)
    assert response.status_code == 400


def test_invalid_json_is_a_400(client, admin_headers):
    response = client.post(
        "/api/products/", content=b"{not json", headers={**admin_headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "Invalid JSON body."


# --- update -----------------------------------------------------------------------------------


def test_put_replaces_the_form_fields_and_keeps_brand_and_rating(
    client, admin_headers, groceries, make_product, make_category
):
    product = make_product("Old Name", "20.00", "15.00", category=groceries, brand="melcom", rating=4.2, tags=["x"])
    drinks = make_category("Drinks")
    body = {"name": "New Name", "price": "30.00", "category": "Drinks", "stock": 4}  # discount fields omitted: cleared
    response = client.put(f"/api/products/{product.id}/", json=body, headers=admin_headers)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["id"] == product.id and data["name"] == "New Name"
    assert data["price"] == "30.00" and data["discount_price"] is None and data["discount_percent"] == 0
    assert data["category"]["id"] == drinks.id and data["stock"] == 4 and data["tags"] == []
    assert data["brand"] == "melcom" and data["rating"] == 4.2
    # The derived columns follow: effective price 30 now sits in the 25-50 range.
    assert [p["id"] for p in client.get("/api/products/?price_range=25-50").json()["results"]] == [product.id]
    assert client.get("/api/products/?search=old").json()["count"] == 0


def test_put_without_slash_and_own_name_in_another_case(client, admin_headers, groceries, make_product):
    product = make_product("Same Name", category=groceries)
    response = client.put(
        f"/api/products/{product.id}",
        json={"name": "SAME name", "price": "1.00", "category": "groceries"},
        headers=admin_headers,
    )
    assert response.status_code == 200 and response.json()["data"]["name"] == "SAME name"


def test_put_to_another_products_name_or_unknown_id(client, admin_headers, groceries, make_product):
    make_product("Taken", category=groceries)
    product = make_product("Mine", category=groceries)
    body = {"name": "taken", "price": "1.00", "category": "groceries"}
    response = client.put(f"/api/products/{product.id}/", json=body, headers=admin_headers)
    assert response.status_code == 400 and "already exists" in response.json()["detail"]
    assert client.put("/api/products/unknown/", json=body, headers=admin_headers).status_code == 404
    missing = client.put(f"/api/products/{product.id}/", json={"name": "Mine"}, headers=admin_headers)
    assert missing.status_code == 400 and set(missing.json()) >= {"price", "category"}


def test_patch_changes_only_the_given_fields(client, admin_headers, groceries, make_product):
    product = make_product("Patched", "20.00", "15.00", category=groceries, stock=3, brand="game")
    response = client.patch(f"/api/products/{product.id}/", json={"stock": "8"}, headers=admin_headers)
    assert response.status_code == 200
    data = response.json()["data"]
    assert (
        data["stock"] == 8
        and data["price"] == "20.00"
        and data["discount_price"] == "15.00"
        and data["brand"] == "game"
    )
    # Cross-field rules see the stored values.
    too_high = client.patch(f"/api/products/{product.id}/", json={"discount_price": "25.00"}, headers=admin_headers)
    assert too_high.status_code == 400 and too_high.json()["discount_price"] == [
        "Discount price must not be above the price."
    ]
    lower_price = client.patch(f"/api/products/{product.id}/", json={"price": "10.00"}, headers=admin_headers)
    assert lower_price.status_code == 400
    both = client.patch(
        f"/api/products/{product.id}/", json={"price": "10.00", "discount_price": "5.00"}, headers=admin_headers
    )
    assert both.status_code == 200 and both.json()["data"]["discount_percent"] == 50
    blank_name = client.patch(f"/api/products/{product.id}/", json={"name": ""}, headers=admin_headers)
    assert blank_name.status_code == 400 and blank_name.json()["name"] == ["This field is required."]
    self_related = client.patch(
        f"/api/products/{product.id}/", json={"related_products": [product.id]}, headers=admin_headers
    )
    assert self_related.status_code == 400


# --- delete -----------------------------------------------------------------------------------


def test_delete_is_204_then_404_and_drops_the_id_from_related_lists(client, admin_headers, groceries, make_product):
    doomed = make_product("Doomed", category=groceries)
    keeper = make_product("Keeper", category=groceries)
    linked = client.patch(f"/api/products/{keeper.id}/", json={"related_products": [doomed.id]}, headers=admin_headers)
    assert linked.status_code == 200
    response = client.delete(f"/api/products/{doomed.id}", headers=admin_headers)
    assert response.status_code == 204 and response.content == b""
    assert client.get(f"/api/products/{doomed.id}").status_code == 404
    assert client.delete(f"/api/products/{doomed.id}/", headers=admin_headers).status_code == 404
    assert client.get(f"/api/products/{keeper.id}").json()["data"]["related_products"] == []


def test_a_form_opened_before_orders_does_not_put_sold_stock_back(client, admin_headers, groceries, make_product,
                                                                   shopper_headers):
    """An admin opened a product at stock 3; a shopper bought all 3; the admin saved a new name with
    the form as loaded, and the stock was 3 again: 6 sold of 3. With ``stock_seen`` (the back
    office sends the stock its form showed) the orders' count stays."""
    from ..builders.checkout import fill_cart, place

    rice = make_product("Stale Form Rice", category=groceries, price="10.00", stock=3)
    form = valid_body(groceries, name="Stale Form Rice 5kg", stock=3, discount_price=None)
    fill_cart(client, shopper_headers, (rice, 3))
    place(client, shopper_headers)
    url = f"/api/products/{rice.id}/"
    kept = client.put(url, json={**form, "stock_seen": 3}, headers=admin_headers)
    assert kept.status_code == 200, kept.text
    assert stock_and_name(rice.id) == (0, "Stale Form Rice 5kg")
    typed = client.put(url, json={**form, "stock": 10, "stock_seen": 3}, headers=admin_headers)
    assert typed.status_code == 409 and typed.json()["code"] == "stock_changed"
    assert typed.json()["stock"] == ["The stock changed to 0 while you edited this product (orders, or another "
                                     "admin): check it and save again."]
    assert stock_and_name(rice.id) == (0, "Stale Form Rice 5kg")
    told = client.put(url, json={**form, "stock": 10, "stock_seen": 0}, headers=admin_headers)
    assert told.status_code == 200 and stock_and_name(rice.id) == (10, "Stale Form Rice 5kg")
    # The original client sends no stock_seen: the stock it sends is written, as before.
    assert client.put(url, json={**form, "stock": 4}, headers=admin_headers).status_code == 200
    assert stock_and_name(rice.id) == (4, "Stale Form Rice 5kg")


def stock_and_name(product_id: str) -> tuple[int, str]:
    with session_scope() as session:
        row = session.get(Product, product_id)
        return row.stock, row.name


def _stored_before_todays_rules(product_id: str, **columns) -> None:
    """Write columns as rows stored before today's rules hold them (a key by the old rule, 60 tags)."""
    from sqlalchemy import update

    with session_scope() as session:
        session.execute(update(Product).where(Product.id == product_id).values(**columns))


def test_a_product_stored_before_todays_rules_stays_editable(client, admin_headers, groceries, make_product):
    """A look-alike pair stored before (its key by the old rule) and a product with 60 tags: an
    edit that changes only the price or the stock was refused ("already exists", "at most 50")."""
    make_product("Rice", category=groceries)
    twin = make_product("Ｒｉｃｅ Twin", category=groceries)
    _stored_before_todays_rules(twin.id, name="Ｒｉｃｅ", name_key="ｒｉｃｅ",
                                tags=[f"tag{n}" for n in range(60)])
    patched = client.patch(f"/api/products/{twin.id}/", json={"price": "11.00"}, headers=admin_headers)
    assert patched.status_code == 200, patched.text
    form = valid_body(groceries, name="Ｒｉｃｅ", stock=40, tags=[f"tag{n}" for n in range(60)])
    saved = client.put(f"/api/products/{twin.id}/", json=form, headers=admin_headers)
    assert saved.status_code == 200, saved.text
    stock, name = stock_and_name(twin.id)
    with session_scope() as session:
        row = session.get(Product, twin.id)
        assert (stock, name, row.name_key, len(row.tags)) == (40, "Ｒｉｃｅ", "ｒｉｃｅ", 60)
    # A new list is held to the limit; a new name to today's key.
    more = client.patch(f"/api/products/{twin.id}/", json={"tags": [f"new{n}" for n in range(60)]},
                        headers=admin_headers)
    assert more.status_code == 400 and more.json()["tags"] == ["Ensure this list has at most 50 items."]
    renamed = client.patch(f"/api/products/{twin.id}/", json={"name": "RICE"}, headers=admin_headers)
    assert renamed.status_code == 400 and "already exists" in renamed.json()["name"][0]


def test_the_stock_the_form_showed_may_come_as_text_and_a_stock_typed_as_it_is_now_is_kept(
        client, admin_headers, groceries, make_product):
    beans = make_product("Seen Beans", category=groceries, stock=5)
    form = valid_body(groceries, name="Seen Beans", discount_price=None)
    _stored_before_todays_rules(beans.id, stock=15)  # restocked while the form was open
    assert client.put(f"/api/products/{beans.id}/", json={**form, "stock": "5", "stock_seen": "5"},
                      headers=admin_headers).status_code == 200
    assert stock_and_name(beans.id)[0] == 15
    typed = client.put(f"/api/products/{beans.id}/", json={**form, "stock": 15, "stock_seen": 5}, headers=admin_headers)
    assert typed.status_code == 200 and stock_and_name(beans.id)[0] == 15
    bad = client.put(f"/api/products/{beans.id}/", json={**form, "stock": 9, "stock_seen": "lots"}, headers=admin_headers)
    assert bad.status_code == 400 and "stock_seen" in bad.json() and stock_and_name(beans.id)[0] == 15
