"""Alembic run by the tests on databases of their own: a fresh empty one of the suite's kind, and
Alembic's commands on it through alembic/env.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic.config import Config
from sqlalchemy import MetaData, create_engine, text
from sqlalchemy.engine import Connection, Engine, make_url

from discount_deals.config.settings import get_settings
from discount_deals.db import create_db_engine
from discount_deals.server.migrations import alembic_config


@contextmanager
def engine_at(url: str) -> Iterator[Engine]:
    """An engine on ``url`` for the block, disposed after it (its file or database may then go)."""
    engine = create_db_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def alembic_on(connection: Connection) -> Config:
    """Alembic's configuration, its commands run on ``connection`` (in its transaction)."""
    config = alembic_config()
    config.attributes["connection"] = connection
    return config


@contextmanager
def fresh_database(tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of the suite's kind: a new SQLite file, or a new PostgreSQL
    database beside the suite's (dropped afterwards)."""
    url = get_settings().database_url
    if make_url(url).get_backend_name() == "sqlite":
        yield f"sqlite:///{tmp_path / 'check.db'}"
        return
    name = f"dd_check_{uuid.uuid4().hex[:12]}"
    server = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
        with server.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        server.dispose()


def run_alembic(url: str, action, *args, target_metadata: MetaData | None = None) -> None:
    """Run an Alembic command (``command.upgrade``, ``command.check``) on ``url`` through alembic/env.py."""
    with engine_at(url) as engine, engine.begin() as connection:
        config = alembic_on(connection)
        if target_metadata is not None:
            config.attributes["target_metadata"] = target_metadata
        action(config, *args)
