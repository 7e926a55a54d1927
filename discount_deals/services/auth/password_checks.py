"""The current password, where a signed-in caller changes what it protects (a new password, email
or phone; closing the account): checked at most ``DD_LOGIN_MAX_FAILURES`` times a window
(``DD_LOGIN_WINDOW_SECONDS``) per account, as logins from one address are.

A stolen access or refresh token was a way round the login's limits: a probe guessed 25 times,
then set a new password and shut the owner out. Each check is counted before the hash, so a
burst gets no more than the limit, and a right password starts the count over. Few checks also
mean few slow hashes run under the caller's write transaction (SQLite's one writer).

The faces check first (:func:`check_first`), before their write session's first statement, so
no lock is held through the hash (SQLite has one writer: a password change held every other
writer of the shop back for its two argon2 hashes). :func:`current_password_matches` then reads
that verdict in the caller's session, and checks (counted there) only when it has none for the
account's current hash.

Owns its transactions: :func:`check_first` (see there). :func:`current_password_matches` takes
the caller's session: the count is written in it, and the refusal that follows a wrong password
must keep it (``keeps_writes``: see :func:`refusal_keeps_count`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from ...config.settings import get_settings
from ...db import session_scope, write_session
from ...models import User
from .. import ServiceError, throttle
from ..error_codes import ErrorCode
from .passwords import verify_password


class PasswordChecksThrottled(throttle.Throttled):
    """Too many current passwords tried for one account (HTTP 429); the count is kept."""

    keeps_writes = True

    def __init__(self, retry_after: int):
        super().__init__("password attempts", retry_after, code=ErrorCode.PASSWORD_CHECKS_THROTTLED)


@dataclass(frozen=True)
class CheckedPassword:
    """A current password checked before the caller's write transaction (:func:`check_first`):
    the account, the hash it was checked against, and whether it matched."""

    user_id: str
    password_hash: str
    matches: bool


def _typed(given: Any) -> bool:
    return isinstance(given, str) and bool(given)  # nothing typed is no guess: not counted


def _over_limit(count: throttle.Count) -> None:
    if count.over(get_settings().login_max_failures):
        raise PasswordChecksThrottled(count.retry_after())


def check_first(user_id: str, given: Any) -> CheckedPassword | None:
    """Check ``given`` against account ``user_id``'s password, counted (429 past the limit);
    ``None`` when nothing was typed or there is no such account. The caller must have checked
    that its actor may change that account (a stranger's guesses would use up the owner's checks).

    Owns its transactions, and must run before the caller's write session begins: the check is
    counted in a short write transaction of its own, committed at once (it must outlive the
    refusal a wrong password brings, and the lock must not be held through the hash); the hash
    is read and verified outside any write transaction; a match starts the count over in another
    short one.
    """
    if not _typed(given):
        return None
    with session_scope() as session:
        user = session.get(User, user_id)
    if user is None:
        return None
    _over_limit(throttle.count_attempt(throttle.PASSWORD_CHECKS, user.id, get_settings().login_window_seconds))
    matches = verify_password(given, user.password_hash)
    if matches:
        with write_session() as session:
            throttle.reset(session, throttle.PASSWORD_CHECKS, user.id)
    return CheckedPassword(user.id, user.password_hash, matches)


def current_password_matches(session: Session, user: User, given: Any,
                             checked: CheckedPassword | None = None) -> bool:
    """Whether ``given`` is ``user``'s password. ``checked``, the face's :func:`check_first` of
    it, answers when it is of this account and its hash has not changed since; otherwise the
    check is counted here, in ``session`` (429 past the limit)."""
    if not _typed(given):
        return False
    if checked is not None and checked.user_id == user.id and checked.password_hash == user.password_hash:
        return checked.matches
    _over_limit(throttle.hit(session, throttle.PASSWORD_CHECKS, user.id, get_settings().login_window_seconds))
    if verify_password(given, user.password_hash):
        throttle.reset(session, throttle.PASSWORD_CHECKS, user.id)
        return True
    return False


def refusal_keeps_count(refusal: ServiceError) -> ServiceError:
    """``refusal`` of a wrong password, made to keep the check's count when its transaction ends."""
    refusal.keeps_writes = True
    return refusal
