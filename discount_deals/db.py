"""Database engine and sessions.

SQLite (the embedded default) runs with WAL, foreign keys on and a busy timeout. Write
transactions that read before they write (checkout, bulk import) use :func:`write_session`,
which takes SQLite's write lock up front (``BEGIN IMMEDIATE``) so that two writers queue
instead of failing on a stale snapshot; on PostgreSQL it is an ordinary transaction and the
services use guarded updates and row locks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from .config.settings import get_settings

PG_CONNECT_TIMEOUT_S = 5

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # pragma: no cover - driver callback
        # Let SQLAlchemy's "begin" event below decide how transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # pragma: no cover - driver callback
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


def create_db_engine(url: str, *, pool_size: int | None = None) -> Engine:
    """Build an engine for ``url`` with the project's connection settings.

    ``pool_size`` (default ``DD_DB_POOL_SIZE``) caps the connections this process holds; a
    caller waits at most ``DD_DB_POOL_TIMEOUT`` for one.
    """
    settings = get_settings()
    size = max(1, pool_size or settings.db_pool_size)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            from pathlib import Path

            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        busy_ms = settings.sqlite_busy_timeout_ms
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_ms / 1000},
            pool_size=size,
            max_overflow=0,
            pool_timeout=settings.db_pool_timeout,
        )
        _configure_sqlite(engine, busy_ms)
        return engine
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=size,
        max_overflow=0,
        pool_timeout=settings.db_pool_timeout,
        connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S},
    )


def get_engine() -> Engine:
    """The engine for the configured database URL (one per URL, created on first use)."""
    url = get_settings().database_url
    engine = _engines.get(url)
    if engine is None:
        with _lock:
            engine = _engines.get(url)
            if engine is None:
                engine = _engines[url] = create_db_engine(url)
    return engine


def dispose_engines() -> None:
    """Close every pooled connection (tests and process shutdown)."""
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()


@contextmanager
def _unit_of_work(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException as exc:
            # A refusal that is itself a record (ServiceError.keeps_writes) keeps what was flushed.
            if getattr(exc, "keeps_writes", False):
                session.commit()
            else:
                session.rollback()
            raise


@contextmanager
def session_scope() -> Iterator[Session]:
    """A unit of work: a session that commits when the block succeeds and rolls back when it
    raises (except for a refusal whose ``keeps_writes`` is set: that one commits, then raises).

    The faces (API dependencies, Reflex states, the command line) hold these; services take
    the session and never commit it (see :mod:`discount_deals.services`).
    """
    with _unit_of_work(get_engine()) as session:
        yield session


@contextmanager
def write_session() -> Iterator[Session]:
    """Like :func:`session_scope` but holding the database write lock from the first statement."""
    engine = get_engine()
    if engine.dialect.name == "sqlite":
        engine = engine.execution_options(sqlite_begin="IMMEDIATE")
    with _unit_of_work(engine) as session:
        yield session
