"""The name orderings (name_sort, then name_key) walk their listing index on both engines, up and
down, without sorting: on PostgreSQL the index's columns are in the "C" collation the ORDER BY
uses (a column in the server's collation would not serve an ORDER BY in another). PostgreSQL
plans with statistics of 1,500 products (a first page: deep in so small a table, reading it all
and sorting is as cheap); SQLite's without any, as on a freshly migrated database."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from sqlalchemy import insert

from discount_deals.db import get_engine, session_scope
from discount_deals.models import Product
from discount_deals.models.base import new_ids, utcnow
from discount_deals.services.catalog import list_products, listing, derived_columns

from ..support.statements import sql_statements

PRODUCTS = 1500
NAMES = ("Éclair", "Zobo", "rice", "Øre", "apple", "Straße", "Ébène")


@pytest.fixture
def catalogue(make_category):
    categories = [make_category(name) for name in ("Groceries", "Electronics", "Fashion")]
    now, ids = utcnow(), new_ids(PRODUCTS)
    rows = []
    for n in range(PRODUCTS):
        name, price = f"{NAMES[n % len(NAMES)]} {n}", Decimal(100 + n % 97)
        rows.append({"id": ids[n], "name": name, "price": price, "category_id": categories[n % 3].id, "tags": [],
                     "related_products": [], "created_at": now, "updated_at": now,
                     **derived_columns(name, price, None)})
    engine = get_engine()
    with engine.begin() as connection:
        connection.execute(insert(Product), rows)
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("ANALYZE product")
    with session_scope() as session:
        list_products(session)  # the discount-window check, once


def page_plan(**filters) -> str:
    """The plan of the query that reads a page's keys."""
    listing._counts.clear()
    with sql_statements() as caught, session_scope() as session:
        list_products(session, **filters)
    statement, parameters = next((s, p) for s, p in caught.selects()
                                 if "ORDER BY" in s and re.search(r"FROM product\b", s))
    engine = get_engine()
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(f"{'EXPLAIN QUERY PLAN' if sqlite else 'EXPLAIN'} {statement}",
                                          parameters).all()
    return " | ".join(str(row[-1] if sqlite else row[0]) for row in rows)


@pytest.mark.parametrize(
    ("filters", "index"),
    [
        ({"ordering": "name"}, "ix_product_visible_name"),
        ({"ordering": "-name"}, "ix_product_visible_name"),
        ({"ordering": "price-low"}, "ix_product_visible_price"),
        ({"category": "groceries", "ordering": "name"}, "ix_product_visible_category_name"),
        ({"category": "groceries", "ordering": "-name"}, "ix_product_visible_category_name"),
        ({"category": "groceries", "ordering": "price-low"}, "ix_product_visible_category_price"),
    ],
)
def test_name_orderings_walk_their_index_without_sorting(catalogue, filters, index):
    plan = page_plan(**filters)
    if get_engine().dialect.name == "sqlite":
        assert f"USING COVERING INDEX {index}" in plan and "TEMP B-TREE" not in plan, plan
    else:
        assert re.search(rf"Index (Only )?Scan (Backward )?using {index} ", plan) and "Sort" not in plan, plan
