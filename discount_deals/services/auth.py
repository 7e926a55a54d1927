"""Passwords and tokens.

Passwords are hashed with argon2id at OWASP's minimum (19 MiB, t=2, p=1). Tokens are signed
JWTs (HS256) carrying the user id (``sub``), the token type, a unique id (``jti``) and, for
refresh tokens, the user's ``token_version`` so that a password change retires them all.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from passlib.context import CryptContext
from sqlmodel import Session, select

from ..models import RevokedToken, User
from ..settings import get_settings
from . import NotAuthenticated

_passwords = CryptContext(
    schemes=["argon2"],
    argon2__type="ID",
    argon2__memory_cost=19 * 1024,
    argon2__rounds=2,
    argon2__parallelism=1,
)
_ALGORITHM = "HS256"
ACCESS = "access"
REFRESH = "refresh"
# Verified against when the email is unknown, so a miss costs as much time as a hit.
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


@dataclass(frozen=True)
class TokenPair:
    access: str
    refresh: str


def _encode(user: User, token_type: str, lifetime_seconds: int) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": user.id,
        "type": token_type,
        "jti": uuid.uuid4().hex,
        "iat": now,
        "exp": now + timedelta(seconds=lifetime_seconds),
    }
    if token_type == REFRESH:
        claims["ver"] = user.token_version
    return jwt.encode(claims, get_settings().secret_key, algorithm=_ALGORITHM)


def create_access_token(user: User) -> str:
    return _encode(user, ACCESS, get_settings().access_token_seconds)


def issue_tokens(user: User) -> TokenPair:
    settings = get_settings()
    return TokenPair(
        access=_encode(user, ACCESS, settings.access_token_seconds),
        refresh=_encode(user, REFRESH, settings.refresh_token_seconds),
    )


def decode_token(token: str | None, expected_type: str) -> dict:
    """The token's claims, or :class:`NotAuthenticated` when it is malformed, expired or of another type."""
    if not token or not isinstance(token, str):
        raise NotAuthenticated("Token is invalid or expired")
    try:
        claims = jwt.decode(
            token,
            get_settings().secret_key,
            algorithms=[_ALGORITHM],
            options={"require": ["sub", "type", "jti", "exp"]},
        )
    except jwt.PyJWTError:
        raise NotAuthenticated("Token is invalid or expired") from None
    if claims.get("type") != expected_type or not isinstance(claims.get("sub"), str):
        raise NotAuthenticated("Token is invalid or expired")
    return claims


def user_for_access_token(session: Session, token: str | None) -> User:
    """The active user an access token belongs to, or :class:`NotAuthenticated`."""
    claims = decode_token(token, ACCESS)
    user = session.get(User, claims["sub"])
    if user is None or not user.is_active:
        raise NotAuthenticated("User not found or inactive")
    return user


def _refresh_claims(session: Session, refresh: str | None) -> tuple[dict, User]:
    claims = decode_token(refresh, REFRESH)
    user = session.get(User, claims["sub"])
    if user is None or not user.is_active or claims.get("ver") != user.token_version:
        raise NotAuthenticated("Token is invalid or expired")
    if session.get(RevokedToken, claims["jti"]) is not None:
        raise NotAuthenticated("Token is invalid or expired")
    return claims, user


def refresh_access_token(session: Session, refresh: str | None) -> tuple[str, User]:
    """A new access token for a valid, unrevoked refresh token (which stays valid)."""
    _claims, user = _refresh_claims(session, refresh)
    return create_access_token(user), user


def revoke_refresh_token(session: Session, refresh: str | None) -> None:
    """Revoke one refresh token (logout). Unknown or already invalid tokens are refused."""
    claims, user = _refresh_claims(session, refresh)
    session.add(
        RevokedToken(
            jti=claims["jti"],
            user_id=user.id,
            expires_at=datetime.fromtimestamp(claims["exp"], UTC),
        )
    )
    # Forget revocations that have expired anyway.
    for stale in session.exec(select(RevokedToken).where(RevokedToken.expires_at < datetime.now(UTC))):
        session.delete(stale)
    session.flush()


def revoke_all_refresh_tokens(user: User) -> None:
    """Retire every refresh token of ``user`` (password change)."""
    user.token_version += 1
