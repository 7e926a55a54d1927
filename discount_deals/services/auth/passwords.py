"""Password hashes: argon2id at OWASP's minimum (19 MiB, t=2, p=1), through passlib.

``DD_PASSWORD_HASHING=fast`` (1 MiB, t=1) is for test suites, which create thousands of accounts:
the server refuses it whenever the shop answers anything but this machine (server/preflight.py).
A stored hash made at other parameters is hashed again at the next login (``password_needs_rehash``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import lru_cache

from passlib.context import CryptContext

from ...config.settings import get_settings

# memory in KiB, rounds (t)
_COSTS = {"owasp": (19 * 1024, 2), "fast": (1024, 1)}


@dataclass(frozen=True)
class _Hashing:
    context: CryptContext
    # Verified against when the account is unknown, so a miss costs as much time as a hit.
    dummy_hash: str


@lru_cache(maxsize=len(_COSTS))
def _hashing_at(level: str) -> _Hashing:
    memory, rounds = _COSTS[level]
    context = CryptContext(
        schemes=["argon2"],
        argon2__type="ID",
        argon2__memory_cost=memory,
        argon2__rounds=rounds,
        argon2__parallelism=1,
    )
    return _Hashing(context, context.hash(uuid.uuid4().hex))


def _hashing() -> _Hashing:
    return _hashing_at(get_settings().security.password_hashing)


def hash_password(password: str) -> str:
    return _hashing().context.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """True when ``password`` matches; always spends one argon2 verification."""
    hashing = _hashing()
    if not password_hash:
        hashing.context.verify(password, hashing.dummy_hash)
        return False
    try:
        return hashing.context.verify(password, password_hash)
    except (ValueError, TypeError):
        return False


def password_needs_rehash(password_hash: str) -> bool:
    return _hashing().context.needs_update(password_hash)
