"""Apply Alembic migrations from code (CLI ``migrate``, ``serve``, tests).

:func:`upgrade_head` first compares the database's revision with the code's head, so a start
with a current schema is a cheap check. Two processes migrating at once (two hosts starting
together) take turns: a PostgreSQL advisory lock, or a lock file next to a SQLite database.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import make_url

from ..config.settings import PROJECT_DIR, get_settings

# Any constant shared by every instance of the app (pg_advisory_lock takes a bigint).
_ADVISORY_LOCK_KEY = 0x0DD_5E12


@dataclass(frozen=True)
class MigrationOutcome:
    before: str | None  # None: the database had no schema yet
    after: str
    repaired: tuple[str, ...] = ()  # search objects recreated or rebuilt (see search.index.ensure)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def message(self) -> str:
        repaired = f" Search index repaired: {', '.join(self.repaired)}." if self.repaired else ""
        return self._message() + repaired

    def _message(self) -> str:
        if not self.changed:
            return f"Database is up to date (revision {self.after})."
        if self.before is None:
            return f"Database created and migrated to revision {self.after}."
        return f"Database migrated from revision {self.before} to {self.after}."


def alembic_config() -> Config:
    config = Config(str(PROJECT_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_DIR / "alembic"))
    config.attributes["configure_logger"] = False
    return config


def head_revision() -> str:
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    return ",".join(sorted(heads))


def current_revision() -> str | None:
    """The database's revision (None when it has no schema yet)."""
    from ..db import get_engine

    with get_engine().connect() as connection:
        heads = MigrationContext.configure(connection).get_current_heads()
    return ",".join(sorted(heads)) or None


@contextmanager
def _migration_lock() -> Iterator[None]:
    from ..db import get_engine

    url = get_settings().database_url
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        lock_path = Path(f"{parsed.database}.migrate-lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with lock_path.open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        return
    with get_engine().connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _ADVISORY_LOCK_KEY})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _ADVISORY_LOCK_KEY})
            connection.commit()


def upgrade_head() -> MigrationOutcome:
    """Bring the configured database to the latest revision; a no-op check when it is there already.

    Then the search objects that live outside the models (see search/index.py) are checked: a
    missing trigger is recreated, and after a migration (which may have rebuilt the product
    table) the index itself is verified against the products and rebuilt if out of step."""
    from ..db import get_engine
    from ..search.index import ensure

    head = head_revision()
    before = current_revision()
    if before != head:
        with _migration_lock():
            before = current_revision()  # another process may have migrated while we waited
            if before != head:
                command.upgrade(alembic_config(), "head")
    with get_engine().begin() as connection:
        repaired = ensure(connection, check_index=before != head)
    return MigrationOutcome(before=before, after=head, repaired=tuple(repaired))
