"""Forgot password: a single-use link by email (30 minutes) or a 6-digit code by SMS (10 minutes,
5 tries), then every session and token of the account is revoked.

Asking never says whether an account exists: the same answer whatever was typed, and the same
work (the message is queued in the outbox and sent by the worker, never in the request). Asking
is rationed per client address (429) and per email or number (over the limit nothing more is
sent, silently). Only hashes of the link's token and of the code are stored.

Owns its transactions: :func:`request_reset` counts the attempt per address and per account in
transactions of their own (:func:`.throttle.count_attempt`: the counts must outlive the request),
before the caller's session writes the reset. Everything else takes the caller's session; a
wrong code's try is kept by :class:`ResetCodeWrong` (``keeps_writes``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, select

from ... import routes
from ...models import Channel, PasswordReset, User
from ...models.base import new_id, utcnow
from .. import ValidationFailed, throttle
from .tokens import log_out_everywhere, retire_password_resets
from ..error_codes import ErrorCode
from ..messages import templates
from ..messages.notices import links_for, password_changed
from ..messages.outbox import Draft, queue_message
from ..moments import as_utc
from .passwords import hash_password
from ..phones import parse_mobile
from ..users.fields import has_control_characters, is_valid_email, normalize_email, password_problem

LINK_MINUTES = 30
CODE_MINUTES = 10
CODE_TRIES = 5
ACCEPTED = "If an account matches, we have sent it a way to reset its password."
INVALID = "This reset link or code is invalid or has expired. Ask for a new one."
RESET_SCOPE, RESET_ACCOUNT_SCOPE = "reset", "reset_account"
PER_ADDRESS, PER_ACCOUNT, WINDOW = 20, 3, 3600


class ResetThrottled(throttle.Throttled):
    def __init__(self, retry_after: int):
        super().__init__("password reset requests", retry_after, code=ErrorCode.RESET_THROTTLED)


class ResetCodeWrong(ValidationFailed):
    """A wrong SMS code: refused, but the try is counted (the face commits it)."""

    keeps_writes = True

    def __init__(self):
        super().__init__(INVALID, fields={"code": [INVALID]}, code=ErrorCode.RESET_INVALID)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _identifier(data: Any) -> tuple[str, str]:
    """``("email", address)`` or ``("phone", E.164)`` from the request body; 400 otherwise."""
    if not isinstance(data, dict):
        raise ValidationFailed("Send an email or a phone number.")
    email, phone = data.get("email"), data.get("phone")
    if isinstance(email, str) and email.strip():
        address = normalize_email(email)
        if not is_valid_email(address) or has_control_characters(address):  # PostgreSQL refuses a NUL
            raise ValidationFailed("Please enter a valid email", fields={"email": ["Please enter a valid email"]})
        return "email", address
    if isinstance(phone, str) and phone.strip():
        number = parse_mobile(phone)
        if number is None:
            message = "Enter a Ghanaian mobile number, such as 024 123 4567."
            raise ValidationFailed(message, fields={"phone": [message]})
        return "phone", number
    message = "Enter the email or the phone number of your account."
    raise ValidationFailed(message, fields={"email": [message]})


def users_by_phone(session: Session, number: str) -> list[User]:
    """Up to two active accounts whose phone number is ``number`` (E.164, as account phones are
    stored). Two accounts may give one number (a family's phone); neither may reset by it."""
    return list(session.exec(select(User).where(User.phonenumber == number, User.is_active == True)
                             .order_by(User.created_at, User.id).limit(2)).all())


def user_by_phone(session: Session, number: str) -> User | None:
    """The one active account whose phone number is ``number``; None when none or several do (a
    code must not reset whichever account gave the number first: anyone may give any number)."""
    users = users_by_phone(session, number)
    return users[0] if len(users) == 1 else None


def request_reset(session: Session, data: Any, client: str) -> None:
    """Send a reset link (email) or code (SMS) when an active account matches; 429 when this
    address asked too often. The answer never depends on the account existing.

    Owns its transactions: the two counts (see the module docstring); the reset and its message
    go in ``session``, which must not have begun to write."""
    kind, identifier = _identifier(data)
    count = throttle.count_attempt(RESET_SCOPE, client, WINDOW)
    if count.over(PER_ADDRESS):
        raise ResetThrottled(count.retry_after())
    if throttle.count_attempt(RESET_ACCOUNT_SCOPE, identifier, WINDOW).over(PER_ACCOUNT):
        return
    if kind == "email":
        user = session.exec(select(User).where(User.email == identifier, User.is_active == True)).first()
    else:
        user = user_by_phone(session, identifier)
        if user is None and users_by_phone(session, identifier):
            queue_message(session, Draft(channel=Channel.SMS, recipient=identifier, kind="password_reset",
                                         text=templates.reset_shared_number_sms()))
            return
    if user is None:
        return
    retire_password_resets(session, user.id)  # a new request retires the earlier ones
    if kind == "email":
        _send_link(session, user)
    else:
        _send_code(session, user, identifier)


def _send_link(session: Session, user: User) -> None:
    token = secrets.token_urlsafe(32)
    session.add(PasswordReset(user_id=user.id, channel=Channel.EMAIL.value, secret_hash=_digest(token),
                              expires_at=utcnow() + timedelta(minutes=LINK_MINUTES)))
    links = links_for(user.id, "account")
    email = templates.reset_link_email(links.to(routes.reset_path(token)), links, LINK_MINUTES)
    queue_message(session, Draft(channel=Channel.EMAIL, recipient=user.email, kind="password_reset",
                                 subject=email.subject, text=email.text, html=email.html, user_id=user.id,
                                 topic="account", secret=True))


def _send_code(session: Session, user: User, number: str) -> None:
    reset_id = new_id()
    code = f"{secrets.randbelow(10**6):06d}"
    session.add(PasswordReset(id=reset_id, user_id=user.id, channel=Channel.SMS.value,
                              secret_hash=_digest(f"{reset_id}:{code}"),
                              expires_at=utcnow() + timedelta(minutes=CODE_MINUTES)))
    queue_message(session, Draft(channel=Channel.SMS, recipient=number, kind="password_reset",
                                 text=templates.reset_code_sms(code, CODE_MINUTES), user_id=user.id, secret=True))


def _reset_by_token(session: Session, token: Any) -> PasswordReset:
    reset = session.exec(
        select(PasswordReset).where(PasswordReset.secret_hash == _digest(token), PasswordReset.channel == "email")
        .with_for_update()
    ).first() if isinstance(token, str) and 16 <= len(token) <= 100 else None
    if reset is None or reset.used_at is not None or as_utc(reset.expires_at) <= utcnow():
        raise ValidationFailed(INVALID, fields={"token": [INVALID]}, code=ErrorCode.RESET_INVALID)
    return reset


def _reset_by_code(session: Session, phone: Any, code: Any) -> PasswordReset:
    number = parse_mobile(phone)
    user = user_by_phone(session, number) if number else None
    reset = session.exec(
        select(PasswordReset).where(PasswordReset.user_id == user.id, PasswordReset.channel == "sms",
                                    PasswordReset.used_at.is_(None))
        .order_by(PasswordReset.created_at.desc()).with_for_update()
    ).first() if user is not None else None
    if reset is None or as_utc(reset.expires_at) <= utcnow() or reset.attempts >= CODE_TRIES:
        raise ValidationFailed(INVALID, fields={"code": [INVALID]}, code=ErrorCode.RESET_INVALID)
    reset.attempts += 1
    session.add(reset)
    session.flush()
    given = code.strip() if isinstance(code, str) else ""
    if not hmac.compare_digest(_digest(f"{reset.id}:{given}"), reset.secret_hash):
        raise ResetCodeWrong()
    return reset


def new_password_hash(data: Any) -> str:
    """The new password of a confirmation, checked and hashed (argon2; no database touched):
    400 for an unacceptable one."""
    if not isinstance(data, dict):
        raise ValidationFailed("Send the token (or phone and code) and the new password.")
    problem = password_problem(data.get("password"))
    if problem:
        raise ValidationFailed(problem, fields={"password": [problem]})
    return hash_password(data["password"])


def confirm_reset(session: Session, data: Any, new_hash: str | None = None) -> User:
    """Set the new password from a valid link token or SMS code, once; then every session and
    token of the account is revoked and the owner is told. 400 for a used, expired or wrong one,
    and for an account suspended since (suspending retires its links too: ``admin.set_active``).
    ``new_hash``: :func:`new_password_hash` of ``data``, made by the caller with no lock held
    (else it is made here, before the first statement)."""
    new_hash = new_hash or new_password_hash(data)  # before any lock is taken
    if data.get("token") is not None:
        reset = _reset_by_token(session, data.get("token"))
    else:
        reset = _reset_by_code(session, data.get("phone"), data.get("code"))
    user = session.get(User, reset.user_id)
    if user is None or not user.is_active:  # suspended since the link was sent: no new password
        raise ValidationFailed(INVALID, fields={"token": [INVALID]}, code=ErrorCode.RESET_INVALID)
    used = session.execute(update(PasswordReset).where(PasswordReset.id == reset.id, PasswordReset.used_at.is_(None))
                           .values(used_at=utcnow()).execution_options(synchronize_session=False))
    if used.rowcount != 1:
        raise ValidationFailed(INVALID, code=ErrorCode.RESET_INVALID)
    user.password_hash = new_hash
    log_out_everywhere(session, user)  # bumps the token version: access and refresh tokens die
    throttle.reset(session, throttle.LOGIN_ACCOUNT, user.email)  # a paused login starts over
    password_changed(session, user)
    session.flush()
    return user

