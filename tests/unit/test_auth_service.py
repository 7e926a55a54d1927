"""services.auth: hashing, tokens, login with throttling, revocation (real database, no mocks)."""

from __future__ import annotations

import jwt
import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import NotAuthenticated, ValidationFailed
from discount_deals.services import auth
from discount_deals.services.auth import login
from discount_deals.config.settings import get_settings


def test_passwords_are_hashed_with_argon2id_at_owasp_parameters(use_settings):
    use_settings(DD_PASSWORD_HASHING=None)  # the default (the test suites hash fast)
    hashed = auth.hash_password("secret123")
    assert hashed.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert auth.hash_password("secret123") != hashed  # salted
    assert auth.verify_password("secret123", hashed)
    assert not auth.verify_password("secret124", hashed)
    assert not auth.verify_password("secret123", None)
    assert not auth.verify_password("secret123", "not-a-hash")
    assert not auth.password_needs_rehash(hashed)


def test_a_fast_hash_is_made_owasp_at_the_next_login(use_settings, make_user):
    """The test suites' cheap hashes (1 MiB, t=1) still verify, and a login under the default
    replaces them, as it would any outdated hash."""
    use_settings(DD_PASSWORD_HASHING="fast")
    user = make_user(password="secret123")
    assert user.password_hash.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert not auth.password_needs_rehash(user.password_hash)
    use_settings(DD_PASSWORD_HASHING=None)
    assert auth.password_needs_rehash(user.password_hash)
    with session_scope() as session:
        login.login(session, user.email, "secret123", "1.2.3.4")
    with session_scope() as session:
        stored = session.get(models.User, user.id).password_hash
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$") and auth.verify_password("secret123", stored)


def test_an_unknown_password_hashing_level_is_refused(use_settings):
    from discount_deals.config.settings import SettingsError

    use_settings(DD_PASSWORD_HASHING="none")
    with pytest.raises(SettingsError, match="DD_PASSWORD_HASHING"):
        get_settings()


def test_tokens_carry_subject_type_unique_id_and_lifetimes(customer):
    pair = auth.issue_tokens(customer)
    secret = get_settings().secret_key
    access = jwt.decode(pair.access, secret, algorithms=["HS256"])
    refresh = jwt.decode(pair.refresh, secret, algorithms=["HS256"])
    assert access["sub"] == refresh["sub"] == customer.id
    assert (access["type"], refresh["type"]) == ("access", "refresh")
    assert access["jti"] != refresh["jti"]
    assert access["exp"] - access["iat"] == 15 * 60
    assert refresh["exp"] - refresh["iat"] == 7 * 24 * 3600
    assert refresh["ver"] == access["ver"] == customer.token_version
    assert refresh["gen"] == 0 and len(refresh["fam"]) == 32


def test_login_returns_the_user_and_a_working_pair(customer):
    with session_scope() as session:
        user, pair = login.login(session, customer.email.upper(), "secret123", "1.2.3.4")
        assert user.id == customer.id
        assert auth.user_for_access_token(session, pair.access).id == customer.id
        access, _ = auth.refresh_access_token(session, pair.refresh)
        assert auth.token_is_valid(session, access) and auth.token_is_valid(session, pair.refresh)
        assert not auth.token_is_valid(session, "junk")


def test_login_failure_is_recorded_even_though_it_raises(customer):
    with pytest.raises(NotAuthenticated, match="^Invalid credentials$"):
        with session_scope() as session:
            login.login(session, customer.email, "nope", "1.2.3.4")
    with session_scope() as session:
        assert session.exec(select(models.AuthThrottle.hits).where(models.AuthThrottle.scope == "login")).one() == 1


def test_login_throttle_raises_429_with_retry_after(customer):
    for _ in range(5):
        with pytest.raises(NotAuthenticated), session_scope() as session:
            login.login(session, customer.email, "nope", "1.2.3.4")
    with pytest.raises(login.LoginThrottled) as caught, session_scope() as session:
        login.login(session, customer.email, "secret123", "1.2.3.4")
    error = caught.value
    assert error.status == 429
    assert 0 < error.retry_after <= 15 * 60
    assert error.headers == {"Retry-After": str(error.retry_after)}
    with session_scope() as session:
        assert login.login_retry_after(session, customer.email, "1.2.3.4") == error.retry_after
        assert login.login_retry_after(session, customer.email, "5.6.7.8") == 0
        user, _pair = login.login(session, customer.email, "secret123", "5.6.7.8")
        assert user.id == customer.id


@pytest.mark.parametrize(("email", "password"), [("", "x"), ("a@b.co", ""), ("   ", "x"), (None, None)])
def test_login_requires_both_fields(clean_db, email, password):
    with pytest.raises(ValidationFailed, match="Please fill in all fields"), session_scope() as session:
        login.login(session, email, password, "1.2.3.4")


def test_revoked_and_retired_refresh_tokens_stop_working(customer):
    with session_scope() as session:
        first, second = auth.issue_tokens(customer), auth.issue_tokens(customer)
        auth.revoke_refresh_token(session, first.refresh)
    with session_scope() as session:
        with pytest.raises(NotAuthenticated):
            auth.refresh_access_token(session, first.refresh)
        auth.refresh_access_token(session, second.refresh)
        user = session.get(models.User, customer.id)
        auth.set_password(user, "another-pass")
        session.add(user)
    with session_scope() as session:
        with pytest.raises(NotAuthenticated):
            auth.refresh_access_token(session, second.refresh)
        assert not auth.token_is_valid(session, second.refresh)
        assert auth.verify_password("another-pass", session.get(models.User, customer.id).password_hash)


def test_an_access_token_is_not_a_refresh_token(customer):
    pair = auth.issue_tokens(customer)
    with session_scope() as session:
        with pytest.raises(NotAuthenticated):
            auth.refresh_access_token(session, pair.access)
        with pytest.raises(NotAuthenticated):
            auth.user_for_access_token(session, pair.refresh)
