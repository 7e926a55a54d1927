"""Users, profiles and addresses: registration, validation and the rules on who may change what.

Every function that acts for someone takes the acting ``actor: User`` and checks it itself:
a user may read and change only their own account, profile and addresses (someone else's id
answers "not found"), an admin may also change other accounts and manage roles.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from types import EllipsisType
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import Session, col, func, or_, select

from ..models import Address, Gender, Profile, Role, User
from ..settings import get_settings
from . import NotFound, ServiceError, ValidationFailed, audit, throttle
from .auth import hash_password, set_password
from .catalog.validation import CONTROL_CHARACTERS, has_control_characters, normalize_newlines
from .images import delete_stored_image, prepare_uploaded_image, save_prepared_image
from .permissions import is_admin, require_admin, require_user

EMAIL_RE = re.compile(r"^[^\s@]+@[^\s@]+\.[^\s@]+$")
USERNAME_RE = re.compile(r"^[\w.@+-]+$")
PHONE_RE = re.compile(r"^\+?[\d\s().-]+$")
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
INVALID_URL = "Enter a valid URL."

Errors = dict[str, list[str]]


def _too_long(limit: int) -> str:
    return f"Ensure this field has at most {limit} characters."


def _fail(errors: Errors) -> ValidationFailed:
    """One exception for all field errors; its detail lists every message."""
    return ValidationFailed("; ".join(m for ms in errors.values() for m in ms), fields=errors)


# --- small validators shared with the CLI --------------------------------------------------------


def normalize_email(email: str) -> str:
    return (email or "").strip().lower()


def is_valid_email(email: str) -> bool:
    return bool(EMAIL_RE.match(email or "")) and len(email) <= 254


def password_problem(password: Any) -> str | None:
    """The spec's message for an unacceptable password, or None. Blanks count (a password may be spaces)."""
    if password is None or password == "":
        return "Password is required"
    if not isinstance(password, str):
        return NOT_TEXT
    if len(password) < MIN_PASSWORD_LENGTH:
        return "Password must be at least 6 characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return _too_long(MAX_PASSWORD_LENGTH)
    return None


def email_taken(session: Session, email: str, *, exclude_id: str | None = None) -> bool:
    query = select(User.id).where(func.lower(User.email) == normalize_email(email))
    if exclude_id:
        query = query.where(User.id != exclude_id)
    return session.exec(query).first() is not None


def username_taken(session: Session, username: str, *, exclude_id: str | None = None) -> bool:
    query = select(User.id).where(func.lower(User.username) == username.strip().lower())
    if exclude_id:
        query = query.where(User.id != exclude_id)
    return session.exec(query).first() is not None


def _free_username(session: Session, base: str) -> str:
    base = re.sub(r"[^\w.+-]", "", base)[:140] or "user"
    candidate, n = base, 1
    while username_taken(session, candidate):
        n += 1
        candidate = f"{base}{n}"
    return candidate


# --- account fields ---------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    """``value`` stripped (CRLF as newlines), "" for None; None when it is not text at all."""
    if value is None:
        return ""
    return normalize_newlines(value).strip() if isinstance(value, str) else None


def _parse_birth_date(value: Any) -> tuple[date | None, str | None]:
    if isinstance(value, date):
        parsed = value.date() if isinstance(value, datetime) else value
    else:
        text = _text(value)
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
    text = _text(raw)
    if text is None:
        return None, NOT_TEXT
    if has_control_characters(text):
        return None, CONTROL_CHARACTERS
    if not text:
        return None, REQUIRED_MESSAGES[name]
    limit = MAX_LENGTHS.get(name)
    if limit and len(text) > limit:
        return None, _too_long(limit)
    if name == "email":
        text = normalize_email(text)
        if not is_valid_email(text):
            return None, INVALID_EMAIL
        if check_unique and email_taken(session, text, exclude_id=exclude_id):
            return None, "A user with this email already exists."
    elif name == "username":
        if not USERNAME_RE.match(text):
            return None, "Username may contain only letters, digits and @ . + - _"
        if check_unique and username_taken(session, text, exclude_id=exclude_id):
            return None, "A user with this username already exists."
    elif name == "phonenumber":
        digits = sum(ch.isdigit() for ch in text)
        if not PHONE_RE.match(text) or not 7 <= digits <= 15:
            return None, "Please enter a valid phone number"
    elif name == "date_of_birth":
        return _parse_birth_date(text)
    elif name == "gender":
        text = text.lower()
        if text not in GENDERS:
            return None, "Gender must be male, female or other"
    return text, None


def _clean_account(
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


def _require_mapping(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValidationFailed("Invalid request body: a JSON object is expected.")
    return data


def add_user(
    session: Session, *, email: str, password: str, username: str, role: Role = Role.CUSTOMER, **fields
) -> User:
    """Insert a user with its (empty) profile. Callers validate first."""
    return _insert_user(
        session, email=email, password_hash=hash_password(password), username=username, role=role, **fields
    )


def _insert_user(session: Session, *, email: str, password_hash: str, username: str, role: Role, **fields) -> User:
    user = User(
        email=normalize_email(email),
        username=username.strip(),
        password_hash=password_hash,
        role=role.value,
        **fields,
    )
    session.add(user)
    session.flush()
    session.add(Profile(user_id=user.id))
    session.flush()
    return user


class RegistrationThrottled(ServiceError):
    """Too many registrations from one client address (HTTP 429)."""

    status = 429

    def __init__(self, retry_after: int):
        minutes = math.ceil(retry_after / 60)
        wait = f"{minutes} minute{'s' if minutes != 1 else ''}"
        super().__init__(f"Too many registration attempts. Please try again in {wait}.", code="register_throttled")
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


def register(session: Session, data: dict[str, Any], *, client: str | None = None) -> User:
    """Create a customer from SPEC's registration payload (``role`` and other extra keys are ignored).

    Raises :class:`ValidationFailed` with the spec's message per invalid field. The form of
    every field is checked first; a well-formed attempt from ``client`` (the caller's address)
    then counts against the registration throttle (:class:`RegistrationThrottled`, 429) before
    the database is asked whether the email or username is taken: that answer tells whether
    someone has an account, so it is rationed.

    Owns its transactions: the attempt is counted in a write transaction of its own, committed
    before the password is hashed (:func:`.throttle.count_attempt`: the count must stay recorded
    although the registration is refused and the caller's unit of work rolls back). The
    account itself is written in ``session``, the caller's, which must not have begun to write.
    """
    data = _require_mapping(data)
    errors: Errors = {}
    problem = password_problem(data.get("password"))
    clean = _clean_account(session, data, ACCOUNT_FIELDS, None, errors, check_unique=False)
    if problem:
        errors["password"] = [problem]
    if errors:
        raise _fail(errors)
    if client is not None:
        limits = get_settings().security
        count = throttle.count_attempt(throttle.REGISTER, client, limits.register_window_seconds)
        if count.over(limits.register_max_attempts):
            raise RegistrationThrottled(count.retry_after())
    # Hash before the next query: a write session holds the database lock from then on.
    password_hash = hash_password(data["password"])
    if email_taken(session, clean["email"]):
        errors["email"] = ["A user with this email already exists."]
    if username_taken(session, clean["username"]):
        errors["username"] = ["A user with this username already exists."]
    if errors:
        raise _fail(errors)
    return _insert_user(session, password_hash=password_hash, role=Role.CUSTOMER, **clean)


def create_or_promote_admin(session: Session, email: str, password: str) -> tuple[User, bool]:
    """Create an admin, or make an existing user admin and set the password. Returns (user, created)."""
    email = normalize_email(email)
    errors: Errors = {}
    if not is_valid_email(email):
        errors["email"] = [INVALID_EMAIL]
    problem = password_problem(password)
    if problem:
        errors["password"] = [problem]
    if errors:
        raise _fail(errors)
    user = session.exec(select(User).where(func.lower(User.email) == email)).first()
    if user is not None:
        user.role = Role.ADMIN.value
        set_password(user, password)
        session.add(user)
        session.flush()
        return user, False
    user = add_user(
        session,
        email=email,
        password=password,
        username=_free_username(session, email.split("@")[0]),
        role=Role.ADMIN,
    )
    return user, True


# --- reading an account -----------------------------------------------------------------------


def profile_of(session: Session, user: User) -> Profile:
    """The user's profile (created with the user; made here if an older row lacks one)."""
    profile = session.exec(select(Profile).where(Profile.user_id == user.id)).first()
    if profile is None:
        profile = Profile(user_id=user.id)
        session.add(profile)
        session.flush()
    return profile


def addresses_of(session: Session, user: User) -> list[Address]:
    """The user's addresses: the default first, then oldest first."""
    return list(
        session.exec(
            select(Address)
            .where(Address.user_id == user.id)
            .order_by(col(Address.is_default).desc(), col(Address.created_at), col(Address.id))
        )
    )


def profile_dict(profile: Profile) -> dict[str, Any]:
    return {"id": profile.id, "bio": profile.bio, "website": profile.website, "profile_image": profile.profile_image}


def address_dict(address: Address) -> dict[str, Any]:
    return {
        "id": address.id,
        "line1": address.line1,
        "line2": address.line2,
        "city": address.city,
        "state": address.state,
        "postal_code": address.postal_code,
        "country": address.country,
        "is_default": address.is_default,
    }


def user_summary(session: Session, user: User) -> dict[str, Any]:
    """The ``/users/me/`` payload: account fields, profile and addresses (never the password hash)."""
    return {
        "id": user.id,
        "email": user.email,
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "phonenumber": user.phonenumber,
        "date_of_birth": user.date_of_birth.isoformat() if user.date_of_birth else None,
        "gender": user.gender,
        "role": user.role,
        "profile": profile_dict(profile_of(session, user)),
        "addresses": [address_dict(a) for a in addresses_of(session, user)],
    }


def get_user(session: Session, actor: User | None, user_id: str) -> User:
    """A user the actor may see and change: themselves, or anyone for an admin (others: not found)."""
    actor = require_user(actor)
    user = session.get(User, user_id) if isinstance(user_id, str) else None
    if user is None or (user.id != actor.id and not is_admin(actor)):
        raise NotFound("User not found.")
    return user


# --- changing an account ----------------------------------------------------------------------


def _profile_changes(changes: dict[str, Any], errors: Errors, prefix: str = "") -> dict[str, str | None]:
    """Cleaned ``bio`` and ``website`` from ``changes`` (blank → None); only the keys present."""
    clean: dict[str, str | None] = {}
    for name in ("bio", "website"):
        if name not in changes:
            continue
        text = _text(changes[name])
        if text is None:
            errors[prefix + name] = [NOT_TEXT]
            continue
        if has_control_characters(text):
            errors[prefix + name] = [CONTROL_CHARACTERS]
            continue
        if len(text) > PROFILE_MAX_LENGTHS[name]:
            errors[prefix + name] = [_too_long(PROFILE_MAX_LENGTHS[name])]
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
    return parts.scheme in ("http", "https") and ("." in host or host == "localhost") and " " not in text


def update_user(session: Session, actor: User | None, user_id: str, changes: dict[str, Any]) -> User:
    """Change account fields of ``user_id`` (the actor themselves, or anyone for an admin).

    Accepts email, phonenumber, username, first_name, last_name, date_of_birth, gender, an
    optional ``profile`` ``{bio, website}`` and an optional new ``password`` (which retires every
    refresh token of the user). ``role`` and unknown keys are ignored; absent keys stay as they are.
    """
    user = get_user(session, actor, user_id)
    changes = _require_mapping(changes)
    errors: Errors = {}
    clean = _clean_account(session, changes, tuple(n for n in ACCOUNT_FIELDS if n in changes), user.id, errors)
    profile_changes: dict[str, str | None] = {}
    nested = changes.get("profile")
    if isinstance(nested, dict):
        profile_changes = _profile_changes(nested, errors, prefix="profile.")
    elif nested is not None:
        errors["profile"] = ["Invalid profile: an object is expected."]
    password = changes.get("password")
    if password is not None:
        problem = password_problem(password)
        if problem:
            errors["password"] = [problem]
    if errors:
        raise _fail(errors)
    before = audit.snapshot(user, ACCOUNT_FIELDS)
    for name, value in clean.items():
        setattr(user, name, value)
    if password is not None:
        set_password(user, password)
    session.add(user)
    if profile_changes:
        profile = profile_of(session, user)
        before.update({f"profile.{name}": getattr(profile, name) for name in profile_changes})
        for name, value in profile_changes.items():
            setattr(profile, name, value)
        session.add(profile)
    session.flush()
    if is_admin(actor):
        # An admin's change to an account is audited (a customer's own profile edits are not).
        after = {**audit.snapshot(user, ACCOUNT_FIELDS), **{f"profile.{n}": v for n, v in profile_changes.items()}}
        changes = audit.diff(before, after)
        if password is not None:
            changes["password"] = [audit.HIDDEN, "(changed)"]
        if changes:
            audit.record(session, actor, "user.update", "user", user.id, changes=changes, label=user.email)
    return user


def get_profile(session: Session, actor: User | None, profile_id: str) -> Profile:
    """The actor's own profile by id; anyone else's answers not found."""
    actor = require_user(actor)
    profile = session.get(Profile, profile_id) if isinstance(profile_id, str) else None
    if profile is None or profile.user_id != actor.id:
        raise NotFound("Profile not found.")
    return profile


def update_profile(
    session: Session,
    actor: User | None,
    profile_id: str,
    *,
    bio: str | None | EllipsisType = ...,
    website: str | None | EllipsisType = ...,
    image: bytes | None = None,
) -> Profile:
    """Change the actor's own profile. ``...`` leaves a field as it is; a blank bio or website becomes None.

    ``image`` (the uploaded file's bytes) is verified and re-encoded by
    :func:`~.images.prepare_uploaded_image`; the previous picture is deleted.
    """
    require_user(actor)
    given = {name: value for name, value in (("bio", bio), ("website", website)) if value is not ...}
    errors: Errors = {}
    clean = _profile_changes(given, errors)
    if errors:
        raise _fail(errors)
    # Re-encode before the first query: a write session holds the database lock from then on.
    picture = prepare_uploaded_image(image, get_settings().profile_image_size) if image is not None else None
    profile = get_profile(session, actor, profile_id)
    for name, value in clean.items():
        setattr(profile, name, value)
    previous_image = profile.profile_image
    if picture is not None:
        profile.profile_image = save_prepared_image(picture, "profiles")
    session.add(profile)
    session.flush()
    if image is not None and previous_image:
        delete_stored_image(previous_image)
    return profile


# --- addresses ----------------------------------------------------------------------------------


def _clean_address(data: dict[str, Any], names: tuple[str, ...], errors: Errors) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for name in names:
        text = _text(data.get(name))
        if text is None:
            errors[name] = [NOT_TEXT]
        elif has_control_characters(text):
            errors[name] = [CONTROL_CHARACTERS]
        elif not text and name in ADDRESS_REQUIRED:
            errors[name] = [ADDRESS_REQUIRED[name]]
        elif len(text) > ADDRESS_MAX_LENGTHS[name]:
            errors[name] = [_too_long(ADDRESS_MAX_LENGTHS[name])]
        else:
            clean[name] = text
    if "is_default" in data and data["is_default"] is not None:
        if isinstance(data["is_default"], bool):
            clean["is_default"] = data["is_default"]
        else:
            errors["is_default"] = ["Must be true or false."]
    return clean


def _clear_default(session: Session, user_id: str) -> None:
    """Unset the user's default address, flushed before another becomes the default (unique index)."""
    for address in session.exec(select(Address).where(Address.user_id == user_id, col(Address.is_default))):
        address.is_default = False
        session.add(address)
    session.flush()


def list_addresses(session: Session, actor: User | None) -> list[Address]:
    """The actor's addresses, the default first."""
    return addresses_of(session, require_user(actor))


def get_address(session: Session, actor: User | None, address_id: str) -> Address:
    """One of the actor's own addresses; anyone else's answers not found."""
    actor = require_user(actor)
    address = session.get(Address, address_id) if isinstance(address_id, str) else None
    if address is None or address.user_id != actor.id:
        raise NotFound("Address not found.")
    return address


def add_address(session: Session, actor: User | None, data: dict[str, Any]) -> Address:
    """Save an address for the actor: line1, city and country required; line2, state, postal_code optional.

    The first address, or one sent with ``is_default: true``, becomes the only default.
    """
    actor = require_user(actor)
    errors: Errors = {}
    clean = _clean_address(_require_mapping(data), tuple(ADDRESS_MAX_LENGTHS), errors)
    if errors:
        raise _fail(errors)
    count = session.exec(select(func.count()).select_from(Address).where(Address.user_id == actor.id)).one()
    if count >= MAX_ADDRESSES:
        raise ValidationFailed(f"You can save at most {MAX_ADDRESSES} addresses.")
    is_default = clean.pop("is_default", False) or count == 0
    if is_default:
        _clear_default(session, actor.id)
    address = Address(user_id=actor.id, is_default=is_default, **clean)
    session.add(address)
    session.flush()
    return address


def update_address(session: Session, actor: User | None, address_id: str, changes: dict[str, Any]) -> Address:
    """Change one of the actor's addresses; ``is_default: true`` makes it the only default.

    The default cannot be unset directly (set another address as default instead).
    """
    address = get_address(session, actor, address_id)
    errors: Errors = {}
    changes = _require_mapping(changes)
    clean = _clean_address(changes, tuple(n for n in ADDRESS_MAX_LENGTHS if n in changes), errors)
    if clean.get("is_default") is False and address.is_default:
        errors["is_default"] = ["A default address is required: set another address as default instead."]
    if errors:
        raise _fail(errors)
    if clean.pop("is_default", False) and not address.is_default:
        _clear_default(session, address.user_id)
        address.is_default = True
    for name, value in clean.items():
        setattr(address, name, value)
    session.add(address)
    session.flush()
    return address


def delete_address(session: Session, actor: User | None, address_id: str) -> None:
    """Delete one of the actor's addresses; if it was the default, the oldest remaining one takes over."""
    address = get_address(session, actor, address_id)
    was_default, user_id = address.is_default, address.user_id
    session.delete(address)
    session.flush()
    if was_default:
        successor = session.exec(
            select(Address).where(Address.user_id == user_id).order_by(col(Address.created_at), col(Address.id))
        ).first()
        if successor is not None:
            successor.is_default = True
            session.add(successor)
            session.flush()


# --- admin: users and roles ---------------------------------------------------------------------


def _valid_role(role: Any, field: str = "role") -> str:
    if not isinstance(role, str) or role.strip().lower() not in ROLES:
        message = "Select a valid role: admin, seller, manager, customer or user."
        raise ValidationFailed(message, fields={field: [message]})
    return role.strip().lower()


def list_users(
    session: Session,
    actor: User | None,
    *,
    search: str = "",
    role: str | None = None,
    offset: int = 0,
    limit: int = 100,
) -> tuple[list[User], int]:
    """Admin only: users newest first, with the total count.

    ``search`` matches email, username, first or last name (case-insensitive, anywhere);
    ``role`` keeps one role ("" or "all" means every role).
    """
    require_admin(actor)
    conditions = []
    term = (search or "").strip()
    if term:
        pattern = "%" + re.sub(r"([\\%_])", r"\\\1", term.lower()) + "%"
        conditions.append(
            or_(
                *(
                    func.lower(column).like(pattern, escape="\\")
                    for column in (User.email, User.username, User.first_name, User.last_name)
                )
            )
        )
    if role and role.strip().lower() != "all":
        conditions.append(User.role == _valid_role(role))
    total = session.exec(select(func.count()).select_from(User).where(*conditions)).one()
    users = session.exec(
        select(User)
        .where(*conditions)
        .order_by(col(User.created_at).desc(), col(User.id).desc())
        .offset(max(0, offset))
        .limit(max(1, limit))
    ).all()
    return list(users), total


def change_role(session: Session, actor: User | None, user_id: str, role: str) -> User:
    """Admin only: give ``user_id`` one of the roles. The last remaining admin cannot be demoted."""
    require_admin(actor)
    role = _valid_role(role)
    user = session.get(User, user_id) if isinstance(user_id, str) else None
    if user is None:
        raise NotFound("User not found.")
    if user.role == Role.ADMIN.value and role != Role.ADMIN.value:
        # Locking the admin rows (PostgreSQL) makes two admins demoting each other queue up.
        admins = session.exec(
            select(User.id).where(User.role == Role.ADMIN.value, col(User.is_active)).with_for_update()
        ).all()
        if len(admins) <= 1:
            message = "The last admin cannot be demoted."
            raise ValidationFailed(message, fields={"role": [message]})
    previous = user.role
    user.role = role
    session.add(user)
    session.flush()
    if previous != role:
        audit.record(session, actor, "user.role", "user", user.id, changes={"role": [previous, role]}, label=user.email)
    return user


def set_active(session: Session, actor: User | None, user_id: str, active: Any) -> User:
    """Admin only: deactivate an account (it can no longer log in, and its tokens stop working)
    or reactivate it. Admins cannot deactivate themselves, and the last active admin stays."""
    actor = require_admin(actor)
    if not isinstance(active, bool):
        message = "Must be true or false."
        raise ValidationFailed(message, fields={"is_active": [message]})
    user = session.get(User, user_id) if isinstance(user_id, str) else None
    if user is None:
        raise NotFound("User not found.")
    if user.is_active == active:
        return user
    if not active:
        if user.id == actor.id:
            message = "You cannot deactivate your own account."
            raise ValidationFailed(message, fields={"is_active": [message]}, code="self")
        if user.role == Role.ADMIN.value:
            admins = session.exec(
                select(User.id).where(User.role == Role.ADMIN.value, col(User.is_active)).with_for_update()
            ).all()
            if len(admins) <= 1:
                message = "The last admin cannot be deactivated."
                raise ValidationFailed(message, fields={"is_active": [message]}, code="last_admin")
        user.token_version += 1  # its refresh tokens stop working too
    user.is_active = active
    session.add(user)
    session.flush()
    audit.record(session, actor, "user.activate" if active else "user.deactivate", "user", user.id,
                 changes={"is_active": [not active, active]}, label=user.email)
    return user
