"""Models and migrations agree, and the database runs with the settings we rely on."""

from pathlib import Path

import pytest

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from discount_deals import models, search_index
from discount_deals.db import create_db_engine
from discount_deals.migrations import alembic_config
from discount_deals.settings import get_settings

from ..conftest import sqlite_pragma


def _upgrade(url: str, revision: str = "head") -> None:
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        engine.dispose()


def test_all_revisions_on_an_empty_database_match_the_models(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    _upgrade(url)
    engine = create_db_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "render_as_batch": True, "include_name": search_index.include_name}
            )
            assert compare_metadata(context, models.metadata) == []
            tables = set(inspect(connection).get_table_names())
    finally:
        engine.dispose()
    assert set(models.metadata.tables) <= tables


def test_downgrade_to_base_and_back(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'roundtrip.db'}"
    _upgrade(url)
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
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
