"""Each listing is served by its own partial index on SQLite, and counts are cached until a write.

Plans are taken without planner statistics, as on a freshly migrated database: the same plans
SQLite picks for 50,000 products (bench/api_products.py prints them at that size).
"""

from __future__ import annotations

import re

import pytest

from discount_deals.db import get_engine, session_scope
from discount_deals.services.catalog import brand_counts, list_products, listing

from ..support.statements import sql_statements

pytestmark = pytest.mark.skipif(get_engine().dialect.name != "sqlite", reason="SQLite query plans")


@pytest.fixture
def catalogue(make_category, make_product):
    categories = [make_category(name) for name in ("Groceries", "Electronics", "Fashion")]
    for n in range(30):
        make_product(
            f"Rice {n}" if n % 2 else f"Oil {n}",
            f"{n + 1}.00",
            category=categories[n % 3],
            brand=("melcom", "Shoprite")[n % 2],
            status="inactive" if n == 7 else "active",
        )
    # A first listing runs the discount-window check (at most every 5 s per worker): the plans
    # below are those of the listing alone, whichever test runs first.
    with session_scope() as session:
        list_products(session)
    listing._counts.clear()


def captured_selects(call, reading: str = r"FROM product\b") -> list[tuple[str, tuple]]:
    """The SELECTs on products (or what ``reading`` matches) that ``call`` runs."""
    with sql_statements() as caught, session_scope() as session:
        call(session)
    return [(statement, parameters) for statement, parameters in caught.selects() if re.search(reading, statement)]


def plans_of(**filters) -> list[str]:
    """The query plan lines of every product query that list_products runs for ``filters``
    (the count first when it is not cached, then the page's ids, then those rows)."""
    if "brands" in filters:
        captured = captured_selects(lambda session: brand_counts(session, filters["brands"]))
    else:
        captured = captured_selects(lambda session: list_products(session, **filters))
    lines = []
    with get_engine().connect() as connection:
        for statement, parameters in captured:
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
            lines.append(" | ".join(row[-1] for row in rows))
    return lines


def test_a_narrow_search_starts_from_its_matches(catalogue):
    count, page, _rows = plans_of(search="rice", category="groceries", ordering="price-low", page=1)
    for plan in (count, page):
        assert "product_fts VIRTUAL TABLE" in plan and "SEARCH product USING INTEGER PRIMARY KEY (rowid=?)" in plan, plan


def test_a_broad_search_walks_the_ordering_index_and_skips_non_matches(catalogue, monkeypatch):
    monkeypatch.setattr(listing, "SEARCH_DRIVEN_MAX", 0)
    count, page, _rows = plans_of(search="rice", category="groceries", ordering="price-low", page=1)
    assert "SEARCH product USING INTEGER PRIMARY KEY (rowid=?)" in count, count  # counts always start there
    assert "USING COVERING INDEX ix_product_visible_category_price" in page and "product_fts VIRTUAL TABLE" in page, page
    assert "TEMP B-TREE" not in page, page


@pytest.mark.parametrize(
    ("filters", "index"),
    [
        ({}, "ix_product_visible_featured"),  # shoppers' default: featured first, then newest
        ({"ordering": "newest"}, "ix_product_visible_newest"),
        ({"ordering": "name"}, "ix_product_visible_name"),
        ({"ordering": "price-low"}, "ix_product_visible_price"),
        ({"category": "groceries", "ordering": "price-low"}, "ix_product_visible_category_price"),
        ({"category": "groceries", "ordering": "name"}, "ix_product_visible_category_name"),
        ({"category": "groceries"}, "ix_product_visible_category_featured"),
        ({"category": "groceries", "ordering": "newest"}, "ix_product_visible_category_newest"),
    ],
)
def test_each_listing_walks_its_own_partial_index_without_sorting(catalogue, filters, index):
    count, page, _rows = plans_of(**filters)
    assert f"USING COVERING INDEX {index}" in page, page  # the page's keys come from the index alone
    assert "TEMP B-TREE" not in page, page
    assert "USING COVERING INDEX ix_product_visible" in count, count  # counting reads only an index


def test_the_rows_of_a_page_are_read_by_id(catalogue):
    *_queries, rows = plans_of(ordering="price-low")
    assert "SEARCH product USING INTEGER PRIMARY KEY (rowid=?)" in rows, rows


def test_a_search_ranks_its_matches(catalogue):
    count, page, _rows = plans_of(search="rice")
    assert "product_fts VIRTUAL TABLE" in count and "product_fts VIRTUAL TABLE" in page


def test_brand_filters_use_the_brand_index(catalogue):
    for plan in plans_of(brand="SHOPRITE", ordering="rating")[1:2]:
        assert "USING INDEX ix_product_brand" in plan, plan
    assert any("USING INDEX ix_product_brand" in plan for plan in plans_of(brands=["shoprite", "melcom"]))


def test_suggestions_read_the_search_index_backwards_without_sorting(catalogue):
    from discount_deals.services.catalog import suggest

    captured = captured_selects(lambda session: suggest(session, "ri"), reading=r"JOIN product\b")
    assert captured, "no product query"
    with get_engine().connect() as connection:
        for statement, parameters in captured:
            plan = " | ".join(row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}",
                                                                              parameters).all())
            # However many products match, the index hands their rows newest first and the LIMIT stops it.
            assert "product_fts VIRTUAL TABLE" in plan and "TEMP B-TREE" not in plan, plan
            assert plan.index("product_fts VIRTUAL TABLE") < plan.index("product USING INTEGER PRIMARY KEY"), plan
