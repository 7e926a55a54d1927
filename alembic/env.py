"""Alembic environment wired to the application's models and configured database."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from discount_deals import models
from discount_deals.search import index as search_index
from discount_deals.db import get_engine
from discount_deals.config.settings import get_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

# Tests may compare the migrations with other models (config.attributes["target_metadata"]).
target_metadata = config.attributes.get("target_metadata", models.metadata)


def _compare_server_default(context, inspected_column, metadata_column, inspected_default, metadata_default,
                            rendered_metadata_default):
    """An empty-string default is no change. Alembic's SQLite comparison unquotes only non-empty
    literals, so ``DEFAULT ''`` (``('')`` as batch migrations write it) never equalled the model's
    ``server_default=""`` and ``alembic check`` reported order.attention_note although the schema
    is the model's. None: Alembic's own comparison decides (any other default, any dialect)."""
    if context.dialect.name == "sqlite" and rendered_metadata_default == "" and inspected_default in ("''", "('')"):
        return False
    return None


def _options(is_sqlite: bool) -> dict:
    return {
        "target_metadata": target_metadata,
        "render_as_batch": is_sqlite,
        "compare_type": True,
        "compare_server_default": _compare_server_default,
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
