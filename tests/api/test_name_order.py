"""Products sorted by name sort accents and case aside ("Éclair" with "eclair", before "Zobo"), by
code point on both engines whatever PostgreSQL's collation, the name key breaking ties: the
listing's name orderings, a search's ties, the related products, the featured products and the
back office's low-stock list. Runs on SQLite and, under scripts/with-postgres.sh, PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import select

from discount_deals.db import get_engine, session_scope
from discount_deals.models import Product
from discount_deals.services import reports
from discount_deals.services.catalog import featured_products
from discount_deals.services.catalog.related import related_products

URL = "/api/products/"
IN_ORDER = ["apple", "Ｂａｎｋｕ", "Cafe", "Café", "eba", "Éclair", "Fufu", "Øre", "Zobo"]


@pytest.fixture
def shelf(make_category, make_product):
    food = make_category("Food")
    for name in reversed(IN_ORDER):
        make_product(name, category=food, stock=2)
    return food


def listed(client, **params) -> list[str]:
    response = client.get(URL, params={"page_size": 50, **params})
    assert response.status_code == 200, response.text
    return [item["name"] for item in response.json()["results"]]


def test_names_sort_accents_and_case_aside_and_the_key_breaks_ties(client, shelf):
    assert listed(client, ordering="name") == IN_ORDER
    assert listed(client, ordering="-name") == IN_ORDER[::-1]
    # Equal prices (all 10.00), equal ratings: the name decides, as it does alone.
    assert listed(client, ordering="price-low") == listed(client, ordering="price-high") == IN_ORDER
    assert listed(client, ordering="rating") == listed(client, category="food", ordering="name") == IN_ORDER


def test_pages_by_name_follow_one_another(client, shelf):
    pages = [listed(client, ordering="name", page_size=2, page=n) for n in range(1, 6)]
    assert [name for page in pages for name in page] == IN_ORDER


def test_a_search_ranks_then_sorts_its_ties_by_name(client, make_category, make_product):
    food = make_category("Food")
    for name in ("Zobo Oil", "Éclair Oil", "eba oil", "Palm nut", "Apple"):
        make_product(name, category=food, description="oil" if name == "Palm nut" else "")
    assert listed(client, search="oil") == ["eba oil", "Éclair Oil", "Zobo Oil", "Palm nut"]
    assert listed(client, search="oil", ordering="name") == ["eba oil", "Éclair Oil", "Palm nut", "Zobo Oil"]


def test_the_sort_key_follows_a_rename_and_an_upload(client, admin_headers, make_category, make_product):
    food = make_category("Food")
    zebra = make_product("Zebra", category=food)
    assert client.patch(f"{URL}{zebra.id}/", json={"name": "Ébène"}, headers=admin_headers).status_code == 200
    rows = [{"name": name, "price": "1", "category": "Food"} for name in ("Ｏｅｕｆ Ｃｏｃｏｔｔｅ", "Straße")]
    uploaded = client.post(f"{URL}bulk-upload/", json={"products": rows}, headers=admin_headers)
    assert uploaded.status_code == 201, uploaded.text
    with session_scope() as session:
        stored = {row.name: row.name_sort for row in session.exec(select(Product)).all()}
    assert stored == {"Ébène": "ebene", "Oeuf Cocotte": "oeuf cocotte", "Straße": "strasse"}
    assert listed(client, ordering="name") == ["Ébène", "Oeuf Cocotte", "Straße"]


def test_related_featured_and_low_stock_lists_sort_by_name_too(admin, make_category, make_product):
    food = make_category("Food")
    shown = make_product("Shown", category=food)
    for name in ("Zobo", "Éclair", "apple"):
        make_product(name, category=food, stock=1, is_featured=True)
    with session_scope() as session:
        product = session.get(Product, shown.id)
        assert [p.name for p, _ in related_products(session, product, 3)] == ["apple", "Éclair", "Zobo"]
        assert [p.name for p, _ in featured_products(session)] == ["apple", "Éclair", "Zobo"]
        low, count = reports.low_stock_products(session, admin)
    assert [row.name for row in low] == ["apple", "Éclair", "Zobo"] and count == 3


def test_the_sort_key_is_the_name_folded_as_search_folds_it():
    from discount_deals.services.catalog import name_sort

    assert [name_sort(name) for name in ("  Éclair\u200b  Royale ", "ＺＯＢＯ", "Straße", "Ɛkɔ", "Øre")] == [
        "eclair royale", "zobo", "strasse", "eko", "ore"]


@pytest.mark.skipif(get_engine().dialect.name != "postgresql", reason="PostgreSQL's collations")
def test_postgresql_compares_the_sort_columns_by_code_point_whatever_the_server_collation(clean_db):
    with get_engine().connect() as connection:
        collations = dict(connection.execute(text(
            "SELECT column_name, collation_name FROM information_schema.columns "
            "WHERE table_name = 'product' AND column_name IN ('name_sort', 'name_key')")).all())
    assert collations == {"name_sort": "C", "name_key": "C"}
