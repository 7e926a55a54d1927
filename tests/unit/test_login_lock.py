"""Issue 32 item 1: only failed logins count, and a lock keeps the guesser out but not the owner's
device (services.auth.login; real database, no mocks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import NotAuthenticated, auth
from discount_deals.services.auth import login
from discount_deals.config.settings import get_settings


def _login(email: str, password: str = "secret123", client: str = "1.2.3.4", proofs=()):
    with session_scope() as session:
        return login.login(session, email, password, client, proofs=proofs)


def _lock(email: str) -> None:
    """Eleven wrong guesses from eleven addresses: the account's limit (10) is passed."""
    for n in range(10):
        with pytest.raises(NotAuthenticated):
            _login(email, "wrong-guess", f"10.0.0.{n}")
    with pytest.raises(login.LoginThrottled):
        _login(email, "wrong-guess", "10.0.0.10")


def _outbox(kind: str) -> list[models.OutboxMessage]:
    with session_scope() as session:
        return list(session.exec(select(models.OutboxMessage).where(models.OutboxMessage.kind == kind)).all())


def test_correct_logins_are_not_counted(customer):
    for _ in range(12):
        user, _pair = _login(customer.email)
        assert user.id == customer.id
    with session_scope() as session:
        assert session.exec(select(models.AuthThrottle)).all() == []
    assert _outbox("account_locked") == []


def test_a_success_starts_the_count_over_for_the_account_too(customer):
    for n in range(9):
        with pytest.raises(NotAuthenticated):
            _login(customer.email, "wrong", f"10.1.0.{n}")
    _login(customer.email, client="10.1.1.1")
    for n in range(10):
        with pytest.raises(NotAuthenticated):
            _login(customer.email, "wrong", f"10.2.0.{n}")


def test_a_lock_refuses_an_unknown_device_but_lets_in_the_owners_device(customer):
    _user, pair = _login(customer.email)
    assert pair.device
    _lock(customer.email)
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, client="5.6.7.8")
    assert len(_outbox("account_locked")) == 1
    user, again = _login(customer.email, client="5.6.7.8", proofs=[pair.device])
    assert user.id == customer.id
    # The device keeps its name: the next login's device token is the same device.
    assert _claims(again.device)["dev"] == _claims(pair.device)["dev"]
    # The lock stays for everyone else.
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, client="5.6.7.8")


def test_a_stale_token_of_the_account_is_a_device_too(customer):
    _user, pair = _login(customer.email)
    _lock(customer.email)
    expired = _expired(pair.access)
    user, _pair = _login(customer.email, proofs=["junk", expired])
    assert user.id == customer.id
    _login(customer.email, proofs=[pair.refresh])


def test_a_device_gets_only_the_per_client_number_of_wrong_passwords(customer):
    _user, pair = _login(customer.email)
    _lock(customer.email)
    for _ in range(5):
        with pytest.raises(NotAuthenticated) as caught:
            _login(customer.email, "wrong", proofs=[pair.device])
        assert not isinstance(caught.value, login.LoginThrottled)
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, proofs=[pair.device])


def test_tokens_of_another_account_or_from_before_log_out_everywhere_are_no_device(customer, make_user):
    other = make_user()
    _user, theirs = _login(other.email)
    _user, mine = _login(customer.email)
    _lock(customer.email)
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, proofs=[theirs.device, theirs.access])
    with session_scope() as session:
        auth.log_out_everywhere(session, session.get(models.User, customer.id))
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, proofs=[mine.device])


def test_a_device_token_older_than_its_lifetime_is_no_device(customer):
    _user, pair = _login(customer.email)
    _lock(customer.email)
    claims = _claims(pair.device)
    old = datetime.now(UTC) - timedelta(seconds=login.DEVICE_SECONDS + 60)
    stale = jwt.encode({**claims, "iat": old, "exp": old + timedelta(seconds=login.DEVICE_SECONDS)},
                       get_settings().secret_key, algorithm="HS256")
    with pytest.raises(login.LoginThrottled):
        _login(customer.email, proofs=[stale])


def _claims(token: str) -> dict:
    return jwt.decode(token, get_settings().secret_key, algorithms=["HS256"], options={"verify_exp": False})


def _expired(token: str) -> str:
    claims = _claims(token)
    past = datetime.now(UTC) - timedelta(days=2)
    return jwt.encode({**claims, "iat": past, "exp": past + timedelta(minutes=15)},
                      get_settings().secret_key, algorithm="HS256")
