"""Alembic environment wired to the application's models and configured database."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from discount_deals import models, search_index
from discount_deals.db import get_engine
from discount_deals.settings import get_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = models.metadata


def _options(is_sqlite: bool) -> dict:
    return {
        "target_metadata": target_metadata,
        "render_as_batch": is_sqlite,
        "compare_type": True,
        "compare_server_default": True,
        "include_name": search_index.include_name,
    }


def run_migrations_offline() -> None:
    url = get_settings().database_url
    context.configure(url=url, literal_binds=True, dialect_opts={"paramstyle": "named"}, **_options(url.startswith("sqlite")))
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, **_options(connection.dialect.name == "sqlite"))
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = get_engine()
    with engine.connect() as connection:
        context.configure(connection=connection, **_options(engine.dialect.name == "sqlite"))
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
