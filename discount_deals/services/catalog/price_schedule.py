"""Keeping the stored listing prices right as discount windows open and close.

Listings filter and sort on ``product.effective_price`` and ``product.discount_percent``,
stored so that partial indexes serve them. They are computed by services.pricing when a
product is written, together with ``price_changes_at``: the moment the product's window next
opens or closes. :func:`refresh_due_prices` recomputes the rows whose moment has passed (an
indexed range read that usually finds nothing, and otherwise a handful of rows) and writes
them with one guarded executemany UPDATE. That UPDATE changes ``effective_price``, so the
catalogue-version triggers invalidate every worker's cached counts.

Readers call :func:`refresh_if_due` before reading prices (listings, featured products); it
looks at most once every :data:`CHECK_EVERY_S` seconds per worker. Carts, checkout and order
lines do not depend on it: they price each product from its window at the moment itself.

Owns its transactions: :func:`refresh_due_prices`, and :func:`refresh_if_due` through it. They
run from read paths, whose session may already hold a snapshot, and the refresh must be
committed whether or not the reader's work succeeds. :func:`apply_due_prices` takes a session.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from sqlalchemy import bindparam, text, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from ...db import get_engine, write_session
from ...models import Product
from .. import pricing
from ..messages import deals
from .validation import price_columns

log = logging.getLogger("discount_deals.catalog")

CHECK_EVERY_S = 5.0
# Rows refreshed per statement (a passed moment usually concerns a handful).
BATCH = 500
# How long a shopper's read waits for SQLite's write lock before leaving the refresh to a later
# read (a bulk import may hold the lock for seconds).
SQLITE_LOCK_WAIT_MS = 200
PG_LOCK_WAIT_MS = 1000

_lock = threading.Lock()
_checked_at: dict[str, float] = {}  # database URL → monotonic time of the last look


def due_products(session: Session, at: datetime, limit: int = BATCH) -> list[Product]:
    """Products whose stored price columns are out of date at ``at``."""
    return list(
        session.exec(
            select(Product).where(Product.price_changes_at.is_not(None), Product.price_changes_at <= at)
            .order_by(Product.price_changes_at, Product.id)
            .limit(limit)
        ).all()
    )


def apply_due_prices(session: Session, at: datetime | None = None) -> int:
    """Recompute the out-of-date rows in the caller's transaction; returns how many changed.

    Each row is written only if its window has not been edited meanwhile (the UPDATE checks
    ``price_changes_at`` is still what was read), so a concurrent admin edit always wins."""
    at = pricing.utc(at) if at is not None else pricing.now_utc()
    changed = 0
    while True:
        rows = due_products(session, at)
        if not rows:
            return changed
        params, drops = [], []
        for product in rows:
            values = price_columns(
                product.price, product.discount_price, product.discount_start, product.discount_end, at
            )
            params.append({"row_id": product.id, "seen": product.price_changes_at, **values})
            drops.append((product.id, product.effective_price, values["effective_price"], product.price_changes_at))
            session.expunge(product)
        statement = (
            update(Product.__table__)
            .where(Product.__table__.c.id == bindparam("row_id"),
                   Product.__table__.c.price_changes_at == bindparam("seen"))
            .values(
                effective_price=bindparam("effective_price"),
                discount_percent=bindparam("discount_percent"),
                price_changes_at=bindparam("price_changes_at"),
            )
        )
        result = session.connection().execute(statement, params)
        changed += max(result.rowcount, 0)
        deals.window_drops(session, drops)  # a discount window opened: deal alerts (keyed: once)
        if len(rows) < BATCH:
            return changed


def refresh_due_prices(at: datetime | None = None) -> int:
    """Bring the stored prices up to date at ``at`` (now) in a write transaction of its own.

    Owns its transactions: it runs from read paths, whose own session may already hold a
    snapshot, and the refresh must commit whether or not the reader's work succeeds. It first
    looks without the write lock, so the usual case (nothing due) writes nothing. On SQLite it waits at most
    :data:`SQLITE_LOCK_WAIT_MS` for the write lock (``BEGIN IMMEDIATE``), on PostgreSQL
    :data:`PG_LOCK_WAIT_MS` for row locks, and otherwise leaves the work to a later read.
    Returns how many rows changed.
    """
    at = pricing.utc(at) if at is not None else pricing.now_utc()
    engine = get_engine()
    with Session(engine) as session:
        due = session.exec(
            select(Product.id).where(Product.price_changes_at.is_not(None), Product.price_changes_at <= at).limit(1)
        ).first()
    if due is None:
        return 0
    if engine.dialect.name != "sqlite":
        try:
            with write_session() as session:
                # Never queue behind a transaction that holds one of these rows for long.
                session.execute(text(f"SET LOCAL lock_timeout = '{PG_LOCK_WAIT_MS}ms'"))
                return apply_due_prices(session, at)
        except OperationalError as exc:
            if "lock" not in str(exc).lower():
                raise
            log.info("price refresh skipped: rows are locked")
            _checked_at.pop(str(engine.url), None)
            return 0
    from ...config.settings import get_settings

    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        raw.execute(f"PRAGMA busy_timeout={SQLITE_LOCK_WAIT_MS}")
        try:
            with Session(bind=connection.execution_options(sqlite_begin="IMMEDIATE")) as session, session.begin():
                return apply_due_prices(session, at)
        except OperationalError as exc:
            if "locked" not in str(exc).lower() and "busy" not in str(exc).lower():
                raise
            log.info("price refresh skipped: the database is busy")
            _checked_at.pop(str(engine.url), None)  # look again at the next read
            return 0
        finally:
            raw.execute(f"PRAGMA busy_timeout={int(get_settings().sqlite_busy_timeout_ms)}")


def refresh_if_due(at: datetime | None = None) -> int:
    """:func:`refresh_due_prices`, at most once every :data:`CHECK_EVERY_S` seconds per worker
    (always when ``at`` is given: tests and tools pass the moment they mean).

    Owns its transactions: those of :func:`refresh_due_prices`, whatever session the reader holds.
    """
    if at is None:
        key = str(get_engine().url)
        now = time.monotonic()
        with _lock:
            last = _checked_at.get(key)
            if last is not None and now - last < CHECK_EVERY_S:
                return 0
            _checked_at[key] = now
    try:
        return refresh_due_prices(at)
    except Exception:
        log.exception("price refresh failed")
        return 0


def reset_throttle() -> None:
    """Forget when this worker last looked (tests)."""
    with _lock:
        _checked_at.clear()
