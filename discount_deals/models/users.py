"""Accounts: users, their profile and addresses, and the auth bookkeeping tables (refresh-token
families, throttles, password resets, idempotent requests)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Column, Index, Text, UniqueConstraint, func, text
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, parent_field, updated_field, utcnow


class Role(StrEnum):
    ADMIN = "admin"
    SELLER = "seller"
    MANAGER = "manager"
    CUSTOMER = "customer"
    USER = "user"


class Gender(StrEnum):
    MALE = "male"
    FEMALE = "female"
    OTHER = "other"


class User(SQLModel, table=True):
    id: str = id_field()
    email: str = Field(max_length=254, unique=True, index=True)
    username: str = Field(max_length=150, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    first_name: str = Field(default="", max_length=150)
    last_name: str = Field(default="", max_length=150)
    # E.164 (+233241234567), parsed once when written (services/phones.py); indexed for the reset by SMS.
    phonenumber: str = Field(default="", max_length=32, index=True)
    date_of_birth: date | None = Field(default=None)
    gender: str = Field(default="", max_length=16)
    role: str = Field(default=Role.CUSTOMER.value, max_length=16, index=True)
    is_active: bool = Field(default=True)
    # Bumped when the password changes: refresh tokens carry it and older ones stop working.
    token_version: int = Field(default=0)
    # Bumped by every change of email or phone and by its undo: an undo link names the one it
    # follows, so it works once (services/users/contact_change.py).
    contact_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()



# A username is one in any case ("Kofi", "kofi"), for the database too (migration 36u): on
# PostgreSQL lower() folds every letter; SQLite's folds ASCII only, and its one writer at a time
# lets services/users/fields.username_taken check the rest.
Index("ix_user_username_lower", func.lower(User.__table__.c.username), unique=True)

class Profile(SQLModel, table=True):
    id: str = id_field()
    user_id: str = parent_field("user", index=False, unique=True)
    bio: str | None = Field(default=None)
    website: str | None = Field(default=None, max_length=500)
    profile_image: str | None = Field(default=None, max_length=500)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class Address(SQLModel, table=True):
    __table_args__ = (
        # At most one default address per user, enforced by the database too.
        Index(
            "uq_address_one_default_per_user",
            "user_id",
            unique=True,
            sqlite_where=text("is_default = 1"),
            postgresql_where=text("is_default"),
        ),
    )

    id: str = id_field()
    user_id: str = parent_field("user")
    line1: str = Field(max_length=255)
    line2: str = Field(default="", max_length=255)
    city: str = Field(max_length=120)
    state: str = Field(default="", max_length=120)
    postal_code: str = Field(default="", max_length=32)
    country: str = Field(max_length=120)
    is_default: bool = Field(default=False)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class RefreshFamily(SQLModel, table=True):
    """The refresh tokens that descend from one login, rotated on every refresh.

    Tokens carry the family id (``fam``) and their generation (``gen``). Generations from
    ``floor`` up are accepted; a refresh with generation ``g`` issues generation
    ``latest + 1`` and raises ``floor`` to ``g``. A token older than ``floor`` is a reuse of a
    retired token (after a short leeway for the tokens the latest rise retired, for tabs racing):
    the whole family is revoked. Logging out revokes the family.
    """

    __tablename__ = "refresh_family"

    id: str = Field(primary_key=True, max_length=64)
    user_id: str = parent_field("user")
    floor: int = Field(default=0)
    # When ``floor`` last rose: a token that rise retired is still accepted for a short leeway after.
    floor_raised_at: datetime | None = Field(default=None)
    # Where ``floor`` was before its last rise: the tokens below it were retired earlier, no leeway.
    previous_floor: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    latest: int = Field(default=0)
    revoked_at: datetime | None = Field(default=None)
    expires_at: datetime = Field(index=True)
    created_at: datetime = created_field()


class AuthThrottle(SQLModel, table=True):
    """Attempts counted per key in a fixed window (login: email and client; register: client).

    One row per key, bumped by a single atomic upsert (see ``services.throttle``) so that a
    burst cannot be counted after the fact. ``window_start`` is a Unix time in seconds.
    """

    __tablename__ = "auth_throttle"

    scope: str = Field(primary_key=True, max_length=16)
    key: str = Field(primary_key=True, max_length=320)
    window_start: float = Field(index=True)
    hits: int = Field(default=0)


class IdempotentRequest(SQLModel, table=True):
    """The first answer to a request sent with an ``Idempotency-Key`` (bulk uploads), replayed
    to retries of the same request by the same user."""

    __tablename__ = "idempotent_request"
    __table_args__ = (UniqueConstraint("user_id", "scope", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = parent_field("user", index=False)
    scope: str = Field(max_length=64)
    key: str = Field(max_length=255)
    fingerprint: str = Field(max_length=64)
    status_code: int
    body: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, nullable=False, index=True)


class PasswordReset(SQLModel, table=True):
    """A password reset asked for: a link (its token's hash) by email or a 6-digit code by SMS."""

    __tablename__ = "password_reset"

    id: str = id_field()
    user_id: str = parent_field("user")
    channel: str = Field(max_length=8)
    # SHA-256 of the link's token (email) or of the code with the reset's id (SMS).
    secret_hash: str = Field(max_length=64, index=True)
    expires_at: datetime = Field(nullable=False)
    attempts: int = Field(default=0)
    used_at: datetime | None = Field(default=None)
    created_at: datetime = created_field()
