"""Back-office user management: the list of users, roles, (de)activation (admins only)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, func, or_, select

from ...models import Role, User
from .. import Conflict, ValidationFailed, audit
from ..auth.tokens import log_out_everywhere
from ..error_codes import ErrorCode
from ..form_rules import MUST_BE_BOOLEAN
from ..permissions import require_admin
from ..rows import found
from ..text_match import contains
from .fields import ROLES, is_closed

CLOSED = "This account was closed by its owner: it cannot be changed or reopened."


def _valid_role(role: Any, field: str = "role") -> str:
    if not isinstance(role, str) or role.strip().lower() not in ROLES:
        message = "Select a valid role: admin, seller, manager, customer or user."
        raise ValidationFailed(message, fields={field: [message]})
    return role.strip().lower()


def refuse_closed(user: User) -> None:
    """409 ``account_closed`` for an account its owner closed: what is left of it is the orders'
    record, which no role or reactivation may turn back into an account (a closed "admin" would
    count as the active admin that lets the last real one go)."""
    if is_closed(user):
        raise Conflict(CLOSED, code=ErrorCode.ACCOUNT_CLOSED, expose_code=True)


def _last_active_admin(session: Session) -> bool:
    """True when at most one active admin is left. The admin rows stay locked for the
    transaction (PostgreSQL), so two admins demoting or deactivating each other queue up."""
    admins = session.exec(
        select(User.id).where(User.role == Role.ADMIN.value, col(User.is_active)).with_for_update()
    ).all()
    return len(admins) <= 1


def list_users(
    session: Session,
    actor: User | None,
    *,
    search: str = "",
    role: str | None = None,
    offset: int = 0,
    limit: int = 100,
) -> tuple[list[User], int]:
    """Admin only: users newest first, with the total count.

    ``search`` matches email, username, first or last name (case-insensitive, anywhere);
    ``role`` keeps one role ("" or "all" means every role).
    """
    require_admin(actor)
    conditions = []
    term = (search or "").strip()
    if term:
        columns = (User.email, User.username, User.first_name, User.last_name)
        conditions.append(or_(*(contains(func.lower(column), term.lower()) for column in columns)))
    if role and role.strip().lower() != "all":
        conditions.append(User.role == _valid_role(role))
    total = session.exec(select(func.count()).select_from(User).where(*conditions)).one()
    users = session.exec(
        select(User)
        .where(*conditions)
        .order_by(col(User.created_at).desc(), col(User.id).desc())
        .offset(max(0, offset))
        .limit(max(1, limit))
    ).all()
    return list(users), total


def change_role(session: Session, actor: User | None, user_id: str, role: str) -> User:
    """Admin only: give ``user_id`` one of the roles. The last active admin cannot be demoted
    (400, ``last_admin``); an inactive admin can; a closed account takes none (409, ``account_closed``)."""
    require_admin(actor)
    role = _valid_role(role)
    user = found(session, User, user_id, "User not found.")
    refuse_closed(user)
    # Only an active admin's demotion can leave the shop without one (an inactive admin may go).
    if user.role == Role.ADMIN.value and user.is_active and role != Role.ADMIN.value:
        if _last_active_admin(session):
            message = "The last admin cannot be demoted."
            raise ValidationFailed(message, fields={"role": [message]}, code=ErrorCode.LAST_ADMIN)
    previous = user.role
    user.role = role
    session.add(user)
    session.flush()
    if previous != role:
        audit.record(session, actor, "user.role", "user", user.id, changes={"role": [previous, role]}, label=user.email)
    return user


def set_active(session: Session, actor: User | None, user_id: str, active: Any) -> User:
    """Admin only: deactivate an account (it can no longer log in, and its tokens and reset links
    stop working) or reactivate it. Admins cannot deactivate themselves, and the last active admin
    stays; a closed account is neither (409, ``account_closed``)."""
    actor = require_admin(actor)
    if not isinstance(active, bool):
        raise ValidationFailed(MUST_BE_BOOLEAN, fields={"is_active": [MUST_BE_BOOLEAN]})
    user = found(session, User, user_id, "User not found.")
    refuse_closed(user)
    if user.is_active == active:
        return user
    if not active:
        if user.id == actor.id:
            message = "You cannot deactivate your own account."
            raise ValidationFailed(message, fields={"is_active": [message]}, code=ErrorCode.SELF)
        if user.role == Role.ADMIN.value and _last_active_admin(session):
            message = "The last admin cannot be deactivated."
            raise ValidationFailed(message, fields={"is_active": [message]}, code=ErrorCode.LAST_ADMIN)
        log_out_everywhere(session, user)  # its tokens and its reset links not used yet stop working
    user.is_active = active
    session.add(user)
    session.flush()
    audit.record(session, actor, "user.activate" if active else "user.deactivate", "user", user.id,
                 changes={"is_active": [not active, active]}, label=user.email)
    return user
