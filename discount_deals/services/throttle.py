"""Attempt counters for logins and registrations, safe against bursts.

:func:`hit` counts one attempt and returns the new count in a single statement (an
insert-or-update with ``RETURNING``), so that however many requests arrive at once each gets
a distinct count: on SQLite the statement runs under the database's write lock, on PostgreSQL
under the row's lock. A caller checks the count *before* doing the expensive or revealing
work (the password hash, the "already exists" lookup), so at most ``limit`` of them are done
per window, never "as many as arrived before the first one was recorded".

Windows are fixed: the first attempt opens one of ``window`` seconds; the count starts over
with the first attempt after it has passed.

Owns its transactions: :func:`count_attempt` (registrations count through it; a login counts
in a transaction of its own that also reads the account, ``services.auth.login``): an attempt's count is committed at once, since it must outlive the refusal it may cause (the
caller's unit of work rolls that back) and its lock must not be held through the slow or
revealing work it rations.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from sqlalchemy import case, delete
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session

from ..db import write_session
from ..models import AuthThrottle
from . import ServiceError

LOGIN = "login"
LOGIN_ACCOUNT = "login_account"  # per account from any address
LOGIN_DEVICE = "login_device"  # per account and recognised device (services.auth.login)
REGISTER = "register"
NAME_CHECKS = "name_checks"  # per account: new emails and usernames tried (services.users.accounts)
PASSWORD_CHECKS = "password_checks"  # per account: current passwords tried (services.auth.password_checks)


class Throttled(ServiceError):
    """Too many attempts (HTTP 429, with ``Retry-After``): "Too many {attempts}. Please try
    again in {n} minutes." """

    status = 429

    def __init__(self, attempts: str, retry_after: int, *, code: str = ""):
        minutes = math.ceil(retry_after / 60)
        wait = f"{minutes} minute{'s' if minutes != 1 else ''}"
        super().__init__(f"Too many {attempts}. Please try again in {wait}.", code=code)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


@dataclass(frozen=True)
class Count:
    """The attempts counted in the current window, including the one just made."""

    hits: int
    window_start: float
    window: int

    def over(self, limit: int) -> bool:
        return self.hits > limit

    def retry_after(self, now: float | None = None) -> int:
        """Whole seconds until the window ends (at least 1)."""
        now = time.time() if now is None else now
        return max(1, math.ceil(self.window_start + self.window - now))


def hit(session: Session, scope: str, key: str, window: int, *, now: float | None = None) -> Count:
    """Count one attempt for ``(scope, key)`` atomically and return the count of its window.

    Runs one statement in ``session``: the caller commits (and should, before slow work, so
    the row lock is not held)."""
    now = time.time() if now is None else now
    expired = AuthThrottle.window_start <= now - window
    dialect = session.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(AuthThrottle).values(scope=scope, key=key[:320], window_start=now, hits=1)
    statement = statement.on_conflict_do_update(
        index_elements=[AuthThrottle.scope, AuthThrottle.key],
        # Both expressions read the row as it was before this update.
        set_={
            "hits": case((expired, 1), else_=AuthThrottle.hits + 1),
            "window_start": case((expired, now), else_=AuthThrottle.window_start),
        },
    ).returning(AuthThrottle.hits, AuthThrottle.window_start)
    hits, started = session.execute(statement).one()
    return Count(hits=hits, window_start=started, window=window)


def count_attempt(scope: str, key: str, window: int) -> Count:
    """Count one attempt for ``(scope, key)`` (see :func:`hit`) and commit it at once.

    Owns its transactions: one short write transaction. The count must stay recorded although
    the request it counts is refused and its unit of work rolls back, and the row lock (on
    SQLite the database's write lock) must be released before the password hash or the
    "already exists" lookup the count rations. Call it before the caller's session has begun
    to write: a caller holding SQLite's write lock would wait here for itself.
    """
    with write_session() as session:
        return hit(session, scope, key, window)


def reset(session: Session, scope: str, key: str) -> None:
    """Forget the attempts of one key (a successful login)."""
    session.execute(delete(AuthThrottle).where(AuthThrottle.scope == scope, AuthThrottle.key == key[:320]))


def prune(session: Session, older_than: float) -> None:
    """Drop counters whose window started before ``older_than`` (Unix time)."""
    session.execute(delete(AuthThrottle).where(AuthThrottle.window_start < older_than))
