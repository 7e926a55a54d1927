"""Revision 41w_catalogue_text_width: catalogue text stored in full-width letters before it is
rewritten in ordinary ones, and the search index follows (SQLite's FTS5 table and vocabulary,
PostgreSQL's search_vector and search_word), so that an old "Ｒｉｃｅ Ｏｉｌ" is found by "rice".
On SQLite and, under scripts/with-postgres.sh, PostgreSQL."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy import select, text
from sqlmodel import Session

from discount_deals.models import Product
from discount_deals.services.catalog import search as fulltext

from .test_migrations import _database_at, _insert, _upgrade

FIRST = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _found(engine, words: str) -> set[str]:
    """The ids of the products the shop's own search condition finds for ``words``."""
    with Session(engine) as session:
        clause = fulltext.match_clause(session, fulltext.parse(words))
        return set(session.exec(select(Product.id).where(clause)).scalars())


def _vocabulary(connection) -> set[str]:
    if connection.dialect.name == "sqlite":
        return set(connection.execute(text("SELECT term FROM product_fts_vocab")).scalars())
    return set(connection.execute(text("SELECT word FROM search_word")).scalars())


def test_full_width_catalogue_text_is_rewritten_and_indexed_again(tmp_path: Path):
    categories = {"c-oils": "Ｃｏｏｋｉｎｇ　Ｏｉｌｓ", "c-food": "Food", "c-food2": "Ｆｏｏｄ"}
    products = {  # id: (name, name_key, brand, description, category)
        "p-oil": ("Ｒｉｃｅ Ｏｉｌ", "rice oil", "ＦＲＩＴＯ", "Ｐｕｒｅ ｏｉｌ，１ｌ", "c-oils"),
        "p-rice": ("Rice", "rice", "", "", "c-food"),
        "p-twin": ("Ｒｉｃｅ", "ｒｉｃｅ", "", "", "c-food2"),  # the later of a look-alike pair (38k)
        "p-sugar": ("Sugar ½ ㎏", "sugar 1⁄2 kg", "", "", "c-food"),
    }
    with _database_at(tmp_path, "40r_order_return_days") as (url, engine):
        with engine.begin() as connection:
            for category_id, name in categories.items():
                _insert(connection, "category", id=category_id, name=name, slug=category_id)
            for n, (product_id, (name, key, brand, description, category_id)) in enumerate(products.items()):
                _insert(connection, "product", id=product_id, name=name, name_key=key, brand=brand,
                        description=description, category_id=category_id, rating=0, tags=[],
                        related_products=[], status="active", is_available=True,
                        created_at=FIRST + dt.timedelta(hours=n))
        if engine.dialect.name == "sqlite":  # PostgreSQL's unaccent folds the width (its fallback map does not)
            assert _found(engine, "rice") == {"p-rice"}  # the defect: "Ｒｉｃｅ Ｏｉｌ" is not found
        _upgrade(url)
        with engine.connect() as connection:
            names = dict(connection.execute(text("SELECT id, name FROM category")).all())
            rows = {row.id: tuple(row[1:]) for row in connection.execute(
                text("SELECT id, name, name_key, brand, description FROM product")).all()}
            vocabulary = _vocabulary(connection)
        found = {words: _found(engine, words) for words in ("rice", "Ｒｉｃｅ", "frito", "pure", "cooking")}
    assert names == {"c-oils": "Cooking Oils", "c-food": "Food", "c-food2": "Ｆｏｏｄ"}  # "Food" is taken
    assert rows == {
        "p-oil": ("Rice Oil", "rice oil", "FRITO", "Pure oil,1l"),
        "p-rice": ("Rice", "rice", "", ""),
        "p-twin": ("Ｒｉｃｅ", "ｒｉｃｅ", "", ""),  # its full-width name is what tells it from "Rice"
        "p-sugar": ("Sugar ½ ㎏", "sugar 1⁄2 kg", "", ""),  # only the width forms are rewritten
    }
    assert found["rice"] - {"p-twin"} == {"p-oil", "p-rice"} and found["Ｒｉｃｅ"] == found["rice"]
    assert found["frito"] == found["pure"] == found["cooking"] == {"p-oil"}
    assert {"rice", "oil", "frito", "pure", "cooking"} <= vocabulary
    assert not {"ｆｒｉｔｏ", "ｐｕｒｅ", "ｃｏｏｋｉｎｇ", "ｏｉｌ"} & vocabulary

