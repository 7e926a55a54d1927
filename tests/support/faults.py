"""Faults put into the test database: a trigger that refuses inserts, to prove that a change
never outlives a failed write in its transaction (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text

from discount_deals.db import get_engine


@contextmanager
def refused_inserts(table: str, name: str, message: str, *, where: str = "", errcode: str = "") -> Iterator[None]:
    """A trigger ``name`` that refuses inserts into ``table`` with ``message`` (only rows for which
    the SQL condition ``where`` on ``NEW`` holds, when given; ``errcode`` is PostgreSQL's SQLSTATE);
    dropped after the block."""
    engine = get_engine()
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            when = f"WHEN {where} " if where else ""
            connection.execute(text(f"CREATE TRIGGER {name} BEFORE INSERT ON {table} "
                                    f"{when}BEGIN SELECT RAISE(ABORT, '{message}'); END"))
        else:
            using = f" USING ERRCODE = '{errcode}'" if errcode else ""
            connection.execute(text(f"CREATE FUNCTION {name}() RETURNS trigger AS $$ BEGIN "
                                    f"IF {where or 'TRUE'} THEN RAISE EXCEPTION '{message}'{using}; END IF; "
                                    "RETURN NEW; END $$ LANGUAGE plpgsql"))
            connection.execute(text(f"CREATE TRIGGER {name} BEFORE INSERT ON {table} "
                                    f"FOR EACH ROW EXECUTE FUNCTION {name}()"))
    try:
        yield
    finally:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                connection.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
            else:
                connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
                connection.execute(text(f"DROP FUNCTION IF EXISTS {name}()"))
