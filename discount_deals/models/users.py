"""Accounts: users, their profile and addresses, and the auth bookkeeping tables."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Column, ForeignKey, Index, String, text
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, updated_field, utcnow


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


def _user_fk(*, unique: bool = False, index: bool = True) -> str:
    return Field(
        sa_column=Column(
            String(36),
            ForeignKey("user.id", ondelete="CASCADE"),
            nullable=False,
            unique=unique,
            index=index and not unique,
        )
    )


class User(SQLModel, table=True):
    id: str = id_field()
    email: str = Field(max_length=254, unique=True, index=True)
    username: str = Field(max_length=150, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    first_name: str = Field(default="", max_length=150)
    last_name: str = Field(default="", max_length=150)
    phonenumber: str = Field(default="", max_length=32)
    date_of_birth: date | None = Field(default=None)
    gender: str = Field(default="", max_length=16)
    role: str = Field(default=Role.CUSTOMER.value, max_length=16, index=True)
    is_active: bool = Field(default=True)
    # Bumped when the password changes: refresh tokens carry it and older ones stop working.
    token_version: int = Field(default=0)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class Profile(SQLModel, table=True):
    id: str = id_field()
    user_id: str = _user_fk(unique=True)
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
    user_id: str = _user_fk()
    line1: str = Field(max_length=255)
    line2: str = Field(default="", max_length=255)
    city: str = Field(max_length=120)
    state: str = Field(default="", max_length=120)
    postal_code: str = Field(default="", max_length=32)
    country: str = Field(max_length=120)
    is_default: bool = Field(default=False)
    created_at: datetime = created_field()
    updated_at: datetime = updated_field()


class RevokedToken(SQLModel, table=True):
    """A refresh token revoked by logout, kept until it would have expired anyway."""

    __tablename__ = "revoked_token"

    jti: str = Field(primary_key=True, max_length=64)
    user_id: str = _user_fk()
    expires_at: datetime = Field(index=True)
    revoked_at: datetime = Field(default_factory=utcnow)


class LoginAttempt(SQLModel, table=True):
    """A failed login, counted per email and client address for throttling."""

    __tablename__ = "login_attempt"
    __table_args__ = (Index("ix_login_attempt_key", "email", "client", "attempted_at"),)

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254)
    client: str = Field(max_length=64)
    attempted_at: datetime = Field(default_factory=utcnow)
