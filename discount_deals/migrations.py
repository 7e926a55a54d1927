"""Apply Alembic migrations from code (CLI ``migrate``, ``make run``, tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from .settings import PROJECT_DIR


def alembic_config() -> Config:
    config = Config(str(PROJECT_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_DIR / "alembic"))
    config.attributes["configure_logger"] = False
    return config


def upgrade_head() -> list[str]:
    """Bring the configured database to the latest revision, then check the search objects
    that live outside the models (see search_index); returns what had to be repaired."""
    from alembic.migration import MigrationContext

    from .db import get_engine
    from .search_index import ensure

    def revision() -> str | None:
        with get_engine().connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    before = revision()
    command.upgrade(alembic_config(), "head")
    # After a migration (which may have rebuilt the product table), also verify the index itself.
    with get_engine().begin() as connection:
        return ensure(connection, check_index=revision() != before)
