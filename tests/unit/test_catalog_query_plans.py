"""The listing's SQL is served by selective indexes on SQLite (not by a scan of the visibility index).

Plans are taken without planner statistics, as on a freshly migrated database: the same plans
SQLite picks for 50,000 products (bench/api_products.py prints them at that size).
"""

from __future__ import annotations

import pytest
from sqlalchemy import event

from discount_deals.db import get_engine, session_scope
from discount_deals.services.catalog import brand_counts, list_products

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


def plans_of(**filters) -> list[str]:
    """The query plan lines of every product query that list_products runs for ``filters``."""
    engine = get_engine()
    captured: list[tuple[str, tuple]] = []

    def capture(_conn, _cursor, statement, parameters, _context, _many):
        if "FROM product" in statement and statement.lstrip().upper().startswith("SELECT"):
            captured.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with session_scope() as session:
            if "brands" in filters:
                brand_counts(session, filters["brands"])
            else:
                list_products(session, **filters)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    lines = []
    with engine.connect() as connection:
        for statement, parameters in captured:
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
            lines.append(" | ".join(row[-1] for row in rows))
    return lines


def test_category_and_search_use_the_category_index(catalogue):
    plans = plans_of(search="rice", category="groceries", ordering="price-low", page=1)
    assert len(plans) == 2  # the count and the page
    for plan in plans:
        assert "USING INDEX ix_product_category_id" in plan, plan
        assert "ix_product_visible_name" not in plan, plan


def test_search_alone_scans_once_instead_of_walking_the_visibility_index(catalogue):
    for plan in plans_of(search="rice"):
        assert "ix_product_visible_name" not in plan, plan


def test_orderings_walk_their_column_index(catalogue):
    count, page = plans_of(ordering="price-low")
    assert "USING COVERING INDEX ix_product_visible_name" in count  # counting visible rows reads only the index
    assert "SCAN product USING INDEX ix_product_effective_price" in page, page
    _count, by_name = plans_of()
    assert "SCAN product USING INDEX uq_product_name_key" in by_name or "sqlite_autoindex_product" in by_name, by_name
    assert "TEMP B-TREE" not in by_name


def test_brand_filters_use_the_brand_index(catalogue):
    for plan in plans_of(brand="SHOPRITE", ordering="rating")[1:]:
        assert "USING INDEX ix_product_brand" in plan, plan
    assert any("USING INDEX ix_product_brand" in plan for plan in plans_of(brands=["shoprite", "melcom"]))
