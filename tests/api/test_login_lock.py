"""Issue 32 item 1 over HTTP: correct logins never lock an account, and during a lock caused by
guesses the owner's device (its device token, or the stale bearer the original client still
sends) gets in while any other caller waits."""

from __future__ import annotations

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, bearer, login


@pytest.fixture
def behind_a_proxy(use_settings):
    """Guesses come from many addresses (X-Forwarded-For, one trusted proxy)."""
    use_settings(DD_TRUSTED_PROXY_HOPS="1")


def _guess_from_everywhere(client, email: str, times: int = 11) -> list[int]:
    return [
        client.post("/api/auth/token/", json={"email": email, "password": "wrong"},
                    headers={"X-Forwarded-For": f"10.0.0.{n}"}).status_code
        for n in range(times)
    ]


def test_eleven_correct_logins_all_succeed_and_nobody_is_told_of_a_lock(client, customer):
    statuses = [login(client, customer.email).status_code for _ in range(12)]
    assert statuses == [200] * 12
    with session_scope() as session:
        assert session.exec(select(models.AuthThrottle)).all() == []
        assert session.exec(select(models.OutboxMessage).where(models.OutboxMessage.kind == "account_locked")).all() == []


def test_the_owners_device_gets_in_during_a_lock_and_the_guesser_does_not(client, customer, behind_a_proxy):
    first = login(client, customer.email).json()
    assert isinstance(first["device"], str) and first["device"]
    assert _guess_from_everywhere(client, customer.email)[-1] == 429
    # A caller without the device: refused before any password check, even with the right one.
    assert login(client, customer.email, headers={"X-Forwarded-For": "10.9.9.9"}).status_code == 429
    # The owner's browser sends the device token it was given.
    body = {"email": customer.email, "password": PASSWORD, "device": first["device"]}
    let_in = client.post("/api/auth/token/", json=body, headers={"X-Forwarded-For": "10.9.9.9"})
    assert let_in.status_code == 200 and let_in.json()["user"]["id"] == customer.id
    # The original client sends its last bearer with every request, the login included.
    stale = login(client, customer.email, headers={**bearer(first["access"]), "X-Forwarded-For": "10.9.9.9"})
    assert stale.status_code == 200
    # The guesser is still locked out.
    assert _guess_from_everywhere(client, customer.email, 1) == [429]


def test_the_original_client_is_told_why_a_login_is_locked(client, customer, behind_a_proxy):
    """The original client shows ``data.message``, else "Invalid credentials": a locked account's
    owner typing the right password was told it was wrong. A lock now carries its reason as
    ``message`` too; a wrong password keeps its one-key body."""
    wrong = client.post("/api/auth/token/", json={"email": customer.email, "password": "wrong"})
    assert (wrong.status_code, wrong.json()) == (401, {"detail": "Invalid credentials"})
    _guess_from_everywhere(client, customer.email)
    locked = login(client, customer.email, headers={"X-Forwarded-For": "10.9.9.9"})
    assert locked.status_code == 429 and locked.headers["Retry-After"]
    assert locked.json()["message"] == locked.json()["detail"]
    assert locked.json()["message"].startswith("Too many failed login attempts.")
