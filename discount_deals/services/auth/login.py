"""Logging in: the password check, its throttles, and the devices that get in during a lock.

Only failed logins count. Every attempt is counted atomically *before* the password hash (a
burst gets no more checks than the limit, :mod:`.throttle`), and a success starts its counts
over, so correct logins never add up to a lock. Two limits apply to a caller the shop does not
recognise: ``login_max_failures`` per email and client address, and ``login_account_max_failures``
per email from any address (addresses rotated behind a proxy do not multiply the guesses); the
owner is told once when the account's limit is first passed.

A lock caused by guesses must not keep the owner out (an admin on a sale day). Guesser and owner
send the same email and, from the owner's phone, perhaps the same address (carrier NAT), so the
shop recognises *the owner's device* instead: a token this shop signed for this very account,
still of the account's token version (a password change or "log out everywhere" voids it) and
issued less than :data:`DEVICE_SECONDS` ago, presented at login. Every login answers a *device
token* (type ``device``, naming the device by the ``fam`` of its first login) that the Reflex
browser keeps in localStorage across logouts and sends back; the original React client stores
no such thing, but sends its last bearer token with every request, the login included, and a
stale access or refresh token of the account proves the device as well. Why not a cookie: the
original client sends none, and both clients keep their tokens in localStorage already. A guesser
has none of these (they are signed with the server's secret), so the account's lock never lets
them in; a recognised device is counted apart, ``login_max_failures`` per account and device,
so a stolen device token is worth five guesses per window and no more, and a device's success
clears its own count only: the account's lock stays for everyone else. A caller not recognised
waits for the lock to lift, or resets the password by email or SMS.

Owns its transactions: :func:`login` (the attempt is counted, and the account read, in a
short write transaction committed before the password is checked: the count must outlive a
refused login, and no lock may be held through the slow hash; a success clears the counts in a
second one).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace

import jwt
from sqlmodel import Session, select

from ...db import write_session
from ...models import AuthThrottle, User
from ...config.settings import get_settings
from .. import NotAuthenticated, ValidationFailed, throttle
from .tokens import ACCESS, DEVICE, DEVICE_SECONDS, REFRESH, TokenPair, device_token, issue_tokens
from .passwords import hash_password, password_needs_rehash, verify_password

INVALID_CREDENTIALS = "Invalid credentials"
_PROOF_TYPES = (ACCESS, REFRESH, DEVICE)


class LoginThrottled(throttle.Throttled):
    """Too many failed logins for one email (HTTP 429, with ``Retry-After``)."""

    def __init__(self, retry_after: int):
        super().__init__("failed login attempts", retry_after)


@dataclass(frozen=True)
class _Attempt:
    """Where one attempt is counted: the keys its success clears."""

    keys: tuple[tuple[str, str], ...]
    device: str  # the recognised device's name, or "" for a caller not recognised


def _attempt_key(email: str) -> str:
    return email.strip().lower()[:254]


def _login_key(email: str, client: str) -> str:
    return f"{_attempt_key(email)}|{client[:64]}"


def _proof_claims(token: object) -> dict | None:
    """The claims of a token this shop signed, expired or not, young enough to name a device."""
    if not isinstance(token, str) or not token or len(token) > 4096:
        return None
    try:
        claims = jwt.decode(token, get_settings().secret_key, algorithms=["HS256"],
                            options={"verify_exp": False, "require": ["sub", "type", "jti", "iat"]})
    except jwt.PyJWTError:
        return None
    if claims.get("type") not in _PROOF_TYPES or not isinstance(claims.get("iat"), int | float):
        return None
    return claims if claims["iat"] > time.time() - DEVICE_SECONDS else None


def _device_of(proofs: Iterable[object], account: User | None) -> str:
    """The name of the device ``proofs`` show ``account``'s owner is on, or ""."""
    if account is None:
        return ""
    for proof in proofs:
        claims = _proof_claims(proof)
        if claims and claims["sub"] == account.id and claims.get("ver", 0) == account.token_version:
            return str(claims.get("dev") or claims.get("fam") or claims["jti"])[:64]
    return ""


def login_retry_after(session: Session, email: str, client: str) -> int:
    """Seconds until a caller not recognised may try ``email`` from ``client``; 0 when it may now (read only)."""
    settings = get_settings()
    waits = [0]
    for scope, key, limit in ((throttle.LOGIN, _login_key(email, client), settings.login_max_failures),
                              (throttle.LOGIN_ACCOUNT, _attempt_key(email), settings.login_account_max_failures)):
        row = session.get(AuthThrottle, (scope, key))
        if row is None or row.hits < limit or row.window_start + settings.login_window_seconds <= time.time():
            continue
        waits.append(throttle.Count(row.hits, row.window_start, settings.login_window_seconds).retry_after())
    return max(waits)


@dataclass(frozen=True)
class LoginStart:
    """A login whose attempt was counted (:func:`start_login`): the account, when one may try."""

    account: User | None
    attempt: _Attempt


def login(session: Session, email: str, password: str, client: str,
          proofs: Iterable[object] = ()) -> tuple[User, TokenPair]:
    """Check the credentials and issue a token pair with a device token (``pair.device``).

    ``client`` is the caller's address; ``proofs`` the tokens the caller sent that may name its
    device (the body's device token, the bearer). Raises :class:`ValidationFailed` when a field
    is empty, :class:`LoginThrottled` (429, with ``retry_after``) when the failed logins counted
    for this caller (see the module docstring) passed their limit, without looking at the
    password, and :class:`NotAuthenticated` ("Invalid credentials") otherwise.

    Owns its transactions: the attempt is counted, and the account read, in a short write
    transaction of its own, committed before the password is checked: the count must stay
    recorded although the login is refused and the caller's unit of work rolls back, and no
    lock may be held through the slow hash. A success clears the counts (and upgrades an
    outdated hash) in a second one. ``session``, the caller's, is only read, after both: the
    user comes back loaded in it. Call this before the caller's session has begun to write.
    The API takes the three steps apart (:func:`start_login`, :func:`check_password`,
    :func:`finish_login`), so that the hash holds no write turn either.
    """
    started = start_login(email, password, client, proofs)
    return finish_login(session, started, check_password(started, password))


def start_login(email: str, password: str, client: str, proofs: Iterable[object] = ()) -> LoginStart:
    """The fields' check and the attempt's count (see :func:`login`). Owns its transactions:
    one short write transaction, committed at once."""
    missing = {
        name: ["This field is required."]
        # A password of spaces is a password (SPEC §5); an email of spaces is empty.
        for name, value in (("email", email.strip() if isinstance(email, str) else ""), ("password", password))
        if not isinstance(value, str) or not value
    }
    if missing:
        raise ValidationFailed("Please fill in all fields", fields=missing)
    if "\x00" in email:
        raise NotAuthenticated(INVALID_CREDENTIALS)  # no account has one (and PostgreSQL refuses it)
    count, account, attempt = _count_login_attempt(_attempt_key(email), client, list(proofs))
    if count is not None:
        raise LoginThrottled(count.retry_after())
    return LoginStart(account, attempt)


def check_password(started: LoginStart, password: str) -> str | None:
    """The argon2 check (no database touched): 401 when wrong or the account is inactive; else
    the password's new hash when the stored one is outdated, or ``None``."""
    account = started.account
    if not verify_password(password, account.password_hash if account else None) or not account.is_active:
        raise NotAuthenticated(INVALID_CREDENTIALS)
    return hash_password(password) if password_needs_rehash(account.password_hash) else None


def finish_login(session: Session, started: LoginStart, new_hash: str | None) -> tuple[User, TokenPair]:
    """Clear the attempt's counts (and store ``new_hash``) in a short write transaction of its
    own, then issue the tokens for the user read in ``session`` (see :func:`login`)."""
    account = started.account
    _forget_failed_logins(started.attempt, account, new_hash)
    user = session.get(User, account.id) or account
    pair = issue_tokens(user)
    return user, replace(pair, device=device_token(user, started.attempt.device or uuid.uuid4().hex))


def _count_login_attempt(email_key: str, client: str,
                         proofs: list[object]) -> tuple[throttle.Count | None, User | None, _Attempt]:
    """Count the attempt where it belongs; ``(the count over its limit or None, the account or
    None when refused, the attempt)`` (see :func:`login` and the module docstring).

    Owns its transactions: one short write transaction, committed before the hash (the lock
    notice for the owner is queued in it).
    """
    settings = get_settings()
    window, per_client = settings.login_window_seconds, settings.login_max_failures
    oldest_kept = time.time() - 2 * max(window, settings.security.register_window_seconds)
    with write_session() as session:
        account = session.exec(select(User).where(User.email == email_key)).first()
        device = _device_of(proofs, account)
        if device:
            key = (throttle.LOGIN_DEVICE, f"{email_key}|{device}")
            counted = throttle.hit(session, *key, window)
            attempt = _Attempt((key,), device)
            return (counted, None, attempt) if counted.over(per_client) else (None, account, attempt)
        key = (throttle.LOGIN, _login_key(email_key, client))
        count = throttle.hit(session, *key, window)
        if count.hits == 1:
            throttle.prune(session, oldest_kept)
        account_key = (throttle.LOGIN_ACCOUNT, email_key)
        per_account = throttle.hit(session, *account_key, window)
        if per_account.hits == settings.login_account_max_failures + 1 and account is not None and account.is_active:
            from ..messages.notices import account_locked

            minutes = max(1, per_account.retry_after() // 60)
            account_locked(session, account, minutes, str(int(per_account.window_start)))
        attempt = _Attempt((key, account_key), "")
        for limit, counted in ((per_client, count), (settings.login_account_max_failures, per_account)):
            if counted.over(limit):
                return counted, None, attempt
        return None, account, attempt


def _forget_failed_logins(attempt: _Attempt, user: User, new_hash: str | None) -> None:
    """After a successful login: the attempt's counts start over, and an outdated hash is replaced
    by ``new_hash`` (computed by :func:`check_password`, so no lock is held through the hash).

    Owns its transactions: one short write transaction (see :func:`login`).
    """
    with write_session() as session:
        for scope, key in attempt.keys:
            throttle.reset(session, scope, key)
        if new_hash is not None:
            stored = session.get(User, user.id)
            if stored is not None:
                stored.password_hash = new_hash
                session.add(stored)
