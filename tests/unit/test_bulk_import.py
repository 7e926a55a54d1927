"""services.bulk_import called directly: CSV parsing, row validation, batches, permissions, rollback."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import func, select

from discount_deals.db import get_engine, session_scope, write_session
from discount_deals.models import Category, Product
from discount_deals.services import Conflict, NotAuthenticated, PermissionDenied, ServiceError, ValidationFailed
from discount_deals.services.bulk_import import (
    CHUNK_ROWS,
    import_categories,
    import_products,
    parse_categories_csv,
    parse_products_csv,
)


def product_count() -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(Product)).one()


def test_parse_products_csv_rules():
    data = (
        b"name , price,category,tags,related_products,is_available,is_featured,stock\n"
        b"\n"
        b'"Rice, 5kg",18.50,food,"a, b ,,c",id-1,true,False,"7"\n'
        b"   \n"
        b",,,,,,,\n"
        b"Beans,2,food,,,TRUE,true,\n"
    )
    rows = parse_products_csv(data)
    assert rows == [
        {
            "name": "Rice, 5kg",
            "price": "18.50",
            "category": "food",
            "tags": ["a", "b", "c"],
            "related_products": ["id-1"],
            "is_available": True,
            "is_featured": False,
            "stock": "7",
        },
        {
            "name": "Beans",
            "price": "2",
            "category": "food",
            "tags": [],
            "related_products": [],
            "is_available": True,
            "is_featured": True,
            "stock": "",
        },
    ]


def test_parse_csv_keeps_text_as_text():
    rows = parse_products_csv(b"name,price,stock\n007,1.10,0012\nNA,,\n")
    assert rows == [{"name": "007", "price": "1.10", "stock": "0012"}, {"name": "NA", "price": "", "stock": ""}]


def test_parse_csv_short_rows_are_padded():
    assert parse_categories_csv(b"name,slug,description\nToys,toys\n") == [
        {"name": "Toys", "slug": "toys", "description": ""}
    ]


def test_parse_csv_errors():
    with pytest.raises(ValidationFailed, match="empty"):
        parse_products_csv(b"")
    with pytest.raises(ValidationFailed, match="UTF-8"):
        parse_products_csv(b"name\n\xff\n")
    with pytest.raises(ServiceError) as too_big:
        parse_products_csv(b"x" * (10 * 1024 * 1024 + 1))
    assert too_big.value.status == 413
    with pytest.raises(ValidationFailed, match="Too many rows"):
        parse_products_csv(b"name\n" + b"p\n" * 20_001)


@pytest.mark.parametrize("role", [None, "customer"])
def test_imports_require_an_admin(session, make_user, role):
    actor = make_user(role=role) if role else None
    expected = NotAuthenticated if role is None else PermissionDenied
    with pytest.raises(expected):
        import_products(session, actor, [{"name": "x", "price": "1", "category": "c"}])
    with pytest.raises(expected):
        import_categories(session, actor, [{"name": "x", "slug": "x", "description": "d"}])


def test_import_products_in_several_batches(admin, make_category):
    category = make_category("Food")
    rows = [
        {"name": f"Item {n:05d}", "price": f"{n % 90 + 1}.25", "category": "food", "stock": str(n % 7)}
        for n in range(2 * CHUNK_ROWS + 17)
    ]
    rows[5]["name"] = "item 00001"  # a duplicate of row 1, in another case
    with write_session() as session:
        result = import_products(session, admin, rows)
    assert result.status == 201
    assert [e["index"] for e in result.errors] == [5]
    assert len(result.created) == len(rows) - 1 == product_count()
    first = result.created[0]
    assert first.name == "Item 00000" and first.index == 0 and result.created[5].index == 6
    with session_scope() as session:
        assert session.get(Product, first.id).category_id == category.id and session.get(Product, first.id).stock == 0
        stored = session.exec(select(Product).where(Product.name == "Item 00003")).one()
        assert stored.name_key == "item 00003" and str(stored.effective_price) == "4.25" and stored.stock == 3
        assert stored.created_at is not None and stored.updated_at is not None


def test_import_result_without_rows(session, admin):
    result = import_products(session, admin, [])
    assert result.status == 400 and result.created == [] and result.errors == []
    assert "no rows" in result.detail
    with pytest.raises(ValidationFailed):
        import_products(session, admin, {"name": "not a list"})


def test_failure_inside_the_transaction_rolls_back_every_row(admin, make_category):
    make_category("Food")
    rows = [{"name": f"Row {n}", "price": "1", "category": "food"} for n in range(CHUNK_ROWS + 10)]
    rows[-1]["name"] = "Explode"
    engine = get_engine()
    if engine.dialect.name != "sqlite":
        pytest.skip("the trigger below is SQLite syntax; the API test covers PostgreSQL")
    with engine.begin() as connection:
        connection.execute(
            text(
                "CREATE TRIGGER test_explode BEFORE INSERT ON product WHEN NEW.name = 'Explode' "
                "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
            )
        )
    try:
        with pytest.raises(Conflict, match="Nothing was imported"), write_session() as session:
            import_products(session, admin, rows)
    finally:
        with engine.begin() as connection:
            connection.execute(text("DROP TRIGGER test_explode"))
    assert product_count() == 0


def test_import_categories_rules(admin, make_category):
    make_category("Food", slug="food")
    rows = [
        {"name": "Drinks", "slug": "Drinks", "description": "All drinks"},
        {"name": "Juice", "slug": "juice", "description": "Fruit", "parent": "drinks"},
        {"name": "food", "slug": "food-2", "description": "dup"},
        {"name": "Milk", "slug": "milk", "description": "  "},
        {"name": "Tea", "slug": "tea", "description": "Hot", "parent": "Nowhere"},
    ]
    with write_session() as session:
        result = import_categories(session, admin, rows)
    assert [c.name for c in result.created] == ["Drinks", "Juice"]
    assert result.created[0].slug == "drinks" and result.created[1].parent_id == result.created[0].id
    assert {e["index"]: sorted(e["errors"]) for e in result.errors} == {2: ["name"], 3: ["description"], 4: ["parent"]}
    with session_scope() as session:
        assert sorted(session.exec(select(Category.slug)).all()) == ["drinks", "food", "juice"]


def test_a_large_import_leaves_postgresql_planner_statistics_current(admin, make_category):
    """After ≥ 1,000 imported rows PostgreSQL's statistics describe the new catalogue at once
    (ANALYZE in the import's transaction), not the empty table autovacuum last saw."""
    if get_engine().dialect.name != "postgresql":
        pytest.skip("PostgreSQL's planner statistics")
    make_category("Food")
    rows = [{"name": f"Stat Item {n:05d}", "price": "2.50", "category": "food"} for n in range(1200)]
    with write_session() as session:
        assert import_products(session, admin, rows).status == 201
    with session_scope() as session:
        estimated = session.exec(text("SELECT reltuples FROM pg_class WHERE relname = 'product'")).one()[0]
    assert estimated == product_count() == 1200


def test_imported_products_get_distinct_version_4_uuids(admin, make_category):
    """Ids of a chunk come from one read of the system's randomness (models.base.new_ids)."""
    import uuid

    from discount_deals.models.base import new_ids

    ids = new_ids(500)
    assert len(set(ids)) == 500 and all(uuid.UUID(i).version == 4 and str(uuid.UUID(i)) == i for i in ids)
    make_category("Food")
    with write_session() as session:
        result = import_products(session, admin, [{"name": f"U {n}", "price": "1", "category": "food"} for n in range(30)])
    with session_scope() as session:
        stored = session.exec(select(Product.id)).all()
    assert sorted(stored) == sorted(c.id for c in result.created) and len(set(stored)) == 30
    assert all(uuid.UUID(i).version == 4 for i in stored)
