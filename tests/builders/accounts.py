"""Account builders: users, registration payloads, real images made
with Pillow, tokens and the headers that carry them."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from PIL import Image
from sqlmodel import select

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.db import session_scope
from discount_deals.services.auth.tokens import create_access_token
from discount_deals.services.users import add_user

from . import unique_number

PASSWORD = "secret123"  # make_user's (it skips the rules); not for registering: it is a common password
REGISTER_PASSWORD = "akwaaba-deals-7"  # what registration() registers with (issue 32: not a common one)


def new_user(role: str = "customer", password: str = PASSWORD, **fields: Any) -> models.User:
    """A user (customer by default) with a unique e-mail and username; extra fields allowed."""
    n = unique_number()
    fields.setdefault("email", f"user{n}@example.com")
    fields.setdefault("username", f"user{n}")
    fields.setdefault("first_name", f"First{n}")
    fields.setdefault("last_name", f"Last{n}")
    with session_scope() as session:
        return add_user(session, password=password, role=models.Role(role), **fields)


def auth_headers(user: models.User) -> dict[str, str]:
    """The headers of a request signed in as ``user`` (a fresh access token)."""
    return bearer(create_access_token(user))


def registration(**overrides: Any) -> dict[str, Any]:
    """The payload the existing client's register form sends, with valid values."""
    payload = {
        "first_name": "Ama",
        "last_name": "Mensah",
        "username": "ama",
        "phonenumber": "+233241234567",
        "email": "ama@example.com",
        "password": REGISTER_PASSWORD,
        "date_of_birth": "1995-04-12",
        "gender": "female",
        "role": "customer",
        "metadata": {},
    }
    payload.update(overrides)
    return payload


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (64, 48), colour=(200, 30, 40), **save: Any) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format=fmt, **save)
    return out.getvalue()


def login(client, email: str, password: str = PASSWORD, **kwargs: Any):
    return client.post("/api/auth/token/", json={"email": email, "password": password}, **kwargs)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def expired_access_token(user: models.User) -> str:
    """A correctly signed access token whose lifetime is over."""
    past = datetime.now(UTC) - timedelta(hours=1)
    claims = {"sub": user.id, "type": "access", "jti": "x" * 32, "iat": past, "exp": past + timedelta(minutes=15)}
    return jwt.encode(claims, get_settings().secret_key, algorithm="HS256")


def stale_headers() -> dict[str, str]:
    """What the client sends after its access token expired or was forged."""
    return bearer("not.a.valid-token")


def profile_id_of(user: models.User) -> str:
    with session_scope() as session:
        return session.exec(select(models.Profile.id).where(models.Profile.user_id == user.id)).one()


def reload_user(user_id: str) -> models.User:
    with session_scope() as session:
        return session.get(models.User, user_id)
