"""A new email or phone number: the current password first, a notice to the old ones, an undo.

A stolen access token must not be enough to move an account to an address the thief reads (a
password reset there would take it over), so :func:`.accounts.update_user` asks for the current
password when the email or phone *changes* (the original client sends both, unchanged, with
every profile save: those need nothing). The old email, and the old phone by SMS, are told in
the same transaction; the email carries an undo link valid :data:`UNDO_DAYS` days. The link's
token is signed and names the old and the new values: undoing puts the old ones back and ends
every session of the account, and only while the account still has the new ones and has seen
no other change or undo since (``User.contact_version``, which the token names): a link works
once, and not after a later change.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from sqlmodel import Session

from ... import routes
from ...models import User
from ...config.settings import get_settings
from .. import ValidationFailed
from ..auth.tokens import log_out_everywhere
from ..error_codes import ErrorCode
from ..messages.notices import contact_changed
from ..phones import account_phone_text
from ..rows import by_id
from .fields import ACCOUNT_FIELDS, email_taken, normalize_email, sent_back

UNDO_DAYS = 7
UNDO_PATH = routes.UNDO_CHANGE  # the storefront's page that asks before undoing (pages/undo_change.py)
_TOKEN_TYPE = "contact_undo"
CONTACT_FIELDS = ("email", "phonenumber")
UNDONE = "The change was undone and every device was signed out. Log in, then reset your password."
INVALID_UNDO = "This undo link is invalid or has expired."
EMAIL_TAKEN_SINCE = ("Another account uses your old email now, so it cannot come back. "
                     "Reset your password and contact us.")
_WHAT = {("email",): "email address", ("phonenumber",): "phone number",
         ("email", "phonenumber"): "email address and phone number"}


def fields_to_clean(user: User, changes: dict[str, Any]) -> tuple[str, ...]:
    """The account fields ``changes`` sends, less those sent back as the account has them
    (:func:`.fields.sent_back`; the email in any case, the phone exactly as the API shows it): the
    original client sends them all with every profile save, and they stay as stored. So an old
    number the E.164 migration could not convert, or a name or email from before today's rules,
    does not block saving the rest of the form, and nobody is asked whether their own email is taken."""
    shown = {"email": user.email, "phonenumber": account_phone_text(user.phonenumber) if user.phonenumber else ""}

    def kept(name: str) -> bool:
        sent = changes[name]
        if name == "email" and isinstance(sent, str):
            sent = normalize_email(sent)
        return sent_back(sent, shown.get(name, getattr(user, name)))

    return tuple(name for name in ACCOUNT_FIELDS if name in changes and not kept(name))


def changed_contacts(user: User, clean: dict[str, Any]) -> tuple[str, ...]:
    """Which of email and phone ``clean`` (the cleaned changes) really changes. Both are compared
    as stored: the phone is E.164 (``+233 24 123 4567`` and ``0241234567`` are one number)."""
    return tuple(name for name in CONTACT_FIELDS if name in clean and clean[name] != getattr(user, name))


def _undo_token(user: User, old: dict[str, Any], new: dict[str, Any]) -> str:
    now = datetime.now(UTC)
    claims = {"sub": user.id, "type": _TOKEN_TYPE, "jti": uuid.uuid4().hex, "iat": now,
              "exp": now + timedelta(days=UNDO_DAYS), "old": old, "new": new, "v": user.contact_version}
    return jwt.encode(claims, get_settings().secret_key, algorithm="HS256")


def tell_old_contacts(session: Session, user: User, old: dict[str, Any], changed: tuple[str, ...]) -> None:
    """After ``user`` took its new values: queue the notice with the undo link to the old ones."""
    new = {name: getattr(user, name) for name in changed}
    old = {name: old[name] for name in changed}
    user.contact_version += 1  # the links sent before this change stop working
    path = routes.undo_change_path(_undo_token(user, old, new))
    contact_changed(session, user, _before(user, old, "email"), _before(user, old, "phonenumber"),
                    _WHAT[changed], path, UNDO_DAYS)


def _before(user: User, old: dict[str, Any], name: str) -> Any:
    return old[name] if name in old else getattr(user, name)


def _undo_claims(token: Any) -> dict:
    if not isinstance(token, str) or not token or len(token) > 4096:
        raise ValidationFailed(INVALID_UNDO, code=ErrorCode.UNDO_INVALID)
    try:
        claims = jwt.decode(token, get_settings().secret_key, algorithms=["HS256"],
                            options={"require": ["sub", "type", "exp", "old", "new"]})
    except jwt.PyJWTError:
        raise ValidationFailed(INVALID_UNDO, code=ErrorCode.UNDO_INVALID) from None
    if claims["type"] != _TOKEN_TYPE or not isinstance(claims["old"], dict) or not isinstance(claims["new"], dict):
        raise ValidationFailed(INVALID_UNDO, code=ErrorCode.UNDO_INVALID)
    return claims


def undo_contact_change(session: Session, token: Any) -> User:
    """Put back the email and phone an undo link names, and end every session of the account.

    Refused (400, ``undo_invalid``) for a bad or expired token, or once the account no longer has
    the new values or has changed or undone since (``contact_version``); ``undo_email_taken`` when another
    account took the old email in between.
    """
    claims = _undo_claims(token)
    old, new = claims["old"], claims["new"]
    user = by_id(session, User, claims["sub"])
    names = [name for name in CONTACT_FIELDS if name in old and name in new]
    if (user is None or not names or any(getattr(user, name) != new[name] for name in names)
            or claims.get("v", 0) != user.contact_version):  # a link sent before the migration names none
        raise ValidationFailed(INVALID_UNDO, code=ErrorCode.UNDO_INVALID)
    if "email" in names and email_taken(session, old["email"], exclude_id=user.id):
        raise ValidationFailed(EMAIL_TAKEN_SINCE, code=ErrorCode.UNDO_EMAIL_TAKEN)
    for name in names:
        setattr(user, name, old[name])
    user.contact_version += 1  # this link, and any other sent before, is spent
    session.add(user)
    session.flush()
    log_out_everywhere(session, user)
    return user
