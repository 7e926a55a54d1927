"""Issue 32 item 2: changing the email or phone needs the current password, and the old address
hears of it with a way to undo it for 7 days (services.users; real database, no mocks)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.services import NotAuthenticated, ValidationFailed, auth, users
from discount_deals.services.users import contact_change
from discount_deals.config.settings import get_settings


def _update(user: models.User, changes: dict) -> models.User:
    with write_session() as session:
        return users.update_user(session, session.get(models.User, user.id), user.id, changes)


def _reload(user_id: str) -> models.User:
    with session_scope() as session:
        return session.get(models.User, user_id)


def _notices() -> list[models.OutboxMessage]:
    with session_scope() as session:
        query = select(models.OutboxMessage).where(models.OutboxMessage.kind == "contact_changed")
        return list(session.exec(query).all())


def _undo_token(message: models.OutboxMessage) -> str:
    return re.search(r"token=([\w.-]+)", message.body_text).group(1)


@pytest.fixture
def ama(make_user):
    return make_user(email="ama@example.com", phonenumber="0241234567")


@pytest.mark.parametrize("changes", [{"email": "thief@example.com"}, {"phonenumber": "0509999999"},
                                     {"email": "thief@example.com", "current_password": "wrong-one"}])
def test_a_new_email_or_phone_needs_the_current_password(ama, changes):
    with pytest.raises(ValidationFailed) as caught:
        _update(ama, {**changes, "first_name": "Changed"})
    assert caught.value.code == "current_password_required"
    assert list(caught.value.fields) == ["current_password"]
    stored = _reload(ama.id)
    # Stored E.164 since issue 35 (the account phone parsed once, when written).
    assert (stored.email, stored.phonenumber, stored.first_name) == ("ama@example.com", "+233241234567", ama.first_name)
    assert _notices() == []


def test_the_same_email_and_phone_sent_again_need_no_password(ama):
    # The original client's form sends both every time, unchanged (the phone perhaps written differently).
    _update(ama, {"email": "AMA@example.com", "phonenumber": "+233 24 123 4567", "first_name": "Ama"})
    assert _reload(ama.id).first_name == "Ama"
    assert _notices() == []


def test_a_change_tells_the_old_email_and_phone_and_can_be_undone(ama):
    with session_scope() as session:
        before = auth.issue_tokens(session.get(models.User, ama.id))
    _update(ama, {"email": "new@example.com", "phonenumber": "0509999999", "current_password": "secret123"})
    stored = _reload(ama.id)
    assert (stored.email, stored.phonenumber) == ("new@example.com", "+233509999999")
    notices = {m.channel: m for m in _notices()}
    assert notices["email"].recipient == "ama@example.com"
    assert notices["sms"].recipient == "+233241234567"
    assert notices["email"].secret and "token=" in notices["email"].body_text
    with write_session() as session:
        restored = contact_change.undo_contact_change(session, _undo_token(notices["email"]))
        assert restored.id == ama.id
    stored = _reload(ama.id)
    assert (stored.email, stored.phonenumber) == ("ama@example.com", "+233241234567")
    with session_scope() as session:  # every session ended
        with pytest.raises(NotAuthenticated):
            auth.user_for_access_token(session, before.access)
    with pytest.raises(ValidationFailed) as caught, write_session() as session:
        contact_change.undo_contact_change(session, _undo_token(notices["email"]))
    assert caught.value.code == "undo_invalid"


def test_an_undo_link_lasts_seven_days(ama):
    _update(ama, {"email": "new@example.com", "current_password": "secret123"})
    token = _undo_token(_notices()[0])
    secret = get_settings().secret_key
    claims = jwt.decode(token, secret, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 7 * 24 * 3600
    late = datetime.now(UTC) - timedelta(days=8)
    expired = jwt.encode({**claims, "iat": late, "exp": late + timedelta(days=7)}, secret, algorithm="HS256")
    for bad in (expired, "junk", token + "x"):
        with pytest.raises(ValidationFailed) as caught, write_session() as session:
            contact_change.undo_contact_change(session, bad)
        assert caught.value.code == "undo_invalid"
    assert _reload(ama.id).email == "new@example.com"


def test_an_undo_refuses_an_old_email_someone_else_took_since(ama, make_user):
    _update(ama, {"email": "new@example.com", "current_password": "secret123"})
    make_user(email="ama@example.com")
    with pytest.raises(ValidationFailed) as caught, write_session() as session:
        contact_change.undo_contact_change(session, _undo_token(_notices()[0]))
    assert caught.value.code == "undo_email_taken"
    assert _reload(ama.id).email == "new@example.com"


def test_the_undo_link_opens_the_storefronts_undo_page():
    from discount_deals import routes
    from discount_deals.discount_deals import PAGES

    assert contact_change.UNDO_PATH == routes.UNDO_CHANGE
    assert routes.UNDO_CHANGE in [route for route, *_rest in PAGES]
