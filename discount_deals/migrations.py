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


def upgrade_head() -> None:
    """Bring the configured database to the latest revision."""
    command.upgrade(alembic_config(), "head")
