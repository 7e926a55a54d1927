"""Password hashes: argon2id at OWASP's minimum (19 MiB, t=2, p=1), through passlib."""

from __future__ import annotations

import uuid

from passlib.context import CryptContext

_passwords = CryptContext(
    schemes=["argon2"],
    argon2__type="ID",
    argon2__memory_cost=19 * 1024,
    argon2__rounds=2,
    argon2__parallelism=1,
)
# Verified against when the account is unknown, so a miss costs as much time as a hit.
_DUMMY_HASH = _passwords.hash(uuid.uuid4().hex)


def hash_password(password: str) -> str:
    return _passwords.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """True when ``password`` matches; always spends one argon2 verification."""
    if not password_hash:
        _passwords.verify(password, _DUMMY_HASH)
        return False
    try:
        return _passwords.verify(password, password_hash)
    except (ValueError, TypeError):
        return False


def password_needs_rehash(password_hash: str) -> bool:
    return _passwords.needs_update(password_hash)
