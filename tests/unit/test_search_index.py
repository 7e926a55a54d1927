"""The search objects outside the models repair themselves: a lost trigger is recreated and an
index out of step with the products is rebuilt (what ``migrate`` runs after every upgrade)."""

from __future__ import annotations

from sqlalchemy import text

from discount_deals.search import index as search_index
from discount_deals.db import get_engine, session_scope
from discount_deals.services.catalog import list_products


def names_found(word: str) -> list[str]:
    with session_scope() as session:
        return [p.name for p, _ in list_products(session, search=word, ordering="name").items]


def test_a_lost_trigger_is_recreated_and_the_index_rebuilt(make_product):
    engine = get_engine()
    trigger = "product_search_insert" if engine.dialect.name == "sqlite" else "product_search"
    drop = f"DROP TRIGGER {trigger}" + ("" if engine.dialect.name == "sqlite" else " ON product")
    with engine.begin() as connection:
        connection.exec_driver_sql(drop)
    make_product("Unindexed Plantain Chips")  # written while the trigger was gone
    assert names_found("plantain") == []
    with engine.begin() as connection:
        assert trigger in search_index.ensure(connection)
    assert names_found("plantain") == ["Unindexed Plantain Chips"]
    with engine.begin() as connection:
        assert search_index.ensure(connection) == []  # all well now


def test_sqlite_index_out_of_step_is_detected_and_rebuilt(make_product):
    engine = get_engine()
    if engine.dialect.name != "sqlite":
        return
    product = make_product("Kenkey Balls")
    with engine.begin() as connection:  # a rebuild of the table that renumbers rowids does this
        connection.exec_driver_sql("DROP TRIGGER product_search_update")
        connection.execute(text("UPDATE product SET name = 'Banku Balls' WHERE id = :id"), {"id": product.id})
        search_index._sqlite_install(connection)  # the trigger is back, the index is still stale
    assert names_found("banku") == []
    with engine.begin() as connection:
        assert search_index.ensure(connection, check_index=False) == []
        assert search_index.ensure(connection) == ["product_fts (rebuilt)"]
    assert names_found("banku") == ["Banku Balls"] and names_found("kenkey") == []
