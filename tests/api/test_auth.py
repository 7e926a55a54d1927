"""Auth endpoints: token, refresh, verify, logout, throttling and token revocation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, auth_headers, bearer, expired_access_token, login, stale_headers

AUTH_PATHS = ("/api/auth/token/", "/api/auth/token/refresh/", "/api/auth/token/verify/", "/api/auth/logout/")


def _failures(email: str, client: str = "testclient") -> int:
    """The login attempts counted for ``email`` from ``client`` in the current window."""
    with session_scope() as session:
        row = session.get(models.AuthThrottle, ("login", f"{email.lower()}|{client}"))
        return row.hits if row else 0


# --- login ---------------------------------------------------------------------------------------


def test_login_returns_tokens_and_the_user(client, customer):
    response = login(client, customer.email)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access", "refresh", "device", "user"}
    user = body["user"]
    assert user["id"] == customer.id and user["email"] == customer.email and user["role"] == "customer"
    assert set(user["profile"]) == {"id", "bio", "website", "profile_image"}
    assert "password" not in str(user) and "hash" not in str(user)
    me = client.get("/api/users/me/", headers=bearer(body["access"]))
    assert me.status_code == 200 and me.json()["id"] == customer.id


def test_login_email_is_case_insensitive_and_extra_keys_are_ignored(client, customer):
    response = client.post(
        "/api/auth/token/",
        json={"email": f"  {customer.email.upper()} ", "password": PASSWORD, "redirectTo": "/cart"},
    )
    assert response.status_code == 200


@pytest.mark.parametrize("password", ["wrong-password", PASSWORD.upper(), f" {PASSWORD}"])
def test_wrong_password_is_401_invalid_credentials(client, customer, password):
    response = login(client, customer.email, password)
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid credentials"}


def test_unknown_email_and_inactive_user_get_the_same_401(client, make_user):
    inactive = make_user(is_active=False)
    for email in ("nobody@example.com", inactive.email):
        response = login(client, email)
        assert response.status_code == 401
        assert response.json() == {"detail": "Invalid credentials"}


@pytest.mark.parametrize(
    "body",
    [{}, {"email": "a@example.com"}, {"password": "secret123"}, {"email": "  ", "password": "secret123"}],
)
def test_login_without_email_or_password_is_400(client, body):
    response = client.post("/api/auth/token/", json=body)
    assert response.status_code == 400
    assert response.json()["detail"] == "Please fill in all fields"


@pytest.mark.parametrize("path", AUTH_PATHS)
def test_bad_bodies_are_400_not_422(client, path):
    for kwargs in (
        {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
        {"json": ["a", "list"]},
        {"json": "text"},
        {"json": {"email": 5, "password": ["x"], "refresh": 7, "token": {"a": 1}}},
    ):
        response = client.post(path, **kwargs)
        assert response.status_code == 400, (path, kwargs, response.text)
        assert "detail" in response.json()


@pytest.mark.parametrize("path", ("/api/auth/token/refresh/", "/api/auth/token/verify/", "/api/auth/logout/"))
def test_token_bodies_require_their_field(client, path):
    response = client.post(path, json={})
    assert response.status_code == 400
    field = "token" if path.endswith("verify/") else "refresh"
    assert response.json()[field] == ["This field is required."]


def test_every_auth_path_answers_without_trailing_slash(client, customer):
    tokens = login(client, customer.email).json()
    assert client.post("/api/auth/token", json={"email": customer.email, "password": PASSWORD}).status_code == 200
    assert client.post("/api/auth/token/refresh", json={"refresh": tokens["refresh"]}).status_code == 200
    assert client.post("/api/auth/token/verify", json={"token": tokens["access"]}).status_code == 200
    assert client.post("/api/auth/logout", json={"refresh": tokens["refresh"]}).status_code == 200


# --- the stale bearer the existing client always sends ------------------------------------------------


@pytest.mark.parametrize("headers", [stale_headers(), {"Authorization": "Basic abc"}])
def test_auth_endpoints_ignore_a_stale_bearer(client, customer, headers):
    assert login(client, customer.email, headers=headers).status_code == 200
    tokens = login(client, customer.email).json()
    refreshed = client.post("/api/auth/token/refresh/", json={"refresh": tokens["refresh"]}, headers=headers)
    assert refreshed.status_code == 200
    verified = client.post("/api/auth/token/verify/", json={"token": tokens["access"]}, headers=headers)
    assert verified.status_code == 200
    logged_out = client.post("/api/auth/logout/", json={"refresh": tokens["refresh"]}, headers=headers)
    assert logged_out.status_code == 200


def test_auth_endpoints_ignore_an_expired_bearer(client, customer):
    headers = bearer(expired_access_token(customer))
    assert client.get("/api/users/me/", headers=headers).status_code == 401
    tokens = login(client, customer.email, headers=headers).json()
    response = client.post("/api/auth/token/refresh/", json={"refresh": tokens["refresh"]}, headers=headers)
    assert response.status_code == 200


@pytest.mark.parametrize("gap", ["\t", "  ", " \t "])
def test_any_white_space_after_bearer_is_read_the_same_on_every_route(client, customer, gap):
    """"Bearer<TAB>token" was no token: 401 "not provided" on /users/me/ and a guest elsewhere."""
    token = auth_headers(customer)["Authorization"].split(" ", 1)[1]
    headers = {"Authorization": f"Bearer{gap}{token}"}
    assert client.get("/api/users/me/", headers=headers).json()["id"] == customer.id
    assert client.get("/api/favorites/", headers=headers).status_code == 200


# --- refresh and verify ------------------------------------------------------------------------------


def test_refresh_gives_a_working_access_token_and_stays_valid(client, customer):
    """The existing client ignores the rotated refresh token and keeps sending its first one."""
    refresh = login(client, customer.email).json()["refresh"]
    answers = [client.post("/api/auth/token/refresh/", json={"refresh": refresh}) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert set(answers[0].json()) == {"access", "refresh"}
    assert len({a.json()["access"] for a in answers}) == 3
    assert len({a.json()["refresh"] for a in answers} | {refresh}) == 4
    assert client.get("/api/users/me/", headers=bearer(answers[-1].json()["access"])).status_code == 200


def test_refresh_refuses_an_access_token_and_garbage(client, customer):
    access = login(client, customer.email).json()["access"]
    for token in (access, "garbage", ""):
        response = client.post("/api/auth/token/refresh/", json={"refresh": token})
        assert response.status_code == 401
        assert response.json() == {"detail": "Token is invalid or expired"}


def test_access_token_is_refused_for_a_deleted_user(client, customer):
    access = login(client, customer.email).json()["access"]
    with session_scope() as session:
        session.delete(session.get(models.User, customer.id))
    assert client.get("/api/users/me/", headers=bearer(access)).status_code == 401


def test_verify_answers_success_only(client, customer):
    tokens = login(client, customer.email).json()
    for token in (tokens["access"], tokens["refresh"]):
        response = client.post("/api/auth/token/verify/", json={"token": token})
        assert response.status_code == 200
        assert response.json() == {"success": True}  # SPEC §7: a success boolean only
    for token in ("garbage", expired_access_token(customer)):
        response = client.post("/api/auth/token/verify/", json={"token": token})
        assert response.status_code == 401
        assert response.json()["success"] is False


# --- logout and password change ----------------------------------------------------------------------


def test_logout_revokes_that_refresh_token_only(client, customer):
    kept = login(client, customer.email).json()["refresh"]
    revoked = login(client, customer.email).json()["refresh"]
    response = client.post("/api/auth/logout/", json={"refresh": revoked})
    assert response.status_code == 200
    assert response.json() == {"detail": "Logged out"}
    refused = client.post("/api/auth/token/refresh/", json={"refresh": revoked})
    assert refused.status_code == 401
    assert client.post("/api/auth/token/verify/", json={"token": revoked}).status_code == 401
    assert client.post("/api/auth/token/refresh/", json={"refresh": kept}).status_code == 200
    again = client.post("/api/auth/logout/", json={"refresh": revoked})
    assert again.status_code == 401
    with session_scope() as session:
        families = session.exec(select(models.RefreshFamily)).all()
        assert [f.revoked_at is not None for f in families].count(True) == 1


def test_password_change_revokes_every_refresh_token(client, customer):
    tokens = [login(client, customer.email).json() for _ in range(2)]
    response = client.patch(
        f"/api/users/users/{customer.id}/", json={"password": "brand-new-pass", "current_password": "secret123"},
        headers=bearer(tokens[0]["access"]),
    )
    assert response.status_code == 200
    for pair in tokens:
        refused = client.post("/api/auth/token/refresh/", json={"refresh": pair["refresh"]})
        assert refused.status_code == 401
    assert login(client, customer.email).status_code == 401
    fresh = login(client, customer.email, "brand-new-pass")
    assert fresh.status_code == 200
    assert client.post("/api/auth/token/refresh/", json={"refresh": fresh.json()["refresh"]}).status_code == 200


def test_password_change_needs_six_characters_and_keeps_tokens_when_refused(client, customer):
    tokens = login(client, customer.email).json()
    response = client.patch(
        f"/api/users/users/{customer.id}/", json={"password": "12345"}, headers=bearer(tokens["access"])
    )
    assert response.status_code == 400
    assert response.json()["password"] == ["Password must be at least 6 characters"]
    assert client.post("/api/auth/token/refresh/", json={"refresh": tokens["refresh"]}).status_code == 200


# --- throttling --------------------------------------------------------------------------------------


def test_sixth_attempt_is_throttled_even_with_the_right_password(client, customer):
    for attempt in range(5):
        response = login(client, customer.email, "wrong")
        assert response.status_code == 401, attempt
    assert _failures(customer.email) == 5
    blocked = login(client, customer.email)
    assert blocked.status_code == 429
    retry_after = int(blocked.headers["Retry-After"])
    assert 14 * 60 < retry_after <= 15 * 60
    too_many = "Too many failed login attempts. Please try again in 15 minutes."
    assert blocked.json() == {"detail": too_many, "message": too_many}  # the original client shows message
    # Refused attempts are counted too (a burst keeps the block), but no password is checked.
    assert login(client, customer.email, "wrong").status_code == 429
    assert _failures(customer.email) == 7


def test_throttle_is_per_email_and_client_address(client, api_app, make_user):
    victim, other = make_user(), make_user()
    for _ in range(5):
        login(client, victim.email.upper(), "wrong")
    assert login(client, victim.email).status_code == 429
    assert login(client, other.email).status_code == 200
    with TestClient(api_app, client=("10.0.0.9", 4000)) as elsewhere:
        assert login(elsewhere, victim.email).status_code == 200


def test_success_resets_the_failure_count(client, customer):
    for _ in range(4):
        login(client, customer.email, "wrong")
    assert login(client, customer.email).status_code == 200
    assert _failures(customer.email) == 0
    for attempt in range(5):
        assert login(client, customer.email, "wrong").status_code == 401, attempt
    assert login(client, customer.email).status_code == 429


def _start_window(email: str, minutes_ago: float, hits: int) -> None:
    with session_scope() as session:
        session.add(
            models.AuthThrottle(
                scope="login",
                key=f"{email}|testclient",
                window_start=(datetime.now(UTC) - timedelta(minutes=minutes_ago)).timestamp(),
                hits=hits,
            )
        )


def test_throttle_lifts_when_the_window_passes(client, customer):
    # Five attempts in a window that opened 14 minutes ago: blocked for about one more minute.
    _start_window(customer.email, 14, 5)
    blocked = login(client, customer.email)
    assert blocked.status_code == 429
    assert 1 <= int(blocked.headers["Retry-After"]) <= 60
    assert blocked.json()["detail"] == "Too many failed login attempts. Please try again in 1 minute."


def test_an_expired_window_starts_over(client, customer):
    _start_window(customer.email, 16, 40)
    assert login(client, customer.email, "wrong").status_code == 401
    assert _failures(customer.email) == 1
    assert login(client, customer.email).status_code == 200


def test_attempts_are_counted_in_the_database(client, customer):
    login(client, customer.email, "wrong")
    with session_scope() as session:
        row = session.exec(select(models.AuthThrottle).where(models.AuthThrottle.scope == "login")).one()
        per_account = session.exec(select(models.AuthThrottle).where(models.AuthThrottle.scope == "login_account")).one()
    assert (row.scope, row.key, row.hits) == ("login", f"{customer.email}|testclient", 1)
    assert (per_account.key, per_account.hits) == (customer.email, 1)
