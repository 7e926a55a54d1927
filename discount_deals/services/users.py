"""Users, profiles and addresses: creation, validation and the rules on who may change what."""

from __future__ import annotations

import re

from sqlmodel import Session, func, select

from ..models import Profile, Role, User
from . import ValidationFailed
from .auth import hash_password

EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
MIN_PASSWORD_LENGTH = 6


def normalize_email(email: str) -> str:
    return (email or "").strip().lower()


def is_valid_email(email: str) -> bool:
    return bool(EMAIL_RE.match(email or "")) and len(email) <= 254


def password_problem(password: str | None) -> str | None:
    """The spec's message for an unacceptable password, or None."""
    if not password:
        return "Password is required"
    if len(password) < MIN_PASSWORD_LENGTH:
        return "Password must be at least 6 characters"
    return None


def email_taken(session: Session, email: str, *, exclude_id: str | None = None) -> bool:
    query = select(User.id).where(func.lower(User.email) == normalize_email(email))
    if exclude_id:
        query = query.where(User.id != exclude_id)
    return session.exec(query).first() is not None


def username_taken(session: Session, username: str, *, exclude_id: str | None = None) -> bool:
    query = select(User.id).where(func.lower(User.username) == username.strip().lower())
    if exclude_id:
        query = query.where(User.id != exclude_id)
    return session.exec(query).first() is not None


def _free_username(session: Session, base: str) -> str:
    base = re.sub(r"[^\w.+-]", "", base)[:140] or "user"
    candidate, n = base, 1
    while username_taken(session, candidate):
        n += 1
        candidate = f"{base}{n}"
    return candidate


def add_user(session: Session, *, email: str, password: str, username: str, role: Role = Role.CUSTOMER, **fields) -> User:
    """Insert a user with its (empty) profile. Callers validate first."""
    user = User(
        email=normalize_email(email),
        username=username.strip(),
        password_hash=hash_password(password),
        role=role.value,
        **fields,
    )
    session.add(user)
    session.flush()
    session.add(Profile(user_id=user.id))
    session.flush()
    return user


def create_or_promote_admin(session: Session, email: str, password: str) -> tuple[User, bool]:
    """Create an admin, or make an existing user admin and set the password. Returns (user, created)."""
    email = normalize_email(email)
    errors: dict[str, list[str]] = {}
    if not is_valid_email(email):
        errors["email"] = ["Please enter a valid email"]
    problem = password_problem(password)
    if problem:
        errors["password"] = [problem]
    if errors:
        raise ValidationFailed("; ".join(m for ms in errors.values() for m in ms), fields=errors)
    user = session.exec(select(User).where(func.lower(User.email) == email)).first()
    if user is not None:
        user.role = Role.ADMIN.value
        user.password_hash = hash_password(password)
        user.token_version += 1
        session.add(user)
        session.flush()
        return user, False
    user = add_user(
        session,
        email=email,
        password=password,
        username=_free_username(session, email.split("@")[0]),
        role=Role.ADMIN,
    )
    return user, True
