"""``python -m discount_deals backup FILE``: a consistent copy of the database while the shop runs.

SQLite: the online backup API (pages copied under a read transaction; writers keep going).
PostgreSQL: ``pg_dump --format=custom`` (restore with ``pg_restore --clean --if-exists``).
Restoring is described in docs/deploy.md; uploaded pictures (``DD_MEDIA_DIR``) are backed up
separately (they are plain files).
"""

from __future__ import annotations

import glob
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url

from ..services import ServiceError
from ..config.settings import get_settings


def _pg_dump() -> str | None:
    found = shutil.which("pg_dump")
    if found:
        return found
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_dump"))
    return candidates[-1] if candidates else None


def backup_database(destination: str) -> str:
    target = Path(destination).expanduser().resolve()
    if target.exists():
        raise ServiceError(f"{target} already exists: choose a new file name")
    if not target.parent.is_dir():
        raise ServiceError(f"the folder {target.parent} does not exist")
    url = make_url(get_settings().database_url)
    if url.get_backend_name() == "sqlite":
        source = sqlite3.connect(f"file:{url.database}?mode=ro", uri=True)
        copy = sqlite3.connect(target)
        try:
            with copy:
                source.backup(copy)
        finally:
            copy.close()
            source.close()
        return f"Backed up the SQLite database to {target} ({target.stat().st_size} bytes)."
    pg_dump = _pg_dump()
    if pg_dump is None:
        raise ServiceError("pg_dump not found: install postgresql-client (apt-get install postgresql-client)")
    libpq_url = url.set(drivername="postgresql").render_as_string(hide_password=False)
    result = subprocess.run(
        [pg_dump, "--format=custom", "--no-owner", f"--file={target}", f"--dbname={libpq_url}"],
        capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        target.unlink(missing_ok=True)
        reason = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise ServiceError(f"pg_dump failed: {reason}")
    return f"Backed up the PostgreSQL database to {target} ({target.stat().st_size} bytes, pg_dump custom format)."
