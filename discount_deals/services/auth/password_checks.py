"""The current password, where a signed-in caller changes what it protects (a new password, email
or phone; closing the account): checked at most ``DD_LOGIN_MAX_FAILURES`` times a window
(``DD_LOGIN_WINDOW_SECONDS``) per account, as logins from one address are.

A stolen access or refresh token was a way round the login's limits: a probe guessed 25 times,
then set a new password and shut the owner out. Each check is counted before the hash, so a
burst gets no more than the limit, and a right password starts the count over.

The hash (argon2, ~20 ms of CPU) runs in no write transaction, and in the API outside the
write turn (``api.admission``): SQLite has one writer, and a password change held every other
writer of the shop back for its two hashes. A face takes three steps: :func:`count_check` in a
short write transaction it commits at once (the count must outlive the refusal a wrong password
brings), :func:`run_check` in none, then the change in its write session, where
:func:`current_password_matches` reads the verdict (and a match starts the count over). Called
without a verdict, :func:`current_password_matches` counts and checks in the caller's session.

Takes the caller's session: counts are written in it, and the refusal that follows a wrong
password must keep them (``keeps_writes``: see :func:`refusal_keeps_count`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session

from ...config.settings import get_settings
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
class PasswordCheck:
    """A current password's check: counted (:func:`count_check`; ``matches`` is None), then run
    without a write lock (:func:`run_check`: ``matches`` says, and what was typed is dropped)."""

    user_id: str
    password_hash: str  # the hash it is checked against
    given: str = ""
    matches: bool | None = None


def _typed(given: Any) -> bool:
    return isinstance(given, str) and bool(given)  # nothing typed is no guess: not counted


def _count(session: Session, user: User) -> None:
    settings = get_settings()
    count = throttle.hit(session, throttle.PASSWORD_CHECKS, user.id, settings.login_window_seconds)
    if count.over(settings.login_max_failures):
        raise PasswordChecksThrottled(count.retry_after())


def count_check(session: Session, user: User, given: Any) -> PasswordCheck | None:
    """Count a check of ``given`` against ``user``'s password in ``session`` (429 past the limit,
    the count kept), for :func:`run_check`; ``None`` when nothing was typed. The caller commits
    at once, and must have made sure its actor may change ``user`` (a stranger's guesses would
    use up the owner's checks)."""
    if not _typed(given):
        return None
    _count(session, user)
    return PasswordCheck(user.id, user.password_hash, given)


def run_check(counted: PasswordCheck | None) -> PasswordCheck | None:
    """The argon2 check of a counted password: no database, so no lock, is touched."""
    if counted is None:
        return None
    return replace(counted, given="", matches=verify_password(counted.given, counted.password_hash))


def current_password_matches(session: Session, user: User, given: Any,
                             checked: PasswordCheck | None = None) -> bool:
    """Whether ``given`` is ``user``'s password. ``checked`` (:func:`run_check`'s) answers when it
    is of this account and its hash has not changed since; otherwise the check is counted here,
    in ``session`` (429 past the limit). A match starts the count over."""
    if not _typed(given):
        return False
    if (checked is not None and checked.matches is not None and checked.user_id == user.id
            and checked.password_hash == user.password_hash):
        matches = checked.matches
    else:
        _count(session, user)
        matches = verify_password(given, user.password_hash)
    if matches:
        throttle.reset(session, throttle.PASSWORD_CHECKS, user.id)
    return matches


def refusal_keeps_count(refusal: ServiceError) -> ServiceError:
    """``refusal`` of a wrong password, made to keep the check's count when its transaction ends."""
    refusal.keeps_writes = True
    return refusal
