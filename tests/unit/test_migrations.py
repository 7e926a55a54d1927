"""Models and migrations agree, and the database runs with the settings we rely on."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Engine

from discount_deals import models
from discount_deals.search import index as search_index
from discount_deals.db import create_db_engine
from discount_deals.config.settings import get_settings

from ..conftest import sqlite_pragma
from ..support.migrations import alembic_on, engine_at, run_alembic


def _upgrade(url: str, revision: str = "head") -> None:
    run_alembic(url, command.upgrade, revision)


def test_all_revisions_on_an_empty_database_match_the_models(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    _upgrade(url)
    with engine_at(url) as engine, engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True, "include_name": search_index.include_name}
        )
        assert compare_metadata(context, models.metadata) == []
        tables = set(inspect(connection).get_table_names())
    assert set(models.metadata.tables) <= tables


def test_downgrade_to_base_and_back(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'roundtrip.db'}"
    _upgrade(url)
    with engine_at(url) as engine:
        with engine.begin() as connection:
            command.downgrade(alembic_on(connection), "base")
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
    _upgrade(url)


@pytest.mark.skipif(not get_settings().is_sqlite, reason="SQLite settings")
def test_sqlite_runs_with_wal_foreign_keys_and_busy_timeout():
    assert sqlite_pragma("journal_mode") == "wal"
    assert sqlite_pragma("foreign_keys") == 1
    assert sqlite_pragma("busy_timeout") >= 5000


def test_the_session_database_matches_the_models():
    """The same check on the database the suite runs on (PostgreSQL in `make test-postgres`)."""
    from discount_deals.db import get_engine

    with get_engine().connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True, "include_name": search_index.include_name})
        assert compare_metadata(context, models.metadata) == []


@contextmanager
def _database_at(tmp_path: Path, revision: str) -> Iterator[tuple[str, Engine]]:
    """A fresh database migrated up to ``revision`` (rows are written as it stood then), and an
    engine on it; the test migrates on with ``_upgrade(url)``."""
    from ..support.migrations import fresh_database

    with fresh_database(tmp_path) as url:
        _upgrade(url, revision)
        engine = create_db_engine(url)
        try:
            yield url, engine
        finally:
            engine.dispose()


def _insert(connection, table_name: str, **values) -> None:
    """A row as the table stood at that revision: NOT NULL columns without a default get a dummy."""
    import datetime as dt

    from sqlalchemy import MetaData, Table

    table = Table(table_name, MetaData(), autoload_with=connection)
    for column in table.columns:
        if column.name in values or column.nullable or column.server_default is not None:
            continue
        python_type = column.type.python_type if not hasattr(column.type, "impl") else column.type.impl.python_type
        values[column.name] = {int: 0, bool: False, dt.datetime: dt.datetime(2026, 11, 1, tzinfo=dt.UTC)}.get(
            python_type, "0" if python_type.__name__ == "Decimal" else f"x-{column.name}")
    connection.execute(table.insert().values(**values))


def test_delivered_orders_get_their_delivery_time_from_their_timeline(tmp_path: Path):
    """Revision 33r_returns_refunds back-fills ``order.delivered_at`` (returns are open for
    DD_RETURN_DAYS after it) from the last status event to delivered (or completed)."""
    import datetime as dt

    from sqlalchemy import text

    url = f"sqlite:///{tmp_path / 'backfill.db'}"
    _upgrade(url, "33d_receipt_numbers")
    delivered_at = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            _insert(connection, "user", id="u1", email="ama@example.com", username="ama")
            for order_id, status in (("o-delivered", "delivered"), ("o-completed", "completed"),
                                     ("o-pending", "pending")):
                _insert(connection, "order", id=order_id, user_id="u1", status=status)
            events = [("o-delivered", "shipped", delivered_at - dt.timedelta(days=1)),
                      ("o-delivered", "delivered", delivered_at), ("o-completed", "completed", delivered_at),
                      ("o-pending", "pending", delivered_at)]
            for n, (order_id, to_value, when) in enumerate(events):
                _insert(connection, "order_event", id=f"e{n}", order_id=order_id, kind="status", to_value=to_value,
                        created_at=when)
        _upgrade(url)
        with engine.connect() as connection:
            rows = dict(connection.execute(text('SELECT id, delivered_at FROM "order"')).all())
            refunded = set(connection.execute(text('SELECT refunded_total FROM "order"')).scalars())
    finally:
        engine.dispose()
    assert rows["o-delivered"] is not None and rows["o-delivered"].startswith("2026-11-20 10:00")
    assert rows["o-completed"].startswith("2026-11-20 10:00") and rows["o-pending"] is None
    assert {str(value) for value in refunded} <= {"0", "0.00", "0E-2"}


def test_usernames_one_in_another_case_are_renamed_before_the_index(tmp_path: Path):
    """Revision 36u_username_any_case: accounts that share a name in another case (possible
    before it, on PostgreSQL, when two registered at once) keep the oldest as it is, the later
    ones get "-2", "-3" (a free one), and then the database refuses any new case variant. Names
    the database folds as one where Python does not ("İnci", "inci" by glibc) build the index too."""
    import datetime as dt

    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    names = ("Kofi", "kofi", "KOFI", "kofi-2", "Ama", "inci", "İnci", "οδοσ", "ΟΔΟΣ")
    first = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    with _database_at(tmp_path, "36c_credit_note_tax_lines") as (url, engine):
        with engine.begin() as connection:
            for n, name in enumerate(names):
                _insert(connection, "user", id=f"u{n}", email=f"u{n}@example.com", username=name,
                        created_at=first + dt.timedelta(hours=n))
        _upgrade(url)
        with engine.connect() as connection:
            stored = dict(connection.execute(text('SELECT id, username FROM "user"')).all())
        with pytest.raises(IntegrityError), engine.begin() as connection:
            _insert(connection, "user", id="u99", email="u99@example.com", username="AMA")
    assert [stored[f"u{n}"] for n in range(5)] == ["Kofi", "kofi-3", "KOFI-4", "kofi-2", "Ama"]
    assert (stored["u5"], stored["u7"]) == ("inci", "οδοσ")  # the oldest keep theirs, whatever the fold


def test_product_name_keys_follow_todays_rule_and_look_alike_pairs_keep_theirs(tmp_path: Path):
    """Revision 38k_product_name_keys: keys stored by the old rule (lower case, blanks collapsed)
    are recomputed (invisible characters dropped, NFKC), so that a new "Rice" is refused beside an
    old "Ｒｉｃｅ"; of a look-alike pair made before, the older gets the key and the later keeps its own."""
    import datetime as dt

    from sqlalchemy import text

    from discount_deals.services.catalog import name_key

    names = {"p0": "Rice", "p1": "Ｒｉｃｅ", "p2": "Ｓｕｇａｒ 1㎏", "p3": "Mi\u200blo", "p4": "Plain Tea"}
    first = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    with _database_at(tmp_path, "37v_contact_version") as (url, engine):
        with engine.begin() as connection:
            _insert(connection, "category", id="c", name="Food", slug="food")
            for n, (product_id, name) in enumerate(names.items()):
                _insert(connection, "product", id=product_id, name=name, name_key=" ".join(name.split()).lower(),
                        category_id="c", rating=0, tags=[], related_products=[],
                        created_at=first + dt.timedelta(hours=n))
        _upgrade(url)
        with engine.connect() as connection:
            keys = dict(connection.execute(text("SELECT id, name_key FROM product")).all())
    assert keys == {"p0": "rice", "p1": "ｒｉｃｅ", "p2": "sugar 1kg", "p3": "milo", "p4": "plain tea"}
    assert all(keys[p] == name_key(names[p]) for p in ("p0", "p2", "p3", "p4"))  # the migration's rule is today's
