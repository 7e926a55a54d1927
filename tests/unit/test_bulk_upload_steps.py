"""The admin screen's bulk upload steps in services.bulk_import: required fields, category names,
refusal messages, and templates that the importers accept as they are."""

from __future__ import annotations

import json

from discount_deals.db import session_scope, write_session
from discount_deals.models import Product
from discount_deals.services import bulk_import
from discount_deals.services.bulk_import import CheckedRows


def test_required_fields_per_product_numbered_from_one():
    rows = [
        {"name": "A", "description": "d", "price": "1", "category": "c", "image_url": "/a.png"},
        {"name": " ", "description": "d", "price": None, "category": "c", "image_url": "/a.png"},
        "not an object",
        {"name": "B", "price": 0, "category": "c", "image_url": "/b.png", "description": "d"},
        {},
    ]
    checked = bulk_import.check_required_fields(rows)
    assert checked.positions == [0, 3]
    assert [row["name"] for row in checked.rows] == ["A", "B"]
    assert checked.messages == [
        "Product 2: Name is required, Price is required",
        "Product 3: Each product must be an object",
        "Product 5: Name is required, Description is required, Price is required, Category is required, "
        "Image URL is required",
    ]


def test_required_fields_per_category():
    checked = bulk_import.check_required_fields(
        [{"name": "Toys", "slug": "toys", "description": "Fun"}, {"name": "Tools", "slug": ""}], "category"
    )
    assert checked.positions == [0]
    assert checked.messages == ["Category 2: Slug is required, Description is required"]


def test_categories_resolve_by_name_or_slug_in_any_case(make_category):
    drinks = make_category("Soft Drinks", slug="soft-drinks")
    rows = [
        {"name": "Cola", "category": "soft drinks"},
        {"name": "Fanta", "category": "SOFT-DRINKS"},
        {"name": "Kettle", "category": "Kitchen"},
        {"name": "Sprite", "category": drinks.id},
    ]
    with session_scope() as session:
        resolved = bulk_import.resolve_product_categories(session, CheckedRows(rows=rows, positions=[0, 2, 4, 6]))
    assert [row["category"] for row in resolved.rows] == [drinks.id] * 3
    assert resolved.positions == [0, 2, 6]
    assert resolved.messages == ['Product 5 (Kettle): Category "Kitchen" not found']


def test_refused_rows_are_named_and_numbered_as_uploaded(admin, make_category, make_product):
    category = make_category("Groceries")
    make_product(name="Rice 5kg", category=category)
    rows = [
        {"name": "rice 5KG", "price": "2", "category": category.id},
        {"name": "Beans", "price": "2", "category": category.id},
        {"name": "Oil", "price": "abc", "category": category.id},
    ]
    with write_session() as session:
        result = bulk_import.import_products(session, admin, rows)
    assert [p.name for p in result.created] == ["Beans"]
    assert bulk_import.refused_row_messages(result, rows, [1, 4, 7], "product") == [
        'Product 2 (rice 5KG): A product named "rice 5KG" already exists.',
        "Product 8 (Oil): price: Enter a valid amount, e.g. 12.50.",
    ]


def _upload_products(admin, rows):
    checked = bulk_import.check_required_fields(rows)
    with session_scope() as session:
        resolved = bulk_import.resolve_product_categories(session, checked)
    assert checked.messages == [] and resolved.messages == []
    with write_session() as session:
        return bulk_import.import_products(session, admin, resolved.rows)


def test_product_templates_upload_as_they_are(admin, make_category):
    make_category("Groceries")
    make_category("Beverages")
    names = ["Groceries", "beverages"]
    from_json = json.loads(bulk_import.products_template(names, "json"))
    result = _upload_products(admin, from_json)
    assert (len(result.created), result.errors) == (2, [])
    with session_scope() as session:
        rice = session.get(Product, {p.name: p for p in result.created}["Sample Jasmine Rice 5kg"].id)
    assert (str(rice.price), str(rice.discount_price), rice.stock, rice.tags) == ("24.99", "19.99", 40, ["rice", "staples"])

    # The CSV template holds the same products: every one is now a duplicate.
    from_csv = bulk_import.parse_products_csv(bulk_import.products_template(names, "csv").encode())
    assert [row["name"] for row in from_csv] == [row["name"] for row in from_json]
    assert from_csv[0]["tags"] == ["rice", "staples"] and from_csv[1]["is_featured"] is True
    result = _upload_products(admin, from_csv)
    assert result.created == [] and len(result.errors) == 2


def test_product_csv_template_creates_the_same_products(admin, make_category):
    make_category("Groceries")
    rows = bulk_import.parse_products_csv(bulk_import.products_template(["Groceries"], "csv").encode())
    result = _upload_products(admin, rows)
    with session_scope() as session:
        stored = [session.get(Product, p.id) for p in result.created]
    assert sorted((p.name, str(p.price), p.is_featured) for p in stored) == [
        ("Sample Jasmine Rice 5kg", "24.99", False),
        ("Sample Malt Drink 6 x 330ml", "9.50", True),
    ]


def test_category_templates_upload_as_they_are(admin):
    for fmt in ("json", "csv"):
        text = bulk_import.categories_template(fmt)
        rows = json.loads(text) if fmt == "json" else bulk_import.parse_categories_csv(text.encode())
        checked = bulk_import.check_required_fields(rows, "category")
        assert checked.messages == []
        with write_session() as session:
            result = bulk_import.import_categories(session, admin, checked.rows)
        if fmt == "json":
            assert [c.slug for c in result.created] == ["sample-stationery", "sample-garden"]
        else:  # the same categories again
            assert result.created == [] and len(result.errors) == 2
