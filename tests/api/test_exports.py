"""CSV exports (issue 16): admin-only, streamed, formula-safe; the product export uploads again
through the bulk upload as it is; the order export has one line per order line."""

from __future__ import annotations

import csv
import gc
import io
import os
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.search.bulk_index import BulkLoad
from discount_deals.services import exports
from discount_deals.services.bulk_import import PRODUCT_TEMPLATE_COLUMNS, products_template
from discount_deals.services.csv_cells import escape_cell, unescape_cell

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, place
from ..builders.shop import add_address

PRODUCTS_CSV = "/api/admin/exports/products.csv"
ORDERS_CSV = "/api/admin/exports/orders.csv"


def rows_of(response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.text)))


@pytest.mark.parametrize(
    "text, escaped",
    [
        ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
        ("+233 24 123 4567", "'+233 24 123 4567"),
        ("-50% Rice", "'-50% Rice"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTabbed", "'\tTabbed"),
        ("\rReturn", "'\rReturn"),
        ("Plain Rice", "Plain Rice"),
        ("a=b", "a=b"),
        ("", ""),
        # Text the importer would read as escaped gets one more apostrophe (a probe's re-import lost it).
        ("'=Rice", "''=Rice"),
        ("'-5% off", "''-5% off"),
        ("'Twas", "'Twas"),
    ],
)
def test_formula_cells_are_escaped_and_unescaped(text, escaped):
    assert escape_cell(text) == escaped
    assert unescape_cell(escaped) == text


def test_exports_are_for_admins_only(client, customer_headers, admin, admin_headers):
    for path in (PRODUCTS_CSV, ORDERS_CSV):
        assert client.get(path).status_code == 401
        assert client.get(path, headers=customer_headers).status_code == 403
        assert client.get(path, params={"token": "not-a-token"}).status_code == 401
        # A customer's access token is no download token.
        assert client.get(path, params={"token": customer_headers["Authorization"][7:]}).status_code == 401
    products_token = exports.download_token(admin, "products")
    assert client.get(PRODUCTS_CSV, params={"token": products_token}).status_code == 200
    assert client.get(ORDERS_CSV, params={"token": products_token}).status_code == 401  # one export only


def test_a_download_token_dies_with_log_out_everywhere(client, admin, admin_headers):
    """It lived out its two minutes after the admin logged out everywhere (a probe)."""
    token = exports.download_token(admin, "products")
    assert client.post("/api/auth/logout-all/", headers=admin_headers).status_code == 200
    assert client.get(PRODUCTS_CSV, params={"token": token}).status_code == 401


def test_the_product_export_escapes_formulas_and_uploads_again_as_it_is(client, admin_headers, make_category):
    drinks = make_category("Drinks")
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    originals = [
        {"name": "=cmd|' /C calc'!A0", "description": "Line one\nline two, with \"quotes\"", "price": "12.50",
         "discount_price": "9.99", "discount_start": start.isoformat(), "discount_end": None,
         "category": "Drinks", "brand": "@melcom", "tags": ["-sale", "malt"], "stock": 7, "rating": 4.5,
         "status": "inactive", "is_available": False, "is_featured": True, "image_url": "/placeholder.webp",
         "per_customer_limit": 2},
        {"name": "Plain Water", "description": "Still", "price": "1.00", "category": "drinks", "stock": 0,
         "image_url": "https://example.com/w.jpg"},
    ]
    created = client.post("/api/products/bulk-upload/", headers=admin_headers, json={"products": originals})
    assert created.status_code == 201 and created.json()["errors"] == []

    exported = client.get(PRODUCTS_CSV, headers=admin_headers)
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    assert exported.headers["content-disposition"].startswith('attachment; filename="products-')
    # The template's columns and a flash sale's limit, which the template leaves out (a probe's re-import lost it).
    assert exported.text.splitlines()[0] == ",".join((*PRODUCT_TEMPLATE_COLUMNS, "per_customer_limit"))
    rows = {row["name"]: row for row in rows_of(exported)}
    assert set(rows) == {"'=cmd|' /C calc'!A0", "Plain Water"}  # one upload: same time, any order
    first = rows["'=cmd|' /C calc'!A0"]
    assert first["brand"] == "'@melcom" and first["tags"] == "'-sale,malt" and first["category"] == "Drinks"
    assert first["price"] == "12.50" and first["discount_price"] == "9.99"
    assert first["discount_start"] == "2026-12-01T09:00:00+00:00" and first["discount_end"] == ""
    assert (first["status"], first["is_available"], first["is_featured"], first["stock"], first["rating"]) == (
        "inactive", "false", "true", "7", "4.5")
    assert first["description"] == "Line one\nline two, with \"quotes\""

    def snapshot() -> list[tuple]:
        with session_scope() as session:
            products = session.exec(select(models.Product).order_by(models.Product.name)).all()
            return [(p.name, p.description, p.brand, p.price, p.discount_price, p.discount_start, p.discount_end,
                     p.tags, p.stock, p.rating, p.status, p.is_available, p.is_featured, p.image_url,
                     p.per_customer_limit, p.category_id)
                    for p in products]

    before = snapshot()
    with session_scope() as session:
        for product in session.exec(select(models.Product)).all():
            session.delete(product)
    again = client.post("/api/products/bulk-upload/", headers=admin_headers,
                        files={"file": ("export.csv", exported.content, "text/csv")})
    assert again.status_code == 201, again.text
    assert again.json()["errors"] == []
    assert snapshot() == before
    assert all(category_id == drinks.id for *_rest, category_id in before)


def test_a_name_typed_with_an_apostrophe_before_a_formula_sign_uploads_back_as_it_was(client, admin_headers,
                                                                                     make_category):
    """Export, then upload the file unchanged: "'=Rice" came back as "=Rice", and a product of
    the category "'=Food" was refused ('Category "=Food" not found.')."""
    food = make_category("'=Food")
    typed = {"name": "'=Rice", "brand": "'@home", "tags": ["'+233"], "description": "'-5% off", "price": "3.00",
             "category": "'=Food", "stock": 2}
    assert client.post("/api/products/bulk-upload/", headers=admin_headers,
                       json={"products": [typed]}).json()["errors"] == []
    exported = client.get(PRODUCTS_CSV, headers=admin_headers)
    with session_scope() as session:
        for product in session.exec(select(models.Product)).all():
            session.delete(product)
    again = client.post("/api/products/bulk-upload/", headers=admin_headers,
                        files={"file": ("export.csv", exported.content, "text/csv")})
    assert (again.status_code, again.json()["errors"]) == (201, [])
    with session_scope() as session:
        product = session.exec(select(models.Product)).one()
        assert (product.name, product.brand, product.tags, product.description, product.category_id) == (
            "'=Rice", "'@home", ["'+233"], "'-5% off", food.id)


def test_the_products_template_escapes_a_category_named_like_a_formula():
    """The template's sample rows name the first category; the export escaped such text, the template did not."""
    template = products_template(['=HYPERLINK("http://evil.example")'], "csv")
    rows = list(csv.DictReader(io.StringIO(template)))
    assert {row["category"] for row in rows} == {"'=HYPERLINK(\"http://evil.example\")"}


def test_the_order_export_has_one_line_per_order_line_for_a_date_range(client, admin_headers, make_user,
                                                                        make_product):
    shopper = make_user(first_name="Ama", last_name="Mensah")
    add_address(shopper, is_default=True)
    headers = auth_headers(shopper)
    rice, soap = make_product("Rice", price="10.00", stock=9), make_product("=Soap", price="2.50", stock=9)
    fill_cart(client, headers, (rice, 2), (soap, 1))
    first = place(client, headers)
    fill_cart(client, headers, (rice, 1))
    second = place(client, headers)
    with session_scope() as session:  # the first order was placed last week
        order = session.get(models.Order, first["id"])
        order.created_at = datetime.now(UTC) - timedelta(days=7)
        session.add(order)

    everything = rows_of(client.get(ORDERS_CSV, headers=admin_headers))
    assert [(row["order_id"], row["product_name"], row["quantity"]) for row in everything] == [
        (first["id"], "'=Soap", "1"), (first["id"], "Rice", "2"), (second["id"], "Rice", "1")]
    line = everything[1]
    assert line["customer_email"] == shopper.email and line["customer_name"] == "Ama Mensah"
    assert line["order_number"] == first["id"][:8] and line["status"] == "pending"
    assert (line["payment_method"], line["payment_status"], line["delivery_method"]) == (
        "cash_on_delivery", "pay_on_delivery", "delivery")
    assert (line["unit_price"], line["line_total"], line["order_subtotal"], line["order_total"]) == (
        "10.00", "20.00", first["subtotal"], first["total"])

    today = datetime.now(UTC).date()
    recent = client.get(ORDERS_CSV, headers=admin_headers, params={"date_from": today.isoformat()})
    assert [row["order_id"] for row in rows_of(recent)] == [second["id"]]
    assert recent.headers["content-disposition"] == f'attachment; filename="orders-{today}-to-{today}.csv"'
    old = client.get(ORDERS_CSV, headers=admin_headers,
                     params={"date_to": (today - timedelta(days=1)).isoformat()})
    assert {row["order_id"] for row in rows_of(old)} == {first["id"]}
    assert client.get(ORDERS_CSV, headers=admin_headers, params={"date_from": "yesterday"}).status_code == 400
    assert client.get(ORDERS_CSV, headers=admin_headers,
                      params={"date_from": today.isoformat(), "date_to": "2020-01-01"}).status_code == 400


ROWS = 100_000
# Flat: while 100,000 rows stream out, the process grows by far less than holding them would take
# (the CSV alone is about 15 MB, the rows as objects several times that). bench/exports.py
# measures the production server's RSS over HTTP and records it in bench/results/.
GROWTH_LIMIT_MB = 40


_VALUES = (
    "'Export item ' || {pad}, 'export item ' || {pad}, "
    "CASE WHEN n % 7 = 0 THEN '=A description that a spreadsheet would run' ELSE 'A description' END, "
    "'shoprite', '/placeholder.webp', 12.50, NULL, 12.50, 0, NULL, NULL, NULL, 4.0, n % 50, {false}, {true}, "
    "'active', '[\"a\", \"b\"]', '[]', :category, {created}, {now}"
)
_COLUMNS = (
    "id, name, name_key, description, brand, image_url, price, discount_price, effective_price, discount_percent, "
    "discount_start, discount_end, price_changes_at, rating, stock, is_featured, is_available, status, tags, "
    "related_products, category_id, created_at, updated_at"
)
GENERATE_SQL = {
    "sqlite": (
        f"WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < :rows) "
        f"INSERT INTO product ({_COLUMNS}) SELECT lower(hex(randomblob(16))), "
        + _VALUES.format(pad="printf('%06d', n)", false="0", true="1",
                         created="strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || n || ' seconds')",
                         now="'2026-01-01 00:00:00.000000'")
        + " FROM seq"
    ),
    "postgresql": (
        f"INSERT INTO product ({_COLUMNS}) SELECT gen_random_uuid()::text, "
        + _VALUES.format(pad="lpad(n::text, 6, '0')", false="false", true="true",
                         created="timestamptz '2026-01-01 00:00:00+00' + n * interval '1 second'",
                         now="timestamptz '2026-01-01 00:00:00+00'")
        + " FROM generate_series(0, :rows - 1) AS n"
    ),
}


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_100000_row_export_streams_in_flat_memory(client, admin_headers, make_category):
    category = make_category("Bulk")
    with write_session() as session:
        # Rows generated by the database itself: a Python insert of 100,000 rows takes longer
        # than the export being measured.
        load = BulkLoad(session.connection())
        mark = load.mark()
        session.execute(text(GENERATE_SQL[session.get_bind().dialect.name]), {"rows": ROWS, "category": category.id})
        load.index_since(mark)
        load.finish()
        load.close()
    gc.collect()

    peak = baseline = _rss_bytes()
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.02):
            peak = max(peak, _rss_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    lines = size = escaped = 0
    tail = b""
    try:
        with client.stream("GET", PRODUCTS_CSV, headers=admin_headers) as response:
            assert response.status_code == 200
            for chunk in response.iter_bytes():
                size += len(chunk)
                lines += chunk.count(b"\n")
                escaped += chunk.count(b"'=A description")
                tail = chunk[-200:]
    finally:
        done.set()
        sampler.join()
    assert lines == ROWS + 1  # the header and every product, oldest first
    assert escaped == len(range(0, ROWS, 7))
    assert b"Export item 099999" in tail
    growth_mb = (peak - baseline) / 1024 / 1024
    assert growth_mb < GROWTH_LIMIT_MB, f"the process grew by {growth_mb:.1f} MB while streaming {size:,} bytes"
