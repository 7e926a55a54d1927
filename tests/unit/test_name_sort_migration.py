"""Revision 42s_product_name_sort: product.name_sort is added and back-filled by today's rule, the
listing indexes sort by it then name_key, and on PostgreSQL both columns compare by code point
("C"), the catalogue-version trigger that names name_key kept. Down and up again. On SQLite and,
under scripts/with-postgres.sh, PostgreSQL."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from discount_deals.services.catalog import name_key

from ..support.migrations import run_alembic
from .test_migrations import _database_at, _insert, _upgrade

FIRST = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
NAMES = {"p1": "Zobo", "p2": "Éclair", "p3": "eba", "p4": "Café", "p5": "Cafe", "p6": "Straße 1½ ㎏"}
LISTING_INDEXES = {"ix_product_visible_name", "ix_product_visible_price", "ix_product_visible_category_name",
                   "ix_product_visible_category_price"}


def _listing_index_columns(connection) -> dict[str, list[str]]:
    return {index["name"]: index["column_names"] for index in inspect(connection).get_indexes("product")
            if index["name"] in LISTING_INDEXES}


def _pg_state(connection) -> tuple[dict[str, str | None], bool]:
    """Each sort column's collation, and whether the catalogue-version trigger is there."""
    collations = dict(connection.execute(text(
        "SELECT column_name, collation_name FROM information_schema.columns "
        "WHERE table_name = 'product' AND column_name IN ('name_sort', 'name_key')")).all())
    trigger = connection.execute(text("SELECT 1 FROM pg_trigger WHERE tgname = 'product_version'")).first()
    return collations, trigger is not None


def test_name_sort_is_added_back_filled_and_indexed(tmp_path: Path):
    from discount_deals.services.catalog import name_sort

    with _database_at(tmp_path, "41w_catalogue_text_width") as (url, engine):
        with engine.begin() as connection:
            _insert(connection, "category", id="c", name="Food", slug="food")
            for n, (product_id, name) in enumerate(NAMES.items()):
                _insert(connection, "product", id=product_id, name=name, name_key=name_key(name), category_id="c",
                        rating=0, tags=[], related_products=[], created_at=FIRST + dt.timedelta(hours=n))
        _upgrade(url)
        with engine.connect() as connection:
            sorts = dict(connection.execute(text("SELECT id, name_sort FROM product")).all())
            order = list(connection.execute(text("SELECT id FROM product ORDER BY name_sort, name_key")).scalars())
            indexes = _listing_index_columns(connection)
            pg = _pg_state(connection) if engine.dialect.name == "postgresql" else None
    assert sorts == {product_id: name_sort(name) for product_id, name in NAMES.items()}
    assert sorts["p2"] == "eclair" and sorts["p6"] == "strasse 11⁄2 kg"
    assert order == ["p5", "p4", "p3", "p2", "p6", "p1"]  # Cafe, Café, eba, Éclair, Straße, Zobo
    assert indexes == {
        "ix_product_visible_name": ["name_sort", "name_key", "status", "is_available"],
        "ix_product_visible_price": ["effective_price", "name_sort", "name_key", "status", "is_available"],
        "ix_product_visible_category_name": ["category_id", "name_sort", "name_key", "status", "is_available"],
        "ix_product_visible_category_price": ["category_id", "effective_price", "name_sort", "name_key", "status",
                                              "is_available"],
    }
    assert pg in (None, ({"name_sort": "C", "name_key": "C"}, True))


def test_down_to_the_name_key_and_up_again(tmp_path: Path):
    with _database_at(tmp_path, "head") as (url, engine):
        run_alembic(url, command.downgrade, "41w_catalogue_text_width")
        with engine.connect() as connection:
            columns = {column["name"] for column in inspect(connection).get_columns("product")}
            indexes = _listing_index_columns(connection)
            pg = _pg_state(connection) if engine.dialect.name == "postgresql" else None
        _upgrade(url)
    assert "name_sort" not in columns and "name_key" in columns
    assert indexes["ix_product_visible_name"] == ["name_key", "status", "is_available"]
    assert indexes["ix_product_visible_category_price"] == ["category_id", "effective_price", "name_key", "status",
                                                            "is_available"]
    assert pg in (None, ({"name_key": None}, True))
