"""POST /api/products/bulk-upload/: JSON and CSV uploads, row errors, limits, all-or-nothing insertion."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlmodel import select

from discount_deals.db import session_scope
from discount_deals.models import Product
from discount_deals.services import bulk_import
from discount_deals.services.bulk_import import CHUNK_ROWS
from discount_deals.config.settings import get_settings

from ..support.faults import refused_inserts

URL = "/api/products/bulk-upload/"


@pytest.fixture
def groceries(make_category):
    return make_category("Groceries")


def stored() -> dict[str, Product]:
    with session_scope() as session:
        return {p.name: p for p in session.exec(select(Product)).all()}


def upload_csv(client, headers, data: bytes, url: str = URL):
    return client.post(url, files={"file": ("products.csv", data, "text/csv")}, headers=headers)


@contextmanager
def failing_insert_of(name: str) -> Iterator[None]:
    """A database trigger that refuses to insert a product called ``name`` (a crash mid-upload)."""
    with refused_inserts("product", "test_refuse_product", "injected failure", where=f"NEW.name = '{name}'",
                         errcode="23514"):
        yield


@pytest.fixture
def small_limits(monkeypatch):
    """Upload limits of 5 rows and 2 KiB, to test the boundaries cheaply."""
    monkeypatch.setenv("DD_BULK_MAX_ROWS", "5")
    monkeypatch.setenv("DD_BULK_MAX_BYTES", "2048")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


# --- JSON -------------------------------------------------------------------------------------


def test_json_upload_with_valid_invalid_duplicate_and_unknown_category_rows(
    client, admin_headers, groceries, make_product
):
    make_product("Existing Rice", category=groceries)
    rows = [
        {
            "name": "Sugar 1kg",
            "description": "Brown",
            "price": "2.10",
            "category": groceries.id,
            "image_url": "",
            "tags": ["sweet"],
            "status": "active",
            "is_available": True,
            "is_featured": False,
            "stock": "12",
            "related_products": [],
        },
        {"name": "No Price", "price": "", "category": groceries.id},
        {"name": "existing rice", "price": "3.00", "category": groceries.id},
        {"name": "Salt", "price": "0.95", "category": "Unknown Aisle"},
        {"name": "Flour 2kg", "price": "3.90", "discount_price": "2.99", "category": "GROCERIES"},
        {"name": "SUGAR 1KG", "price": "2.20", "category": "groceries"},
        ["not", "an", "object"],
        {"name": "Oil", "price": "5.999", "category": "groceries", "stock": -2},
    ]
    response = client.post(URL, json={"products": rows}, headers=admin_headers)
    assert response.status_code == 201, response.text
    body = response.json()
    assert [p["name"] for p in body["created"]] == ["Sugar 1kg", "Flour 2kg"]
    # The answer lists ids and names only (10,000 full products would be megabytes of JSON).
    assert all(set(p) == {"id", "name"} for p in body["created"])
    created = read_back(client, admin_headers, body["created"][1])
    assert created["id"] and created["price"] == "3.90" and created["discount_price"] == "2.99"
    assert created["discount_percent"] == 23 and created["category"]["slug"] == "groceries"
    sugar = read_back(client, admin_headers, body["created"][0])
    assert sugar["stock"] == 12 and sugar["image_url"].endswith(get_settings().placeholder_image_url)
    errors = {e["index"]: e["errors"] for e in body["errors"]}
    assert sorted(errors) == [1, 2, 3, 5, 6, 7]
    assert errors[1] == {"price": ["This field is required."]}
    assert "already exists" in errors[2]["name"][0]
    assert errors[3] == {"category": ['Category "Unknown Aisle" not found.']}
    assert "already exists" in errors[5]["name"][0]
    assert errors[6] == {"non_field_errors": ["Each product must be an object."]}
    assert set(errors[7]) == {"price", "stock"}
    assert set(stored()) == {"Existing Rice", "Sugar 1kg", "Flour 2kg"}
    # Derived columns are right for bulk rows too.
    flour = stored()["Flour 2kg"]
    assert flour.name_key == "flour 2kg" and float(flour.effective_price) == 2.99 and flour.discount_percent == 23
    listed = client.get("/api/products/", params={"search": "flour", "price_range": "0-25"}).json()["results"]
    assert listed[0]["id"] == created["id"]


def test_upload_with_no_valid_row_is_a_400_that_still_lists_the_errors(client, admin_headers, groceries, make_product):
    make_product("Dup", category=groceries)
    response = client.post(
        URL, json={"products": [{"name": "dup", "price": "1", "category": "groceries"}]}, headers=admin_headers
    )
    assert response.status_code == 400
    body = response.json()
    assert body["created"] == []
    assert body["errors"][0]["index"] == 0 and "already exists" in body["errors"][0]["errors"]["name"][0]
    assert body["detail"]
    assert set(stored()) == {"Dup"}


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ({"products": []}, 400),
        ({"products": "Rice"}, 400),
        ({"items": []}, 400),
        ("just text", 400),
    ],
)
def test_malformed_upload_bodies_are_400(client, admin_headers, payload, status):
    response = client.post(URL, json=payload, headers=admin_headers)
    assert response.status_code == status
    assert "detail" in response.json()


def test_invalid_json_and_bare_arrays(client, admin_headers, groceries):
    bad = client.post(URL, content=b"[{", headers={**admin_headers, "Content-Type": "application/json"})
    assert bad.status_code == 400 and bad.json()["detail"] == "Invalid JSON body."
    bare = client.post(URL, json=[{"name": "Bare", "price": "1", "category": "groceries"}], headers=admin_headers)
    assert bare.status_code == 201 and bare.json()["created"][0]["name"] == "Bare"


def test_related_products_in_an_upload_must_exist(client, admin_headers, groceries, make_product):
    other = make_product("Other", category=groceries)
    rows = [
        {"name": "Linked", "price": "1", "category": "groceries", "related_products": [other.id]},
        {"name": "Dangling", "price": "1", "category": "groceries", "related_products": ["missing-id"]},
    ]
    body = client.post(URL, json={"products": rows}, headers=admin_headers).json()
    assert [read_back(client, admin_headers, p)["related_products"] for p in body["created"]] == [[other.id]]
    assert body["errors"] == [{"index": 1, "errors": {"related_products": ["Products not found: missing-id."]}}]


def read_back(client, headers, created: dict) -> dict:
    """The stored product an upload created, as the API shows it to an admin."""
    response = client.get(f"/api/products/{created['id']}", headers=headers)
    assert response.status_code == 200 and response.json()["data"]["name"] == created["name"]
    return response.json()["data"]


# --- CSV --------------------------------------------------------------------------------------

CSV = (
    "name,description,price,discount_price,category,image_url,tags,status,is_available,is_featured,stock,related_products\n"
    "\n"
    'Milo 400g,"Chocolate malt, ""family"" size",6.80,5.10,Beverages,https://example.com/milo.jpg,"drinks, malt",active,true,TRUE,"25",\n'
    "\n"
    "Tea 100 bags,Black tea,4.50,,beverages,,,inactive,false,false,3,\n"
    "Bad Price,x,abc,,beverages,,,,true,yes,1,\n"
    "milo 400G,dup in file,1.00,,beverages,,,,,,,\n"
    "Lost,x,1.00,,Nowhere,,,,,,,\n"
    "\n"
)


def test_csv_upload_follows_the_spec_rules(client, admin_headers, make_category):
    beverages = make_category("Beverages")
    response = upload_csv(client, admin_headers, CSV.encode())
    assert response.status_code == 201, response.text
    body = response.json()
    milo, tea = (read_back(client, admin_headers, p) for p in body["created"])
    assert milo["name"] == "Milo 400g" and milo["description"] == 'Chocolate malt, "family" size'
    assert milo["price"] == "6.80" and milo["discount_price"] == "5.10" and milo["stock"] == 25
    assert milo["tags"] == ["drinks", "malt"] and milo["related_products"] == []
    assert milo["is_available"] is True and milo["is_featured"] is True
    assert milo["category"]["id"] == beverages.id
    assert tea["discount_price"] is None and tea["status"] == "inactive"
    assert tea["is_available"] is False and tea["is_featured"] is False and tea["tags"] == []
    # Indexes count data rows only: blank lines are skipped.
    errors = {e["index"]: e["errors"] for e in body["errors"]}
    assert sorted(errors) == [2, 3, 4]
    assert errors[2] == {"price": ["Enter a valid amount, e.g. 12.50."]}
    assert "already exists" in errors[3]["name"][0]
    assert errors[4] == {"category": ['Category "Nowhere" not found.']}
    assert set(stored()) == {"Milo 400g", "Tea 100 bags"}


def test_csv_booleans_read_true_false_yes_no_1_0_and_refuse_the_rest(client, admin_headers, make_category):
    """Issue 32 item 15: true/yes/1 and false/no/0 in any case (blank is false, SPEC §5);
    anything else is the row's problem, not a silent false."""
    make_category("Misc")
    lines = ["name,price,category,is_available,is_featured"]
    values = ["true", "TRUE", "Yes", "1", "false", "NO", "0", "", "t", "on", "maybe"]
    lines += [f"P{n},1.00,misc,{value},{value}" for n, value in enumerate(values)]
    body = upload_csv(client, admin_headers, "\n".join(lines).encode()).json()
    created = [read_back(client, admin_headers, p) for p in body["created"]]
    assert [(p["name"], p["is_available"], p["is_featured"]) for p in created] == [
        (f"P{n}", n < 4, n < 4) for n in range(8)
    ]
    assert [error["index"] for error in body["errors"]] == [8, 9, 10]
    assert body["errors"][0]["errors"] == {"is_available": [bulk_import.FLAG_MESSAGE],
                                           "is_featured": [bulk_import.FLAG_MESSAGE]}
    assert bulk_import.FLAG_MESSAGE == "Must be true, false, yes, no, 1 or 0."


def test_csv_with_a_byte_order_mark_and_crlf_line_ends(client, admin_headers, make_category):
    make_category("Misc")
    data = "\ufeffname,price,category\r\nWindows Row,1.50,misc\r\n\r\n".encode()
    response = upload_csv(client, admin_headers, data)
    assert response.status_code == 201 and response.json()["created"][0]["name"] == "Windows Row"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The CSV file is empty"),
        (b"name,price\n\xff\xfe,1\n", "UTF-8"),
        (b'name,price,category\n"unterminated,1,misc\n', "could not be read"),
        # A column named twice was half read without a word (the first price kept, the second dropped).
        (b"name,price,category,price\nRice,10.00,Groceries,99.00\n", 'names the column "price" twice'),
        (b"name,Price,category,price\nRice,10.00,Groceries,99.00\n", 'names the column "price" twice'),
    ],
)
def test_unreadable_csv_is_a_400(client, admin_headers, data, message):
    response = upload_csv(client, admin_headers, data)
    assert response.status_code == 400
    assert message in response.json()["detail"]


def test_multipart_without_a_file_is_a_400(client, admin_headers):
    response = client.post(
        URL, data={"other": "x"}, files={"upload": ("x.csv", b"a", "text/csv")}, headers=admin_headers
    )
    assert response.status_code == 400 and response.json()["detail"] == "Please select a CSV file"


# --- limits -----------------------------------------------------------------------------------


def test_more_than_20000_rows_is_a_400(client, admin_headers):
    assert get_settings().bulk_max_rows == 20_000
    rows = [{"name": f"P{n}", "price": "1", "category": "x"} for n in range(20_001)]
    response = client.post(URL, json={"products": rows}, headers=admin_headers)
    assert response.status_code == 400
    assert response.json()["detail"] == "Too many rows: at most 20,000 products per upload (got 20,001)."
    csv = ("name,price,category\n" + "".join(f"P{n},1,x\n" for n in range(20_001))).encode()
    response = upload_csv(client, admin_headers, csv)
    assert response.status_code == 400 and "Too many rows" in response.json()["detail"]
    assert stored() == {}


def test_more_than_10_megabytes_is_a_413(client, admin_headers):
    assert get_settings().bulk_max_bytes == 10 * 1024 * 1024
    padding = "x" * (10 * 1024 * 1024)
    response = client.post(URL, json={"products": [{"name": "Big", "description": padding}]}, headers=admin_headers)
    assert response.status_code == 413
    assert response.json()["detail"] == "The upload is too large: at most 10 MB per upload."
    csv = f"name,price,category,description\nBig,1,x,{padding}\n".encode()
    assert upload_csv(client, admin_headers, csv).status_code == 413
    assert stored() == {}


def test_limits_are_inclusive_boundaries(client, admin_headers, make_category, small_limits):
    make_category("Misc")
    five = [{"name": f"P{n}", "price": "1", "category": "misc"} for n in range(5)]
    assert client.post(URL, json={"products": five}, headers=admin_headers).status_code == 201
    six = [{"name": f"Q{n}", "price": "1", "category": "misc"} for n in range(6)]
    assert client.post(URL, json={"products": six}, headers=admin_headers).status_code == 400
    exact = b"name,price,category,description\nR,1,misc," + b"y" * 2000
    exact += b"y" * (2048 - len(exact))
    assert upload_csv(client, admin_headers, exact).status_code == 201
    assert upload_csv(client, admin_headers, exact + b"y").status_code == 413
    # A JSON body over the limit sent without a Content-Length header is cut off while streaming.
    body = json.dumps(
        {"products": [{"name": "S", "price": "1", "category": "misc", "description": "z" * 3000}]}
    ).encode()
    streamed = client.post(
        URL, content=iter([body[:1000], body[1000:]]), headers={**admin_headers, "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert len(stored()) == 6


# --- all or nothing ---------------------------------------------------------------------------


def test_a_database_failure_mid_upload_leaves_no_rows(client, admin_headers, make_category):
    make_category("Misc")
    rows = [{"name": f"Row {n}", "price": "1.00", "category": "misc"} for n in range(CHUNK_ROWS + 500)]
    rows[CHUNK_ROWS + 250]["name"] = "Boom"  # in the second batch: the first one was already written
    with failing_insert_of("Boom"):
        response = client.post(URL, json={"products": rows}, headers=admin_headers)
    assert response.status_code == 409, response.text
    assert response.json()["detail"].startswith("Nothing was imported")
    assert stored() == {}
    # Without the failure, every row goes in.
    response = client.post(URL, json={"products": rows}, headers=admin_headers)
    assert response.status_code == 201 and len(response.json()["created"]) == CHUNK_ROWS + 500
    assert len(stored()) == CHUNK_ROWS + 500
