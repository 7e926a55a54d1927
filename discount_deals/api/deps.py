"""Dependencies shared by the routers: database session, current user, role checks.

A missing, expired or invalid token answers 401 (the existing client refreshes only on 401);
a valid token without the right role answers 403.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

from ..db import session_scope
from ..models import Role, User
from ..services import NotAuthenticated, PermissionDenied
from ..services.auth import user_for_access_token


class _Unauthorized(NotAuthenticated):
    headers = {"WWW-Authenticate": "Bearer"}


def get_session() -> Iterator[Session]:
    """One session per request, committed when the endpoint returns without error."""
    with session_scope() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def current_user(request: Request, session: SessionDep) -> User:
    token = bearer_token(request)
    if token is None:
        raise _Unauthorized("Authentication credentials were not provided.")
    try:
        return user_for_access_token(session, token)
    except NotAuthenticated as exc:
        raise _Unauthorized(exc.detail) from None


def optional_user(request: Request, session: SessionDep) -> User | None:
    """The user when a valid token is sent; a missing token means a guest.

    An invalid or expired token still answers 401 so that the client refreshes it.
    """
    if bearer_token(request) is None:
        return None
    return current_user(request, session)


def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if user.role != Role.ADMIN.value:
        raise PermissionDenied()
    return user


CurrentUser = Annotated[User, Depends(current_user)]
OptionalUser = Annotated[User | None, Depends(optional_user)]
AdminUser = Annotated[User, Depends(admin_user)]


def client_address(request: Request) -> str:
    return (request.client.host if request.client else "unknown")[:64]
