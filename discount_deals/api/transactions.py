"""Transaction choices for endpoints that write (cart, favourites, orders).

The request session of ``deps.get_session`` is an ordinary deferred transaction. On SQLite in
WAL mode, once it has read (the current user) it may no longer write if another connection has
committed since: the write fails at once with "database is locked" (busy_timeout does not help).
So endpoints that read then write use :data:`WritingUser` with :data:`WriteSessionDep`, one
transaction that takes the write lock up front (``BEGIN IMMEDIATE``), and endpoints whose
service opens its own write transaction (checkout) use :data:`UserOnly`, which holds no session
open while the service runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

from ..db import session_scope, write_session
from ..models import User
from .deps import current_user


def _write_session() -> Iterator[Session]:
    with write_session() as session:
        yield session


WriteSessionDep = Annotated[Session, Depends(_write_session, scope="function")]


def _writing_user(request: Request, session: WriteSessionDep) -> User:
    return current_user(request, session)


def _user_only(request: Request) -> User:
    with session_scope() as session:
        return current_user(request, session)


WritingUser = Annotated[User, Depends(_writing_user)]
UserOnly = Annotated[User, Depends(_user_only)]
