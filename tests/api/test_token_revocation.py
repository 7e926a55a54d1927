"""Issue 13 item 7: access tokens die with a password change or "log out everywhere", and
refresh tokens rotate without breaking the existing client (which ignores rotated tokens)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.config.settings import get_settings

from ..builders.accounts import bearer, login


def _refresh(client, token: str):
    return client.post("/api/auth/token/refresh/", json={"refresh": token})


def _claims(token: str) -> dict:
    return jwt.decode(token, get_settings().secret_key, algorithms=["HS256"])


def test_password_change_revokes_access_tokens_at_once(client, customer):
    mine, other_device = login(client, customer.email).json(), login(client, customer.email).json()
    changed = client.patch(
        f"/api/users/users/{customer.id}/", json={"password": "brand-new-pass", "current_password": "secret123"},
        headers=bearer(mine["access"]),
    )
    assert changed.status_code == 200
    for pair in (mine, other_device):
        assert client.get("/api/users/me/", headers=bearer(pair["access"])).status_code == 401
        assert _refresh(client, pair["refresh"]).status_code == 401
    fresh = login(client, customer.email, "brand-new-pass").json()
    assert client.get("/api/users/me/", headers=bearer(fresh["access"])).status_code == 200


def test_log_out_everywhere_revokes_every_token_of_the_caller_only(client, customer, make_user):
    sessions = [login(client, customer.email).json() for _ in range(2)]
    bystander = make_user()
    theirs = login(client, bystander.email).json()
    answer = client.post("/api/auth/logout-all/", headers=bearer(sessions[0]["access"]))
    assert answer.status_code == 200
    assert answer.json() == {"detail": "Logged out everywhere"}
    for pair in sessions:
        assert client.get("/api/users/me/", headers=bearer(pair["access"])).status_code == 401
        assert _refresh(client, pair["refresh"]).status_code == 401
        assert client.post("/api/auth/token/verify/", json={"token": pair["access"]}).status_code == 401
    with session_scope() as session:
        assert session.get(models.User, customer.id).token_version == 1
        assert session.exec(select(models.RefreshFamily).where(models.RefreshFamily.user_id == customer.id)).all() == []
    assert client.get("/api/users/me/", headers=bearer(theirs["access"])).status_code == 200
    assert client.post("/api/auth/logout-all/").status_code == 401
    assert client.get("/api/users/me/", headers=bearer(login(client, customer.email).json()["access"])).status_code == 200


def test_a_token_without_the_current_version_is_refused(client, customer):
    access = login(client, customer.email).json()["access"]
    with session_scope() as session:
        user = session.get(models.User, customer.id)
        user.token_version += 1
        session.add(user)
    assert client.get("/api/users/me/", headers=bearer(access)).status_code == 401


def test_rotation_retires_older_tokens_once_a_newer_one_is_used(client, customer):
    first = login(client, customer.email).json()["refresh"]
    second = _refresh(client, first).json()["refresh"]
    assert (_claims(second)["fam"], _claims(second)["gen"]) == (_claims(first)["fam"], 1)
    # Until the newer token is used, the first one keeps working (the existing client's case).
    assert _refresh(client, first).status_code == 200
    third = _refresh(client, second).json()["refresh"]
    # Within the short leeway the retired token still works (two tabs racing) ...
    assert _refresh(client, first).status_code == 200
    with session_scope() as session:
        family = session.get(models.RefreshFamily, _claims(first)["fam"])
        assert family.floor == 1 and family.revoked_at is None
        family.floor_raised_at = datetime.now(UTC) - timedelta(minutes=5)
        session.add(family)
    # ... after it, presenting it means someone else holds the family: all of it is revoked.
    assert _refresh(client, first).status_code == 401
    assert _refresh(client, third).status_code == 401
    with session_scope() as session:
        assert session.get(models.RefreshFamily, _claims(first)["fam"]).revoked_at is not None


def test_a_token_retired_long_ago_stays_retired_when_the_owner_refreshes_again(client, customer):
    """The leeway was measured from the family's latest rotation, whatever rotation had retired
    the token: one retired an hour before worked again within 30 s of each of the owner's
    refreshes (a probe), so a thief keeping pace was never caught."""
    first = login(client, customer.email).json()["refresh"]
    second = _refresh(client, first).json()["refresh"]
    third = _refresh(client, second).json()["refresh"]  # the second used: the first is retired
    with session_scope() as session:  # an hour passes
        family = session.get(models.RefreshFamily, _claims(first)["fam"])
        family.floor_raised_at = datetime.now(UTC) - timedelta(hours=1)
        session.add(family)
    assert _refresh(client, third).status_code == 200  # the owner refreshes: the second retires now
    assert _refresh(client, second).status_code == 200  # ... within the leeway (tabs racing)
    assert _refresh(client, first).status_code == 401  # retired an hour ago: someone else holds it
    with session_scope() as session:
        assert session.get(models.RefreshFamily, _claims(first)["fam"]).revoked_at is not None


def test_logout_revokes_the_rotated_tokens_of_the_family_too(client, customer):
    first = login(client, customer.email).json()["refresh"]
    second = _refresh(client, first).json()["refresh"]
    assert client.post("/api/auth/logout/", json={"refresh": first}).status_code == 200
    assert _refresh(client, second).status_code == 401
    assert client.post("/api/auth/token/verify/", json={"token": second}).status_code == 401


def test_a_refresh_token_from_before_families_still_works_and_can_be_revoked(client, customer):
    """Tokens issued before this change carry no family: they form one of their own."""
    now = datetime.now(UTC)
    legacy = jwt.encode(
        {"sub": customer.id, "type": "refresh", "jti": "a" * 32, "iat": now, "exp": now + timedelta(days=1), "ver": 0},
        get_settings().secret_key,
        algorithm="HS256",
    )
    assert _refresh(client, legacy).status_code == 200
    assert client.post("/api/auth/logout/", json={"refresh": legacy}).status_code == 200
    assert _refresh(client, legacy).status_code == 401
