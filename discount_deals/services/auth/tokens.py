"""Tokens: issuing, rotating, revoking and reading them.

Tokens are signed JWTs (HS256) carrying the user id (``sub``), the token type, a unique id
(``jti``) and the user's ``token_version`` (``ver``), so that a password change or "log out
everywhere" retires every access and refresh token at once. Refresh tokens rotate within a family (``fam``,
``gen``; see :func:`refresh_tokens`). Passwords are :mod:`.passwords` (argon2id at OWASP's
minimum); logging in, and its throttles, is :mod:`.login`.

Every function takes the caller's session and only flushes; a reused refresh token's revocation is kept by :class:`TokenReused`
(``keeps_writes``), which the face's unit of work commits before answering 401.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, delete, select, update

from ...models import PasswordReset, RefreshFamily, User
from ...models.base import utcnow
from ...config.settings import get_settings
from .. import NotAuthenticated
from ..moments import as_utc
from .passwords import hash_password, password_needs_rehash, verify_password  # noqa: F401 (re-exported)

_ALGORITHM = "HS256"
ACCESS = "access"
REFRESH = "refresh"
DEVICE = "device"
# How long a device stays known after its last login: a device token's lifetime, and the age of
# the oldest stale access or refresh token that still names a device (services.auth.login).
DEVICE_SECONDS = 90 * 24 * 3600


@dataclass(frozen=True)
class TokenPair:
    access: str
    refresh: str
    device: str = ""  # a login's device token (services.auth.login); empty for a refresh


# A retired refresh token still works this long after a newer one of its family was first
# used: two requests of a rotating client racing with the same token both succeed.
ROTATION_LEEWAY_SECONDS = 30


def _encode(user: User, token_type: str, lifetime_seconds: int, **extra: Any) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": user.id,
        "type": token_type,
        "jti": uuid.uuid4().hex,
        "iat": now,
        "exp": now + timedelta(seconds=lifetime_seconds),
        # The user's token version: a password change or "log out everywhere" bumps it and
        # every token issued before stops working, access tokens included.
        "ver": user.token_version,
        **extra,
    }
    return jwt.encode(claims, get_settings().secret_key, algorithm=_ALGORITHM)


def create_access_token(user: User, family: str | None = None) -> str:
    """An access token; ``family`` names the login it comes from (a stale one still names the
    device at the next login, :mod:`.login`)."""
    extra = {"fam": family} if family else {}
    return _encode(user, ACCESS, get_settings().access_token_seconds, **extra)


def _refresh_token(user: User, family: str, generation: int) -> str:
    return _encode(user, REFRESH, get_settings().refresh_token_seconds, fam=family, gen=generation)


def device_token(user: User, device: str) -> str:
    """The token that names ``device`` as ``user``'s at their next login (services.auth.login)."""
    return _encode(user, DEVICE, DEVICE_SECONDS, dev=device)


def issue_tokens(user: User) -> TokenPair:
    """A fresh pair: the refresh token starts a new family (its row is made on first use)."""
    family = uuid.uuid4().hex
    return TokenPair(access=create_access_token(user, family), refresh=_refresh_token(user, family, 0))


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


def _current_user(session: Session, claims: dict) -> User:
    """The active user of the claims, whose token version the token still carries."""
    user = session.get(User, claims["sub"])
    if user is None or not user.is_active:
        raise NotAuthenticated("User not found or inactive")
    if claims.get("ver", 0) != user.token_version:
        raise NotAuthenticated("Token is invalid or expired")
    return user


def user_for_access_token(session: Session, token: str | None) -> User:
    """The active user an access token belongs to, or :class:`NotAuthenticated` (also once the
    user changed their password or logged out everywhere)."""
    return _current_user(session, decode_token(token, ACCESS))


def _family_id(claims: dict) -> str:
    # Tokens issued before families existed are a family of their own, named by their jti.
    family = claims.get("fam") or claims["jti"]
    return str(family)[:64]


def _generation(claims: dict) -> int:
    generation = claims.get("gen", 0)
    return generation if isinstance(generation, int) and generation >= 0 else -1


def _locked_family(session: Session, claims: dict, user: User) -> RefreshFamily:
    """The token's family row, created on first use and locked for this transaction."""
    family_id = _family_id(claims)
    expires = datetime.fromtimestamp(claims["exp"], UTC)
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(
        insert(RefreshFamily)
        .values(id=family_id, user_id=user.id, floor=0, latest=max(0, _generation(claims)),
                expires_at=expires, created_at=datetime.now(UTC))
        .on_conflict_do_nothing(index_elements=[RefreshFamily.id])
    )
    family = session.exec(
        select(RefreshFamily).where(RefreshFamily.id == family_id).with_for_update()
        .execution_options(populate_existing=True)
    ).one()
    if family.user_id != user.id:
        raise NotAuthenticated("Token is invalid or expired")
    return family


def _valid_refresh(session: Session, refresh: str | None) -> tuple[dict, User, RefreshFamily]:
    claims = decode_token(refresh, REFRESH)
    user = _current_user(session, claims)
    family = _locked_family(session, claims, user)
    if family.revoked_at is not None or _generation(claims) < 0:
        raise NotAuthenticated("Token is invalid or expired")
    return claims, user, family


def _retired_too_long(family: RefreshFamily, generation: int) -> bool:
    """True when ``generation`` was retired (a newer token was used) longer ago than the leeway.
    Only the tokens the latest rotation retired (from ``previous_floor`` up) may be within it:
    measured from that rotation, an older one came back to life at each of the owner's refreshes."""
    if generation >= family.floor:
        return False
    if generation < family.previous_floor:
        return True
    raised = family.floor_raised_at
    if raised is not None and raised.tzinfo is None:
        raised = raised.replace(tzinfo=UTC)
    return raised is None or datetime.now(UTC) - raised > timedelta(seconds=ROTATION_LEEWAY_SECONDS)


class TokenReused(NotAuthenticated):
    """A refresh token retired longer than the leeway ago came back: two parties hold its family.

    The family's revocation is this refusal's record (``keeps_writes``): the face's unit of work
    commits it and then answers 401, as for any invalid token.
    """

    keeps_writes = True

    def __init__(self):
        super().__init__("Token is invalid or expired")


def refresh_tokens(session: Session, refresh: str | None) -> tuple[TokenPair, User]:
    """Rotate a refresh token: a new access token and the next refresh token of its family.

    The token presented stays valid until a newer token of its family is used: a client that
    ignores rotated tokens (the existing React client) keeps refreshing with its first one,
    while for a client that rotates, the older tokens retire as soon as it moves on. Presenting
    a token retired longer than :data:`ROTATION_LEEWAY_SECONDS` ago means two parties hold the
    family (a stolen token): the whole family is revoked and :class:`TokenReused` raised, whose
    ``keeps_writes`` makes the caller's unit of work commit the revocation although it refuses.
    """
    claims, user, family = _valid_refresh(session, refresh)
    generation = _generation(claims)
    now = datetime.now(UTC)
    if _retired_too_long(family, generation):
        family.revoked_at = now
        session.add(family)
        session.flush()
        raise TokenReused()
    if generation > family.floor:
        family.previous_floor, family.floor = family.floor, generation
        family.floor_raised_at = now
    family.latest += 1
    pair = TokenPair(access=create_access_token(user, family.id), refresh=_refresh_token(user, family.id, family.latest))
    family.expires_at = max(as_utc(family.expires_at), now + timedelta(seconds=get_settings().refresh_token_seconds))
    session.add(family)
    _forget_expired_families(session, now)
    session.flush()
    return pair, user


def refresh_access_token(session: Session, refresh: str | None) -> tuple[str, User]:
    """A new access token for a valid refresh token (:func:`refresh_tokens` without the new refresh token)."""
    pair, user = refresh_tokens(session, refresh)
    return pair.access, user


def _forget_expired_families(session: Session, now: datetime) -> None:
    session.execute(delete(RefreshFamily).where(RefreshFamily.expires_at < now))


def revoke_refresh_token(session: Session, refresh: str | None) -> None:
    """Log out: revoke the refresh token's whole family. Unknown or already invalid tokens are refused."""
    _claims, _user, family = _valid_refresh(session, refresh)
    family.revoked_at = datetime.now(UTC)
    session.add(family)
    session.flush()


def revoke_all_tokens(user: User) -> None:
    """Retire every access and refresh token of ``user`` (password change, log out everywhere)."""
    user.token_version += 1


def log_out_everywhere(session: Session, user: User) -> None:
    """Every token of ``user`` stops working at once, on every device (the caller's included),
    and so does every password reset link or code not used yet."""
    user = session.get(User, user.id) or user
    revoke_all_tokens(user)
    session.add(user)
    session.execute(delete(RefreshFamily).where(RefreshFamily.user_id == user.id))
    retire_password_resets(session, user.id)
    session.flush()


def retire_password_resets(session: Session, user_id: str) -> None:
    """The account's reset links and codes not used yet stop working: after a new request, and
    whenever the password, the email or the phone changes (a link in a mailbox the owner just
    left must not let its reader in)."""
    session.execute(update(PasswordReset).where(PasswordReset.user_id == user_id, PasswordReset.used_at.is_(None))
                    .values(used_at=utcnow()).execution_options(synchronize_session=False))


def set_password(user: User, password: str, password_hash: str | None = None) -> None:
    """Store a new password hash (``password_hash``, when the caller hashed ``password`` before
    its write transaction) and retire every token issued before it. Callers validate first."""
    user.password_hash = password_hash or hash_password(password)
    revoke_all_tokens(user)


def token_is_valid(session: Session, token: str | None) -> bool:
    """True for a valid access token, or a valid and unrevoked refresh token (``/auth/token/verify/``)."""
    try:
        user_for_access_token(session, token)
        return True
    except NotAuthenticated:
        pass
    try:
        claims = decode_token(token, REFRESH)
        user = _current_user(session, claims)
    except NotAuthenticated:
        return False
    family = session.get(RefreshFamily, _family_id(claims))
    if family is None:
        return True
    return family.user_id == user.id and family.revoked_at is None and not _retired_too_long(
        family, _generation(claims)
    )
