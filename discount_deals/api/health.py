"""Health for load balancers and operators.

- ``GET /api/live``: liveness. The process answers; touches nothing else (cheap enough to poll
  every second). A load balancer restarts or drops an instance that stops answering it.
- ``GET /api/health``: readiness (and the message queue's depth, oldest message age and dead
  messages, which do not make it fail: a stuck queue shows as a growing ``oldest_seconds``). The database answers and has its schema, and when ``REFLEX_REDIS_URL`` is set,
  Redis does (the storefront's sessions live there: without it pages render empty). 503 when
  either is down, naming which; it recovers on its own once they are back, because every check
  uses a fresh attempt with a short timeout (pool pre-ping for the database, a reconnecting
  client for Redis).
"""

from __future__ import annotations

import logging
import threading

from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import inspect, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..db import get_engine
from ..config.settings import get_settings
from .routing import ApiRouter

router = ApiRouter(tags=["health"])
log = logging.getLogger("discount_deals.health")

REDIS_TIMEOUT_S = 2.0
NOT_CONFIGURED = "not configured"


class QueueHealth(BaseModel):
    depth: int = Field(description="Messages waiting to be sent (queued, being sent, or to be retried)")
    oldest_seconds: float = Field(description="Age of the oldest of them, in seconds (0 when none)")
    dead: int = Field(description="Messages given up on (the back office's Notifications tab can retry them)")


class Health(BaseModel):
    status: str
    database: str
    redis: str
    queue: QueueHealth | None = None


class Live(BaseModel):
    status: str


_redis_lock = threading.Lock()
_redis_clients: dict[str, object] = {}


def _redis_client(url: str):
    """One client (and its connection pool) per URL and process; it reconnects by itself."""
    with _redis_lock:
        client = _redis_clients.get(url)
        if client is None:
            import redis

            client = _redis_clients[url] = redis.Redis.from_url(
                url, socket_connect_timeout=REDIS_TIMEOUT_S, socket_timeout=REDIS_TIMEOUT_S
            )
        return client


def database_status() -> str:
    """"ok", "unreachable", or "not migrated" (no schema: run ``python -m discount_deals migrate``)."""
    try:
        with get_engine().connect() as connection:
            if not inspect(connection).has_table("alembic_version"):
                return "not migrated"
            connection.execute(text("SELECT version_num FROM alembic_version"))
    except (SQLAlchemyError, PoolTimeout) as exc:
        log.warning("health: database unreachable: %s", getattr(exc, "orig", None) or exc)
        return "unreachable"
    return "ok"


def redis_status() -> str:
    url = get_settings().redis_url
    if not url:
        return NOT_CONFIGURED
    from redis.exceptions import RedisError

    try:
        _redis_client(url).ping()
    except RedisError as exc:
        log.warning("health: redis unreachable: %s", exc)
        return "unreachable"
    return "ok"


def queue_status() -> dict | None:
    """The outbox's depth and oldest waiting message (a growing age means no worker runs)."""
    from sqlmodel import Session

    from ..services.messages.outbox import queue_stats

    try:
        with Session(get_engine()) as session:
            stats = queue_stats(session)
    except (SQLAlchemyError, PoolTimeout) as exc:
        log.warning("health: outbox unreadable: %s", getattr(exc, "orig", None) or exc)
        return None
    return {"depth": stats.depth, "oldest_seconds": stats.oldest_seconds, "dead": stats.dead}


@router.get("/live/", response_model=Live, summary="Liveness: the process answers (no I/O)")
async def live():
    return {"status": "alive"}


@router.get(
    "/health/",
    response_model=Health,
    responses={503: {"model": Health, "description": "The database or Redis does not answer"}},
    summary="Readiness: the database and (when configured) Redis answer",
)
def health():
    body = {"database": database_status(), "redis": redis_status()}
    healthy = all(value in ("ok", NOT_CONFIGURED) for value in body.values())
    body = {"status": "ok" if healthy else "error", **body, "queue": queue_status() if body["database"] == "ok" else None}
    if not healthy:
        return JSONResponse(body, status_code=503, headers={"Cache-Control": "no-store"})
    return JSONResponse(body, headers={"Cache-Control": "no-store"})
