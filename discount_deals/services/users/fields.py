"""The rules of account, profile and address fields, in the spec's words (SPEC §5).

Each cleaner returns the cleaned values and adds ``{field: [message]}`` for the refused ones
to an error map, so a form shows every problem at once; :func:`invalid` turns the map into one
:class:`ValidationFailed`. The CLI's checks (``create-admin``) use the same small validators.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from ...models import Gender, Role, User
from .. import ValidationFailed
from ..catalog.fields import CONTROL_CHARACTERS, has_control_characters, has_invisible_characters, normalize_newlines
from ..error_codes import ErrorCode
from ..form_rules import as_sentences, require_object, take_flag
from ..phones import account_phone

EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
USERNAME_RE = re.compile(r"^[\w.@+-]+$")
MIN_PASSWORD_LENGTH = 6
MAX_PASSWORD_LENGTH = 256
MAX_ADDRESSES = 20
EARLIEST_BIRTH_DATE = date(1900, 1, 1)
ROLES = tuple(role.value for role in Role)
GENDERS = tuple(gender.value for gender in Gender)

# SPEC §5: the messages for empty registration fields, exact to the character.
REQUIRED_MESSAGES = {
    "first_name": "First name is required",
    "last_name": "Last name is required",
    "username": "Username is required",
    "email": "Email is required",
    "phonenumber": "Phone number is required",
    "date_of_birth": "Date of birth is required",
    "gender": "Gender is required",
}
ACCOUNT_FIELDS = tuple(REQUIRED_MESSAGES)
MAX_LENGTHS = {"first_name": 150, "last_name": 150, "username": 150, "email": 254, "phonenumber": 32}
ADDRESS_REQUIRED = {"line1": "Line 1 is required", "city": "City is required", "country": "Country is required"}
ADDRESS_MAX_LENGTHS = {"line1": 255, "line2": 255, "city": 120, "state": 120, "postal_code": 32, "country": 120}
PROFILE_MAX_LENGTHS = {"bio": 2000, "website": 500}
NOT_TEXT = "Enter text."
INVALID_EMAIL = "Please enter a valid email"
INVALID_PHONE = "Please enter a valid phone number"
INVALID_URL = "Enter a valid URL."
# What a unique index of the account says, by the field it guards (the same words as the checks').
TAKEN = {"email": "A user with this email already exists.", "username": "A user with this username already exists."}

Errors = dict[str, list[str]]


def too_long(limit: int) -> str:
    return f"Ensure this field has at most {limit} characters."


def invalid(errors: Errors, code: str = "") -> ValidationFailed:
    """One exception for all field errors; its detail lists every message. Without a ``code``,
    the code of the first message that has one (:data:`MESSAGE_CODES`)."""
    if not code:
        code = next((MESSAGE_CODES[m] for ms in errors.values() for m in ms if m in MESSAGE_CODES), "")
    return ValidationFailed(as_sentences(m for ms in errors.values() for m in ms), fields=errors, code=code)



# --- small validators (the CLI uses them too) --------------------------------------------------------


def normalize_email(email: str) -> str:
    return (email or "").strip().lower()


def is_valid_email(email: str) -> bool:
    return bool(EMAIL_RE.match(email or "")) and len(email) <= 254


# A closed account keeps its row under a placeholder email in this domain (services.users.privacy):
# ``.invalid`` is reserved (RFC 6761), and no account may take an email in it.
CLOSED_DOMAIN = "deleted.invalid"


def sent_back(sent: Any, stored: Any) -> bool:
    """Whether ``sent`` is a stored text sent back as it is (blanks around and CRLF aside): the
    forms send every field with each save, and a value stored before today's rules is kept, not
    checked again, so that it never blocks saving the rest (an invisible mark pasted into a name
    years ago). An empty stored value is always checked: a required field stays required."""
    return isinstance(sent, str) and isinstance(stored, str) and bool(stored) and normalize_newlines(sent).strip() == stored


def _look_alike(text: str) -> bool:
    """True when ``text`` is not written as NFKC writes it (a full-width "ａ" for "a", a ligature)
    or holds any format character: an email or username that looks like another account's."""
    return unicodedata.normalize("NFKC", text) != text or any(unicodedata.category(c) == "Cf" for c in text)


def is_new_email(email: str) -> bool:
    """Whether an account may take ``email`` (normalized): a valid one without look-alike characters
    (:func:`_look_alike`), whose domain has no empty label (``example.com.``, ``a..b``) and is not
    in ``.invalid``. Lookups (login, reset) keep :func:`is_valid_email`, so no account is locked out."""
    if not is_valid_email(email) or _look_alike(email):
        return False
    labels = email.rpartition("@")[2].split(".")
    return all(labels) and labels[-1] != CLOSED_DOMAIN.rpartition(".")[2]


def is_closed_email(email: str | None) -> bool:
    """Whether ``email`` is the placeholder a closed account keeps (deleted-<id>@deleted.invalid)."""
    return bool(email) and email.endswith(f"@{CLOSED_DOMAIN}")


def is_closed(user: User) -> bool:
    """Whether ``user`` is an account its owner closed (its row stays, emptied, for the orders)."""
    return is_closed_email(user.email)


COMMON_PASSWORD = "This password is too common. Choose one that is harder to guess."
# Refusals a face may react to by name (``ValidationFailed.code``), whichever function raised them.
MESSAGE_CODES = {COMMON_PASSWORD: ErrorCode.PASSWORD_COMMON}


@functools.cache
@functools.lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """The 100 commonest passwords, lower case (``common_passwords.txt`` names its source)."""
    text = (Path(__file__).with_name("common_passwords.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def password_problem(password: Any) -> str | None:
    """The spec's message for an unacceptable password, or None. Blanks count (a password may be
    spaces). One of the commonest passwords is refused too (issue 32): it is the first a guesser tries."""
    if password is None or password == "":
        return "Password is required"
    if not isinstance(password, str):
        return NOT_TEXT
    if len(password) < MIN_PASSWORD_LENGTH:
        return "Password must be at least 6 characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return too_long(MAX_PASSWORD_LENGTH)
    if password.lower() in common_passwords():
        return COMMON_PASSWORD
    return None


def email_taken(session: Session, email: str, *, exclude_id: str | None = None) -> bool:
    query = select(User.id).where(func.lower(User.email) == normalize_email(email))
    if exclude_id:
        query = query.where(User.id != exclude_id)
    return session.exec(query).first() is not None


def username_taken(session: Session, username: str, *, exclude_id: str | None = None) -> bool:
    """Whether another account has ``username``, in any case (``Ama``, ``ama``; ``Ámà``, ``ámà``)."""
    key = username.strip().lower()
    others = [User.id != exclude_id] if exclude_id else []
    if key.isascii():
        return session.exec(select(User.id).where(func.lower(User.username) == key, *others)).first() is not None
    # SQLite's lower() folds ASCII only: the names of that length are compared in Python.
    names = session.exec(select(User.username).where(func.length(User.username) == len(key), *others)).all()
    return any(name.lower() == key for name in names)


def flush_account(session: Session) -> None:
    """Write an account's new or changed row. :func:`email_taken` and :func:`username_taken` check
    one request alone; two at once taking one email, or one username in two cases, pass both
    checks on PostgreSQL, and then the database's unique index refuses the second: the 400 it
    would have had one at a time, not a conflict without a field."""
    try:
        session.flush()
    except IntegrityError as exc:
        # The first line names the index (PostgreSQL's DETAIL line quotes the value, which may
        # hold "email" in a username).
        refused = str(exc.orig).splitlines()[0].lower()
        for field, message in TAKEN.items():
            if field in refused:
                raise invalid({field: [message]}) from None
        raise


def free_username(session: Session, base: str) -> str:
    base = re.sub(r"[^\w.+-]", "", base)[:140] or "user"
    candidate, n = base, 1
    while username_taken(session, candidate):
        n += 1
        candidate = f"{base}{n}"
    return candidate


# --- account fields ---------------------------------------------------------------------------


def clean_text(value: Any) -> str | None:
    """``value`` stripped (CRLF as newlines), "" for None; None when it is not text at all."""
    if value is None:
        return ""
    return normalize_newlines(value).strip() if isinstance(value, str) else None


def _parse_birth_date(value: Any) -> tuple[date | None, str | None]:
    if isinstance(value, date):
        parsed = value.date() if isinstance(value, datetime) else value
    else:
        text = clean_text(value)
        if text is None:
            return None, NOT_TEXT
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return None, "Enter a valid date in the format YYYY-MM-DD."
        try:
            parsed = date.fromisoformat(text)
        except ValueError:
            return None, "Enter a valid date in the format YYYY-MM-DD."
    if parsed >= date.today():
        return None, "Date of birth must be in the past"
    if parsed < EARLIEST_BIRTH_DATE:
        return None, "Date of birth must be after 1900-01-01"
    return parsed, None


def _account_value(
    session: Session, name: str, raw: Any, exclude_id: str | None, check_unique: bool = True
) -> tuple[Any, str | None]:
    """The cleaned value of one account field, or the message saying why it is refused
    (``check_unique=False``: its form only, without asking whether email or username are taken)."""
    if name == "date_of_birth" and isinstance(raw, date):
        return _parse_birth_date(raw)
    text = clean_text(raw)
    if text is None:
        return None, NOT_TEXT
    # An email or username with an invisible character gets its own field's message (below).
    if has_control_characters(text) or (name not in ("email", "username") and has_invisible_characters(text)):
        return None, CONTROL_CHARACTERS
    if not text:
        return None, REQUIRED_MESSAGES[name]
    limit = MAX_LENGTHS.get(name)
    if limit and len(text) > limit:
        return None, too_long(limit)
    if name == "email":
        text = normalize_email(text)
        if not is_new_email(text):
            return None, INVALID_EMAIL
        if check_unique and email_taken(session, text, exclude_id=exclude_id):
            return None, TAKEN["email"]
    elif name == "username":
        if not USERNAME_RE.match(text) or _look_alike(text):
            return None, "Username may contain only letters, digits and @ . + - _"
        if check_unique and username_taken(session, text, exclude_id=exclude_id):
            return None, TAKEN["username"]
    elif name == "phonenumber":
        phone = account_phone(text)  # parsed once, here: stored E.164 when a real number (services/phones.py)
        return (phone, None) if phone else (None, INVALID_PHONE)
    elif name == "date_of_birth":
        return _parse_birth_date(text)
    elif name == "gender":
        text = text.lower()
        if text not in GENDERS:
            return None, "Gender must be male, female or other"
    return text, None


def clean_account(
    session: Session,
    data: dict[str, Any],
    names: tuple[str, ...],
    exclude_id: str | None,
    errors: Errors,
    check_unique: bool = True,
) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for name in names:
        value, problem = _account_value(session, name, data.get(name), exclude_id, check_unique)
        if problem:
            errors[name] = [problem]
        else:
            clean[name] = value
    return clean


def require_mapping(data: Any) -> dict[str, Any]:
    return dict(require_object(data))



def clean_profile_changes(changes: dict[str, Any], errors: Errors, prefix: str = "") -> dict[str, str | None]:
    """Cleaned ``bio`` and ``website`` from ``changes`` (blank → None); only the keys present."""
    clean: dict[str, str | None] = {}
    for name in ("bio", "website"):
        if name not in changes:
            continue
        text = clean_text(changes[name])
        if text is None:
            errors[prefix + name] = [NOT_TEXT]
            continue
        if has_control_characters(text) or has_invisible_characters(text):
            errors[prefix + name] = [CONTROL_CHARACTERS]
            continue
        if len(text) > PROFILE_MAX_LENGTHS[name]:
            errors[prefix + name] = [too_long(PROFILE_MAX_LENGTHS[name])]
            continue
        if name == "website" and text and not _is_web_url(text):
            errors[prefix + name] = [INVALID_URL]
            continue
        clean[name] = text or None
    return clean


def _is_web_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    host = parts.hostname or ""
    return (parts.scheme in ("http", "https") and ("." in host or host == "localhost")
            and not any(char.isspace() for char in text))



def clean_address(data: dict[str, Any], names: tuple[str, ...], errors: Errors) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for name in names:
        text = clean_text(data.get(name))
        if text is None:
            errors[name] = [NOT_TEXT]
        elif has_control_characters(text):
            errors[name] = [CONTROL_CHARACTERS]
        elif not text and name in ADDRESS_REQUIRED:
            errors[name] = [ADDRESS_REQUIRED[name]]
        elif len(text) > ADDRESS_MAX_LENGTHS[name]:
            errors[name] = [too_long(ADDRESS_MAX_LENGTHS[name])]
        else:
            clean[name] = text
    take_flag(data, "is_default", clean, errors, none_is_absent=True)
    return clean
