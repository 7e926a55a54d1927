"""Accounts: registration, the admin the command line makes, reading and changing an account.

Every function that acts for someone takes the acting ``actor: User`` and checks it itself: a
user may read and change only their own account (someone else's id answers "not found"), an
admin may also change other accounts (and that change is audited).

Owns its transactions: :func:`register` and :func:`start_registration` count the attempt in a
transaction of its own (the count must outlive a refused registration; see
:func:`.throttle.count_attempt`). Everything else takes the caller's session. The argon2 work
of a registration and of a password change runs between steps the faces take apart, in no
transaction (:func:`start_registration`, :func:`count_change_check`, :func:`prepare_change`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, func, select

from ...models import Profile, Role, User
from ...config.settings import get_settings
from .. import ServiceError, audit, throttle
from ..auth.tokens import hash_password, retire_password_resets, set_password
from ..error_codes import ErrorCode
from ..messages.notices import password_changed
from ..auth.password_checks import (
    PasswordCheck,
    count_check,
    current_password_matches,
    refusal_keeps_count,
    run_check,
)
from ..permissions import is_admin, require_user
from ..phones import account_phone_text, parse_account_phone
from ..rows import owned_or_admin
from .addresses import address_dict, addresses_of
from .admin import refuse_closed
from .contact_change import changed_contacts, fields_to_clean, tell_old_contacts
from .fields import (
    ACCOUNT_FIELDS,
    INVALID_EMAIL,
    TAKEN,
    Errors,
    clean_account,
    clean_profile_changes,
    email_taken,
    flush_account,
    free_username,
    invalid,
    is_closed,
    is_new_email,
    is_valid_email,
    normalize_email,
    password_problem,
    require_mapping,
    username_taken,
)
from .profiles import profile_changes_sent, profile_dict, profile_of


def full_name(user: User | None) -> str:
    """"Ama Mensah": the first and last names as the shop writes a person ("" when neither is
    known, or there is no account any more); each face adds its own fallback (the username,
    the email)."""
    if user is None:
        return ""
    return f"{user.first_name or ''} {user.last_name or ''}".strip()


def add_user(
    session: Session, *, email: str, password: str, username: str, role: Role = Role.CUSTOMER, **fields
) -> User:
    """Insert a user with its (empty) profile. Callers validate first."""
    return _insert_user(
        session, email=email, password_hash=hash_password(password), username=username, role=role, **fields
    )


def _insert_user(session: Session, *, email: str, password_hash: str, username: str, role: Role, **fields) -> User:
    if fields.get("phonenumber"):  # E.164 when it parses (registration's is already); else as given
        fields["phonenumber"] = parse_account_phone(fields["phonenumber"]) or fields["phonenumber"]
    user = User(
        email=normalize_email(email),
        username=username.strip(),
        password_hash=password_hash,
        role=role.value,
        **fields,
    )
    session.add(user)
    flush_account(session)
    session.add(Profile(user_id=user.id))
    session.flush()
    return user


class RegistrationThrottled(throttle.Throttled):
    """Too many registrations from one client address (HTTP 429)."""

    def __init__(self, retry_after: int):
        super().__init__("registration attempts", retry_after, code=ErrorCode.REGISTER_THROTTLED)


@dataclass(frozen=True)
class Registration:
    """A registration whose form passed and whose attempt was counted (:func:`start_registration`)."""

    clean: dict[str, Any]
    password: str


def register(session: Session, data: dict[str, Any], *, client: str | None = None) -> User:
    """Create a customer from SPEC's registration payload (``role`` and other extra keys are ignored).

    Raises :class:`ValidationFailed` with the spec's message per invalid field. The form of
    every field is checked first; a well-formed attempt from ``client`` (the caller's address)
    then counts against the registration throttle (:class:`RegistrationThrottled`, 429) before
    the database is asked whether the email or username is taken: that answer tells whether
    someone has an account, so it is rationed.

    Owns its transactions: :func:`start_registration`'s. The account itself is written in
    ``session``, the caller's, which must not have begun to write. The API takes the three steps
    apart, so that the hash between them holds no write turn.
    """
    registration = start_registration(session, data, client=client)
    # Hash before the next query: a write session holds the database lock from then on.
    return finish_registration(session, registration, hash_password(registration.password))


def start_registration(session: Session, data: Any, *, client: str | None = None) -> Registration:
    """Check the form, then count the attempt (see :func:`register`).

    Owns its transactions: the attempt is counted in a write transaction of its own, committed
    at once (:func:`.throttle.count_attempt`: the count must stay recorded although the
    registration is refused). ``session`` is only read, if at all."""
    data = require_mapping(data)
    errors: Errors = {}
    problem = password_problem(data.get("password"))
    clean = clean_account(session, data, ACCOUNT_FIELDS, None, errors, check_unique=False)
    if problem:
        errors["password"] = [problem]
    if errors:
        raise invalid(errors)
    if client is not None:
        limits = get_settings().security
        count = throttle.count_attempt(throttle.REGISTER, client, limits.register_window_seconds)
        if count.over(limits.register_max_attempts):
            raise RegistrationThrottled(count.retry_after())
    return Registration(clean, data["password"])


def finish_registration(session: Session, registration: Registration, password_hash: str) -> User:
    """Write the account of a started registration, its password hashed by the caller (400 when
    the email or username is taken)."""
    clean, errors = registration.clean, {}
    if email_taken(session, clean["email"]):
        errors["email"] = [TAKEN["email"]]
    if username_taken(session, clean["username"]):
        errors["username"] = [TAKEN["username"]]
    if errors:
        raise invalid(errors)
    return _insert_user(session, password_hash=password_hash, role=Role.CUSTOMER, **clean)


def create_or_promote_admin(session: Session, email: str, password: str) -> tuple[User, bool]:
    """Create an admin, or make an existing user admin and set the password. Returns (user, created).
    A closed account is not (409, ``account_closed``); a new account's email follows the
    registration's rules (:func:`.fields.is_new_email`)."""
    email = normalize_email(email)
    errors: Errors = {}
    if not is_valid_email(email):
        errors["email"] = [INVALID_EMAIL]
    problem = password_problem(password)
    if problem:
        errors["password"] = [problem]
    if errors:
        raise invalid(errors)
    user = session.exec(select(User).where(func.lower(User.email) == email)).first()
    if user is None and not is_new_email(email):
        raise invalid({"email": [INVALID_EMAIL]})
    if user is not None:
        refuse_closed(user)
        user.role = Role.ADMIN.value
        set_password(user, password)
        session.add(user)
        session.flush()
        return user, False
    user = add_user(
        session,
        email=email,
        password=password,
        username=free_username(session, email.split("@")[0]),
        role=Role.ADMIN,
    )
    return user, True


def user_summary(session: Session, user: User) -> dict[str, Any]:
    """The ``/users/me/`` payload: account fields, profile and addresses (never the password hash)."""
    return {
        "id": user.id,
        "email": user.email,
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "phonenumber": account_phone_text(user.phonenumber),
        "date_of_birth": user.date_of_birth.isoformat() if user.date_of_birth else None,
        "gender": user.gender,
        "role": user.role,
        "profile": profile_dict(profile_of(session, user)),
        "addresses": [address_dict(a) for a in addresses_of(session, user)],
    }


def get_user(session: Session, actor: User | None, user_id: str) -> User:
    """A user the actor may see and change: themselves, or anyone for an admin (others: not found)."""
    return owned_or_admin(session, User, user_id, require_user(actor), "User not found.", owner_field="id")


WRONG_CURRENT_PASSWORD = "Enter your current password to set a new one."
CONTACT_NEEDS_PASSWORD = "Enter your current password to change your email or phone number."


@dataclass(frozen=True)
class PreparedChange:
    """The slow parts of an account change, done before the face's write session
    (:func:`prepare_change`): the current password's check, and the new password's hash."""

    checked: PasswordCheck | None = None
    new_password: str | None = None
    new_hash: str | None = None


def _asks_for_current_password(user: User, changes: dict[str, Any]) -> bool:
    if not changes.get("current_password"):
        return False
    if isinstance(changes.get("password"), str) and password_problem(changes["password"]) is None:
        return True
    return any(name in changes and changes[name] != getattr(user, name) for name in ("email", "phonenumber"))


def count_change_check(session: Session, actor: User | None, user_id: str, changes: Any) -> PasswordCheck | None:
    """The first of a change's three steps (see :mod:`..auth.password_checks`): when ``changes``
    needs the current password, count its check in ``session``, which the face commits at once.
    Only for an actor who may change the account (a stranger's guesses would use up the owner's
    checks); anything else is left to :func:`update_user`, which answers it."""
    if not isinstance(changes, dict):
        return None
    try:
        user = get_user(session, actor, user_id)
    except ServiceError:
        return None
    if is_closed(user) or not _asks_for_current_password(user, changes):
        return None
    return count_check(session, user, changes["current_password"])


def prepare_change(pending: PasswordCheck | None, changes: Any) -> PreparedChange:
    """The second step, in no transaction: the counted password's check and the new password's
    hash (two argon2 runs), for :func:`update_user`."""
    checked = run_check(pending)
    password = changes.get("password") if isinstance(changes, dict) else None
    if checked is None or not checked.matches or not isinstance(password, str) or password_problem(password):
        return PreparedChange(checked)
    return PreparedChange(checked, password, hash_password(password))


def _current_password_problem(session: Session, user: User, current: Any, checked: PasswordCheck | None,
                              message: str = WRONG_CURRENT_PASSWORD) -> str | None:
    """A new password, email or phone needs the account's current password (a stolen access
    token must not be enough to take the account over; admins send the owner a reset instead).
    The check is counted, as logins are (:mod:`..auth.password_checks`)."""
    return None if current_password_matches(session, user, current, checked) else message


def _password_errors(session: Session, user: User, changes: dict[str, Any], contacts: tuple[str, ...],
                     errors: Errors, checked: PasswordCheck | None) -> None:
    """The new password's problem, and the current password's when a new password, email or phone needs it."""
    password, current = changes.get("password"), changes.get("current_password")
    done = False
    if password is not None:
        form = password_problem(password)
        if form:
            errors["password"] = [form]
        else:
            problem, done = _current_password_problem(session, user, current, checked), True
            if problem:
                errors["current_password"] = [problem]
    if contacts and not done and "current_password" not in errors:
        problem = _current_password_problem(session, user, current, checked, CONTACT_NEEDS_PASSWORD)
        if problem:
            errors["current_password"] = [problem]


class NameChecksThrottled(throttle.Throttled):
    """Too many new emails or usernames tried by one account (HTTP 429); the count is kept."""

    keeps_writes = True

    def __init__(self, retry_after: int):
        super().__init__("new emails and usernames", retry_after, code=ErrorCode.NAME_CHECKS_THROTTLED)


def _refuse_taken(session: Session, actor: User | None, user: User, clean: dict[str, Any]) -> None:
    """400 when the new email or username (``clean`` holds only changed ones) is another account's.

    That answer tells whether someone has an account, so it is asked last, once the rest of the
    change is valid (a new email's current password included), and an owner's own changes are
    rationed as registrations are (``DD_REGISTER_MAX_ATTEMPTS`` a window, per account; admins see
    every account anyway). The count is written in ``session`` before the answer, and a refusal
    keeps it (``keeps_writes``): nothing else has been written yet.
    """
    names = [name for name in ("email", "username") if name in clean]
    if not names:
        return
    if not is_admin(actor):
        limits = get_settings().security
        count = throttle.hit(session, throttle.NAME_CHECKS, user.id, limits.register_window_seconds)
        if count.over(limits.register_max_attempts):
            raise NameChecksThrottled(count.retry_after())
    taken = {"email": email_taken, "username": username_taken}
    errors: Errors = {name: [TAKEN[name]] for name in names if taken[name](session, clean[name], exclude_id=user.id)}
    if errors:
        refusal = invalid(errors)
        refusal.keeps_writes = True
        raise refusal


def update_user(session: Session, actor: User | None, user_id: str, changes: dict[str, Any],
                prepared: PreparedChange | None = None) -> User:
    """Change account fields of ``user_id`` (the actor themselves, or anyone for an admin).

    Accepts email, phonenumber, username, first_name, last_name, date_of_birth, gender, an
    optional ``profile`` ``{bio, website}`` and an optional new ``password`` with the correct
    ``current_password`` (400 otherwise; it retires every token of the user and tells them). A
    new email or phone needs ``current_password`` too (400, ``current_password_required``) and
    tells the old ones, with a way to undo (:mod:`.contact_change`); the same values sent again
    need nothing. ``role`` and unknown keys are ignored; absent keys stay as they are. A new email
    or username already taken is refused last (:func:`_refuse_taken`); a closed account is not
    changed (409, ``account_closed``). ``prepared``: :func:`prepare_change`'s work, done before
    ``session`` began (without it, the password is checked and hashed here).
    """
    prepared = prepared or PreparedChange()
    user = get_user(session, actor, user_id)
    refuse_closed(user)
    changes = require_mapping(changes)
    errors: Errors = {}
    clean = clean_account(session, changes, fields_to_clean(user, changes), user.id, errors, check_unique=False)
    profile_changes: dict[str, str | None] = {}
    nested = changes.get("profile")
    if isinstance(nested, dict):
        nested = profile_changes_sent(profile_of(session, user), nested)
        profile_changes = clean_profile_changes(nested, errors, prefix="profile.")
    elif nested is not None:
        errors["profile"] = ["Invalid profile: an object is expected."]
    password, contacts = changes.get("password"), changed_contacts(user, clean)
    _password_errors(session, user, changes, contacts, errors, prepared.checked)
    if errors:  # a counted password check outlives the refusal
        raise (refusal_keeps_count(invalid(errors, code=ErrorCode.CURRENT_PASSWORD_REQUIRED))
               if "current_password" in errors else invalid(errors))
    _refuse_taken(session, actor, user, clean)
    before = audit.snapshot(user, ACCOUNT_FIELDS)
    if password is not None:
        # The owner is told, whoever changed it, at the email and phone the account had until now
        # (whoever changes the password may be changing them too).
        password_changed(session, user)
    for name, value in clean.items():
        setattr(user, name, value)
    if password is not None:
        set_password(user, password, prepared.new_hash if prepared.new_password == password else None)
    if contacts:
        tell_old_contacts(session, user, before, contacts)
    if password is not None or contacts:
        retire_password_resets(session, user.id)
    session.add(user)
    if profile_changes:
        profile = profile_of(session, user)
        before.update({f"profile.{name}": getattr(profile, name) for name in profile_changes})
        for name, value in profile_changes.items():
            setattr(profile, name, value)
        session.add(profile)
    flush_account(session)
    if is_admin(actor):  # an admin's change to an account is audited (a customer's own edits are not)
        _audit_change(session, actor, user, before, profile_changes, password is not None)
    return user


def _audit_change(session: Session, actor: User, user: User, before: dict[str, Any],
                  profile_changes: dict[str, str | None], new_password: bool) -> None:
    after = {**audit.snapshot(user, ACCOUNT_FIELDS), **{f"profile.{n}": v for n, v in profile_changes.items()}}
    changes = audit.diff(before, after)
    if new_password:
        changes["password"] = [audit.HIDDEN, "(changed)"]
    if changes:
        audit.record(session, actor, "user.update", "user", user.id, changes=changes, label=user.email)
