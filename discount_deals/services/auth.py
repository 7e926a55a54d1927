"""Passwords, tokens and logging in.

Passwords are hashed with argon2id at OWASP's minimum (19 MiB, t=2, p=1). Tokens are signed
JWTs (HS256) carrying the user id (``sub``), the token type, a unique id (``jti``) and, for
refresh tokens, the user's ``token_version`` so that a password change retires them all.
Failed logins are recorded per email and client address in ``login_attempt`` so that the
throttle holds across worker processes.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from passlib.context import CryptContext
from sqlmodel import Session, col, delete, select

from ..models import LoginAttempt, RevokedToken, User
from ..settings import get_settings
from . import NotAuthenticated, ServiceError, ValidationFailed

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


def set_password(user: User, password: str) -> None:
    """Store a new password hash and retire every refresh token issued before it. Callers validate first."""
    user.password_hash = hash_password(password)
    revoke_all_refresh_tokens(user)


def token_is_valid(session: Session, token: str | None) -> bool:
    """True for a valid access token, or a valid and unrevoked refresh token (``/auth/token/verify/``)."""
    for check in (user_for_access_token, _refresh_claims):
        try:
            check(session, token)
        except NotAuthenticated:
            continue
        return True
    return False


# --- logging in --------------------------------------------------------------------------------

INVALID_CREDENTIALS = "Invalid credentials"


class LoginThrottled(ServiceError):
    """Too many failed logins for one email from one client address (HTTP 429)."""

    status = 429

    def __init__(self, retry_after: int):
        minutes = math.ceil(retry_after / 60)
        wait = f"{minutes} minute{'s' if minutes != 1 else ''}"
        super().__init__(f"Too many failed login attempts. Please try again in {wait}.")
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


def _attempt_key(email: str) -> str:
    return email.strip().lower()[:254]


def login_retry_after(session: Session, email: str, client: str) -> int:
    """Seconds until ``client`` may try ``email`` again; 0 when it may try now.

    The block lifts when the oldest of the last ``login_max_failures`` failures leaves the window.
    """
    settings = get_settings()
    window = timedelta(seconds=settings.login_window_seconds)
    now = datetime.now(UTC)
    recent = session.exec(
        select(LoginAttempt.attempted_at)
        .where(
            LoginAttempt.email == _attempt_key(email),
            LoginAttempt.client == client[:64],
            LoginAttempt.attempted_at > now - window,
        )
        .order_by(col(LoginAttempt.attempted_at).desc())
        .limit(settings.login_max_failures)
    ).all()
    if len(recent) < settings.login_max_failures:
        return 0
    return max(1, math.ceil((recent[-1] + window - now).total_seconds()))


def login(session: Session, email: str, password: str, client: str) -> tuple[User, TokenPair]:
    """Check the credentials and issue a token pair.

    Raises :class:`ValidationFailed` when a field is empty, :class:`LoginThrottled` (429, with
    ``retry_after``) after too many recent failures, without looking at the password, and
    :class:`NotAuthenticated` ("Invalid credentials") otherwise. ``client`` is the caller's
    address. This function commits ``session``: a failure must stay recorded although the call
    raises, so pass a session without pending work of your own.
    """
    missing = {
        name: ["This field is required."]
        # A password of spaces is a password (SPEC §5); an email of spaces is empty.
        for name, value in (("email", email.strip() if isinstance(email, str) else ""), ("password", password))
        if not isinstance(value, str) or not value
    }
    if missing:
        raise ValidationFailed("Please fill in all fields", fields=missing)
    key, client = _attempt_key(email), client[:64]
    retry_after = login_retry_after(session, key, client)
    if retry_after:
        raise LoginThrottled(retry_after)
    user = session.exec(select(User).where(User.email == key)).first()
    # End the read transaction before the slow hash: a write started from an old snapshot
    # would fail on SQLite if another connection wrote in between.
    session.commit()
    if not verify_password(password, user.password_hash if user else None) or not user.is_active:
        now = datetime.now(UTC)
        session.exec(
            delete(LoginAttempt).where(
                LoginAttempt.attempted_at <= now - timedelta(seconds=get_settings().login_window_seconds)
            )
        )
        session.add(LoginAttempt(email=key, client=client, attempted_at=now))
        session.commit()
        raise NotAuthenticated(INVALID_CREDENTIALS)
    session.exec(delete(LoginAttempt).where(LoginAttempt.email == key, LoginAttempt.client == client))
    if password_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.add(user)
    session.commit()
    return user, issue_tokens(user)
