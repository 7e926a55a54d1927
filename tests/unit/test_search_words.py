"""The search vocabulary that typo correction reads (SQLite's fts5vocab, PostgreSQL's search_word
kept by statement triggers) holds exactly the words of the products, with how many products hold
each, through every kind of write; and the correction rule itself (issue 24)."""

from __future__ import annotations

from collections import Counter

import pytest
import sqlalchemy as sa
from alembic import command
from sqlmodel import Session, select

from discount_deals.search import index as search_index, words as search_words
from discount_deals.db import create_db_engine, get_engine, session_scope, write_session
from discount_deals.models import Category, Product
from discount_deals.services import bulk_import
from discount_deals.services.catalog import catalogue_version, refresh_derived, typos
from discount_deals.services.catalog.search import IN_NAME, NAMED, parse, words

from ..support.migrations import fresh_database, run_alembic


def brute_force() -> dict[str, tuple[int, bool, bool]]:
    """Per word, from the rows themselves: how many products hold it (name, brand, category name,
    description), whether one holds it in its name, and in its name, brand or category."""
    docs: Counter = Counter()
    in_name: set[str] = set()
    in_named: set[str] = set()
    with session_scope() as session:
        for product, category in session.exec(select(Product, Category).join(Category)).all():
            docs.update(set(words(f"{product.name} {product.brand} {category.name} {product.description}")))
            in_name.update(words(product.name))
            in_named.update(words(f"{product.name} {product.brand} {category.name}"))
    return {word: (n, word in in_name, word in in_named) for word, n in docs.items() if word.isalpha() and n > 0}


def vocabulary() -> dict[str, tuple[int, bool, bool]]:
    with session_scope() as session:
        letters = {word[0] for word in brute_force()} | set("abcdefghijklmnopqrstuvwxyz")
        return {row[0]: tuple(row[1:]) for letter in letters for row in typos._load_words(session, letter)}


def test_the_vocabulary_follows_every_write(make_category, make_product, admin):
    kitchen = make_category("Kitchen")
    pot = make_product("Stew Pot", category=kitchen, description="Cooks stew fast", brand="melcom")
    make_product("Rice Cooker", category=kitchen, description="Cooks rice", brand="melcom")
    assert vocabulary() == brute_force() and vocabulary()["cooks"] == (2, False, False)
    with session_scope() as session:  # a product rewritten, moved, and a category renamed
        product = session.get(Product, pot.id)
        product.name, product.description = "Soup Pot", "Simmers soup"
        session.get(Category, kitchen.id).name = "Cookware"
    assert vocabulary() == brute_force()
    assert "stew" not in vocabulary() and vocabulary()["cookware"] == (2, False, True)
    assert vocabulary()["cooks"][0] == 1 and vocabulary()["soup"] == (1, True, True)
    with session_scope() as session:  # stock and price updates change no word
        for product in session.exec(select(Product)).all():
            product.stock += 3
    with write_session() as session:  # a bulk import (one transaction, chunks of rows)
        rows = [{"name": f"Palm Oil {n}", "price": "3.00", "category": "cookware", "description": "Red palm oil",
                 "image_url": "/x.webp"} for n in range(30)]
        assert not bulk_import.import_products(session, admin, rows).errors
    assert vocabulary() == brute_force() and vocabulary()["palm"] == (30, True, True)
    with session_scope() as session:
        for product in session.exec(select(Product).where(Product.name.like("Palm Oil 1%"))).all():
            session.delete(product)
    assert vocabulary() == brute_force() and vocabulary()["palm"] == (19, True, True)


def test_the_migration_gives_an_existing_catalogue_its_vocabulary_and_stock_trigger(tmp_path):
    """Upgrading a database whose products predate issue 24: the vocabulary holds their words (on
    PostgreSQL counted into search_word) and selling out changes the catalogue version."""
    with fresh_database(tmp_path) as url:
        run_alembic(url, command.upgrade, "4b1d7c9e2f30")
        engine = create_db_engine(url)
        try:
            with engine.begin() as connection:  # the objects this revision brings, as before it
                search_words.uninstall(connection)
                on_product = "" if connection.dialect.name == "sqlite" else " ON product"
                connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS product_version_stock{on_product}")
            with Session(engine) as session:
                shelf = Category(name="Pantry", slug="pantry")
                session.add(shelf)
                session.flush()
                gari = refresh_derived(Product(name="Gari Sack", price=3, effective_price=3, stock=1,
                                               category_id=shelf.id, description="Cassava gari"))
                # Written into the table as it stood at that revision (columns added since are left out).
                table = sa.Table("product", sa.MetaData(), autoload_with=session.connection())
                session.execute(table.insert().values(
                    {column.name: getattr(gari, column.name) for column in table.columns
                     if column.name in Product.model_fields}))
                session.commit()
            run_alembic(url, command.upgrade, "head")
            with Session(engine) as session:
                assert typos._load_words(session, "g") == [("gari", 1, True, True)]
                assert typos._load_words(session, "c") == [("cassava", 1, False, False)]
                before = catalogue_version(session)
                session.exec(select(Product)).one().stock = 0
                session.flush()
                assert catalogue_version(session) != before
        finally:
            engine.dispose()


def test_a_rebuild_counts_the_words_again(make_product):
    make_product("Kenkey Balls", description="Fermented corn")
    engine = get_engine()
    with engine.begin() as connection:
        search_index.rebuild(connection)
    assert vocabulary() == brute_force()


@pytest.mark.parametrize(
    ("word", "allowed"),
    [("ric", 0), ("rice", 1), ("sardine", 1), ("sardines", 2), ("5kg", 0), ("a4paper", 0), ("", 0)],
)
def test_how_many_typos_a_word_may_carry(word, allowed):
    assert typos.allowed_typos(word) == allowed


def test_the_nearest_word_wins_then_the_one_more_products_hold(make_category, make_product):
    shelf = make_category("Shelf")
    for name in ("Rice One", "Rice Two", "Rich Tea", "Rise Bread"):
        make_product(name, category=shelf)
    with session_scope() as session:
        version = catalogue_version(session)
        letters = typos.word_slice(session, "r", version)
        assert letters.nearest("rica") == "rice"  # rice (2 products) before rich (1), both one typo away
        assert letters.nearest("riseb") == "rise"
        assert letters.nearest("rxyz") is None
        assert letters.completion("ri") == "rice"
        fixed = typos.corrected(session, parse("rcie -rixe \"rics\""), version)
        assert fixed is not None and fixed.text == 'rice -rixe "rics"'  # excluded and quoted words as typed
        assert typos.corrected(session, parse("rice tea"), version) is None


def test_alternatives_naming_a_word_no_product_holds_are_dropped(make_category, make_product):
    make_product("Rice One 5kg", category=make_category("Shelf"), brand="melcom", description="Long grain")
    with session_scope() as session:
        version = catalogue_version(session)
        # In a column: the description alone holds "long", the brand alone "melcom".
        assert not typos.possible(session, parse("lon"), version).matches_nothing
        assert typos.possible(session, parse("lon"), version, NAMED).matches_nothing
        assert not typos.possible(session, parse("melc"), version, NAMED).matches_nothing
        assert typos.possible(session, parse("melc"), version, IN_NAME).matches_nothing
        assert typos.possible(session, parse("rcie"), version).matches_nothing
        assert typos.possible(session, parse("rcie or ri"), version).text == "ri"
        assert typos.possible(session, parse("ri one"), version).matches_nothing  # "ri" is a whole word here
        kept = parse('"rice one" 5kg -rcie')
        assert typos.possible(session, kept, version) == kept  # digits and exclusions are not looked up
