"""Dependencies shared by the routers: database sessions, current user, role checks.

A missing, expired or invalid token answers 401 (the existing client refreshes only on 401);
a valid token without the right role answers 403.

Sessions: read-only endpoints use :data:`SessionDep`. Endpoints that write use
:data:`WriteSessionDep`, which takes SQLite's write lock at its first statement: on SQLite in
WAL mode a transaction that has read may not start writing once another connection has
committed (it fails at once with "database is locked", whatever the busy timeout), so a
writer must be a writer from the start. The current user is looked up in a short session of
its own, so it combines with either, and with services that open their own transaction
(checkout).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

from ..db import session_scope, write_session
from ..models import User
from ..services import NotAuthenticated
from ..services.auth.tokens import user_for_access_token
from ..services.permissions import require_admin
from ..config.settings import client_ip


class _Unauthorized(NotAuthenticated):
    headers = {"WWW-Authenticate": "Bearer"}


def get_session() -> Iterator[Session]:
    """One session per request, committed when the endpoint returns without error."""
    with session_scope() as session:
        yield session


def get_write_session() -> Iterator[Session]:
    """One write transaction per request (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
    with write_session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
WriteSessionDep = Annotated[Session, Depends(get_write_session, scope="function")]


def bearer_token(request: Request) -> str | None:
    # "Bearer", any white space, the token: one reading for every route (a tab after "Bearer"
    # was no token on one route and a guest on another).
    parts = request.headers.get("authorization", "").split(None, 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1].strip() or None


def current_user(request: Request) -> User:
    token = bearer_token(request)
    if token is None:
        raise _Unauthorized("Authentication credentials were not provided.")
    try:
        with session_scope() as session:
            return user_for_access_token(session, token)
    except NotAuthenticated as exc:
        raise _Unauthorized(exc.detail) from None


def optional_user_in(session: Session, request: Request) -> User | None:
    """:func:`optional_user` inside a session the caller already holds (hot read paths that do
    all their work in one worker-thread call)."""
    token = bearer_token(request)
    if token is None:
        return None
    try:
        return user_for_access_token(session, token)
    except NotAuthenticated as exc:
        raise _Unauthorized(exc.detail) from None


def optional_user(request: Request) -> User | None:
    """The user when a valid token is sent; a missing token means a guest.

    An invalid or expired token still answers 401 so that the client refreshes it.
    """
    if bearer_token(request) is None:
        return None
    return current_user(request)


def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    return require_admin(user)


CurrentUser = Annotated[User, Depends(current_user)]
OptionalUser = Annotated[User | None, Depends(optional_user)]
AdminUser = Annotated[User, Depends(admin_user)]


def client_address(request: Request) -> str:
    return client_ip(request.client.host if request.client else None, request.headers.get("x-forwarded-for"))
