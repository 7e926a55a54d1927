"""Who may do what. Services call these; faces (API deps, Reflex state) never decide alone."""

from __future__ import annotations

from ..models import Role, User
from . import NotAuthenticated, PermissionDenied


def require_user(actor: User | None) -> User:
    if actor is None:
        raise NotAuthenticated()
    return actor


def is_admin(actor: User | None) -> bool:
    return actor is not None and actor.role == Role.ADMIN.value


def require_admin(actor: User | None) -> User:
    actor = require_user(actor)
    if not is_admin(actor):
        raise PermissionDenied()
    return actor
