"""Listing counts are cached per worker until the catalogue changes (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from discount_deals.db import session_scope
from discount_deals.services.catalog import list_products, listing

from ..support.statements import sql_statements


@pytest.fixture
def catalogue(make_category, make_product):
    categories = [make_category(name) for name in ("Groceries", "Electronics", "Fashion")]
    for n in range(30):
        make_product(f"Rice {n}" if n % 2 else f"Oil {n}", f"{n + 1}.00", category=categories[n % 3])
    listing._counts.clear()


def captured_selects(call) -> list[str]:
    with sql_statements() as caught, session_scope() as session:
        call(session)
    return [statement for statement, _parameters in caught.selects() if "FROM product" in statement]


def count_queries(**filters) -> int:
    return sum("count(" in statement.lower() for statement in captured_selects(lambda s: list_products(s, **filters)))


def test_counts_are_cached_until_the_catalogue_changes(catalogue, make_product):
    filters = {"category": "groceries", "ordering": "price-low"}
    assert count_queries(**filters) == 1
    assert count_queries(**filters) == 0  # cached
    with session_scope() as session:
        assert list_products(session, **filters).count == 10
    make_product("Rice New", "3.00", category=None)  # another category: still a catalogue write
    assert count_queries(**filters) == 1
    with session_scope() as session:
        groceries = list_products(session, category="groceries").items[0][1]
    make_product("Rice Newer", "3.00", category=groceries)
    with session_scope() as session:
        assert list_products(session, **filters).count == 11


def test_a_rolled_back_write_never_leaves_a_count_behind(catalogue, make_product):
    from discount_deals.models import Product
    from discount_deals.services.catalog import refresh_derived

    filters = {"search": "rice"}
    with session_scope() as session:
        before = list_products(session, **filters).count
    with pytest.raises(RuntimeError):
        with session_scope() as session:
            category_id = list_products(session, ordering="name").items[0][0].category_id
            session.add(refresh_derived(Product(name="Rice Ghost", price=1, category_id=category_id, effective_price=1)))
            session.flush()
            assert list_products(session, **filters).count == before + 1  # seen (and cached) inside the transaction
            raise RuntimeError("roll back")
    with session_scope() as session:
        assert list_products(session, **filters).count == before
    make_product("Rice Real", "3.00", category=first_category(category_id))
    with session_scope() as session:
        assert list_products(session, **filters).count == before + 1


def first_category(category_id: str):
    from discount_deals.models import Category

    with session_scope() as session:
        return session.get(Category, category_id)


def test_a_renamed_category_is_found_by_its_new_name_at_once(catalogue):
    from discount_deals.models import Category
    from sqlmodel import select

    with session_scope() as session:
        assert list_products(session, category="groceries").count == 10
    with session_scope() as session:
        groceries = session.exec(select(Category).where(Category.name == "Groceries")).one()
        groceries.name, groceries.slug = "Staples", "staples"
    with session_scope() as session:
        assert list_products(session, category="Groceries").count == 0
        assert list_products(session, category="staples").count == 10
