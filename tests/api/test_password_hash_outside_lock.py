"""Logins, registrations, password changes and closings hash (argon2, ~20 ms of CPU each) with no
write transaction open and, in the API, without the worker's write turn (api.admission).

SQLite has one writer: the hashes ran inside the request's write transaction, or held the turn
every writing request of the worker queues for, so every cart and checkout waited for them
(bench/password_lock.py). Each argon2 call here is watched: at that moment another connection
must be able to take the write lock at once, and the turn must be free.
"""

from __future__ import annotations

import sqlite3

import anyio.from_thread
import argon2.low_level
import pytest
from sqlalchemy import text
from sqlmodel import select

from discount_deals import models
from discount_deals.api import admission
from discount_deals.db import get_engine, session_scope

from ..builders.accounts import PASSWORD, auth_headers, login, registration

NEW_PASSWORD = "Brand-New-4567"


def _checks_counted(user) -> int:
    with session_scope() as session:
        row = session.exec(select(models.AuthThrottle).where(models.AuthThrottle.scope == "password_checks",
                                                             models.AuthThrottle.key == user.id)).first()
        return row.hits if row else 0


@pytest.fixture
def hashes_saw(monkeypatch):
    """For each argon2 hash or verify the shop runs: whether the database could be written then
    (SQLite: another connection takes the write lock at once; PostgreSQL: no other transaction
    open) with the API's write turn free."""
    engine = get_engine()
    seen: list[bool] = []

    def writable() -> bool:
        if engine.dialect.name == "postgresql":  # no transaction of the shop's open but this probe's
            with engine.connect() as probe:
                return not probe.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()")).scalar_one()
        probe = sqlite3.connect(engine.url.database, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError:  # "database is locked": a write transaction is open
            return False
        finally:
            probe.close()

    def turn_free() -> bool:
        try:
            return not anyio.from_thread.run_sync(lambda: admission._current_queue().lock.locked())
        except RuntimeError:  # not a request's worker thread (a Reflex face, called directly)
            return True

    def watched(real):
        def call(*args, **kwargs):
            seen.append(writable() and turn_free())
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(argon2.low_level, "hash_secret", watched(argon2.low_level.hash_secret))
    monkeypatch.setattr(argon2.low_level, "verify_secret", watched(argon2.low_level.verify_secret))
    return seen


def test_a_password_change_hashes_with_no_write_lock_held(client, customer, hashes_saw):
    answer = client.patch(f"/api/users/users/{customer.id}/", headers=auth_headers(customer),
                          json={"password": NEW_PASSWORD, "current_password": PASSWORD})
    assert answer.status_code == 200, answer.text
    assert hashes_saw == [True, True]  # the current password's check, the new password's hash
    hashes_saw.clear()
    assert login(client, customer.email, NEW_PASSWORD).status_code == 200  # the new hash was stored


def test_a_wrong_current_password_is_checked_with_no_write_lock_held_and_counted(client, customer, hashes_saw):
    answer = client.patch(f"/api/users/users/{customer.id}/", headers=auth_headers(customer),
                          json={"password": NEW_PASSWORD, "current_password": "not-it"})
    assert answer.status_code == 400 and "current_password" in answer.json()
    assert hashes_saw == [True]  # no new hash for a refused change
    assert _checks_counted(customer) == 1  # the refusal kept its count


def test_closing_an_account_checks_its_password_with_no_write_lock_held(client, customer, hashes_saw):
    answer = client.post("/api/users/me/close/", json={"password": PASSWORD}, headers=auth_headers(customer))
    assert answer.status_code == 204, answer.text
    assert hashes_saw == [True]
    with session_scope() as session:
        assert not session.get(models.User, customer.id).email.startswith(customer.email)


def test_a_strangers_guesses_use_up_none_of_the_owners_checks(client, customer, make_user, hashes_saw):
    stranger = make_user()
    hashes_saw.clear()  # the stranger's own registration
    answer = client.patch(f"/api/users/users/{customer.id}/", headers=auth_headers(stranger),
                          json={"password": NEW_PASSWORD, "current_password": "guess"})
    assert answer.status_code == 404
    assert hashes_saw == []
    assert _checks_counted(customer) == 0


def test_the_profile_pages_faces_check_with_no_write_lock_held(client, customer, make_user, hashes_saw):
    """The Reflex faces: the profile's save (a new email needs the current password) and "Your data"'s closing."""
    from discount_deals.state.account.privacy import _close
    from discount_deals.state.account.profile import _save

    _save(customer, {"email": "ama.moved@example.com", "current_password": PASSWORD})
    assert hashes_saw == [True]
    other = make_user()
    hashes_saw.clear()
    _close(other, PASSWORD)
    assert hashes_saw == [True]
    with session_scope() as session:
        assert session.get(models.User, customer.id).email == "ama.moved@example.com"
        assert session.get(models.User, other.id).email.startswith("deleted-")


def test_a_login_and_a_registration_hash_with_no_write_lock_or_turn_held(client, customer, hashes_saw):
    answer = login(client, customer.email, PASSWORD)
    assert answer.status_code == 200, answer.text
    assert hashes_saw == [True]
    hashes_saw.clear()
    payload = registration(email="kofi.new@example.com", username="kofinew")
    answer = client.post("/api/users/register/", json=payload)
    assert answer.status_code == 201, answer.text
    assert hashes_saw == [True]
    hashes_saw.clear()
    assert login(client, "kofi.new@example.com", payload["password"]).status_code == 200  # its hash was stored


def test_a_reset_confirmation_hashes_with_no_write_lock_or_turn_held(client, hashes_saw):
    """Anyone may post one, with any token: each hash held every writer of the worker back."""
    answer = client.post("/api/auth/password-reset/confirm/", json={"token": "made-up", "password": NEW_PASSWORD})
    assert answer.status_code == 400, answer.text
    assert hashes_saw == [True]
