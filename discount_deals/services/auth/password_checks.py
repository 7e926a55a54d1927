"""The current password, where a signed-in caller changes what it protects (a new password, email
or phone; closing the account): checked at most ``DD_LOGIN_MAX_FAILURES`` times a window
(``DD_LOGIN_WINDOW_SECONDS``) per account, as logins from one address are.

A stolen access or refresh token was a way round the login's limits: a probe guessed 25 times,
then set a new password and shut the owner out. Each check is counted before the hash, so a
burst gets no more than the limit, and a right password starts the count over. Few checks also
mean few slow hashes run under the caller's write transaction (SQLite's one writer).

Takes the caller's session: the count is written in it, and the refusal that follows a wrong
password must keep it (``keeps_writes``: see :func:`refusal_keeps_count`).
"""

from __future__ import annotations

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


def current_password_matches(session: Session, user: User, given: Any) -> bool:
    """Whether ``given`` is ``user``'s password, the check counted (429 past the limit). Nothing
    typed is no guess: it is not counted."""
    if not isinstance(given, str) or not given:
        return False
    settings = get_settings()
    count = throttle.hit(session, throttle.PASSWORD_CHECKS, user.id, settings.login_window_seconds)
    if count.over(settings.login_max_failures):
        raise PasswordChecksThrottled(count.retry_after())
    if verify_password(given, user.password_hash):
        throttle.reset(session, throttle.PASSWORD_CHECKS, user.id)
        return True
    return False


def refusal_keeps_count(refusal: ServiceError) -> ServiceError:
    """``refusal`` of a wrong password, made to keep the check's count when its transaction ends."""
    refusal.keeps_writes = True
    return refusal
