"""The queue (Huey); the hook that feeds it after each commit is :mod:`.hook`.

Huey was chosen for its embedded default: a SQLite file needs no server (``make run`` on one
machine), and the same tasks run on Redis in production (REFLEX_REDIS_URL, already required for
several workers). It is small, maintained, has delayed tasks (retries with backoff) and locks.
The queue holds only nudges ("deliver messages X, Y", "look at deal events", "sweep"): losing
one delays a message until the next sweep, never loses it, because the outbox table is the truth.
"""

from __future__ import annotations

from huey import Huey, RedisHuey, SqliteHuey
from ..config.settings import get_settings

QUEUE_NAME = "discount_deals"


def make_huey() -> Huey:
    """Redis when REFLEX_REDIS_URL is set, else a SQLite file beside the database (DD_VAR_DIR)."""
    settings = get_settings()
    if settings.redis_url:
        return RedisHuey(QUEUE_NAME, url=settings.redis_url, results=False)
    settings.var_dir.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(QUEUE_NAME, filename=str(settings.var_dir / "queue.db"), results=False)


def backend_name(huey: Huey) -> str:
    return "redis" if isinstance(huey, RedisHuey) else "sqlite"
