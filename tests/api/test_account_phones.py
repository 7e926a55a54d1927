"""Issue 35 item 5 over the API: the account phone is stored E.164 whichever way it was typed
(registration, the profile, an admin's edit), shown the way it is typed in Ghana, and the reset
by SMS finds the account by any spelling."""

from __future__ import annotations

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..conftest import auth_headers
from ..builders.accounts import registration, reload_user
from ..builders.messaging import outbox

REGISTER = "/api/users/register/"
RESET = "/api/auth/password-reset/"
SPELLINGS = ["0241234567", "024 123 4567", "+233241234567", "233241234567", "+233 24 123 4567"]


def _user_by_email(email: str) -> models.User | None:
    with session_scope() as session:
        return session.exec(select(models.User).where(models.User.email == email)).first()


def _set_stored_phone(user: models.User, phone: str) -> None:
    """The row as revision 35p leaves a number it could not convert."""
    with session_scope() as session:
        row = session.get(models.User, user.id)
        row.phonenumber = phone
        session.add(row)


@pytest.mark.parametrize("typed", SPELLINGS)
def test_registration_stores_the_phone_e164_and_shows_it_as_typed_in_ghana(client, typed):
    assert client.post(REGISTER, json=registration(phonenumber=typed)).status_code == 201
    user = _user_by_email("ama@example.com")
    assert user.phonenumber == "+233241234567"
    assert client.get("/api/users/me/", headers=auth_headers(user)).json()["phonenumber"] == "0241234567"


def test_another_countrys_number_is_stored_and_shown_e164(client):
    assert client.post(REGISTER, json=registration(phonenumber="+44 7911 123456")).status_code == 201
    user = _user_by_email("ama@example.com")
    assert user.phonenumber == "+447911123456"
    assert client.get("/api/users/me/", headers=auth_headers(user)).json()["phonenumber"] == "+447911123456"


@pytest.mark.parametrize("typed", ["1234567890", "+233 024 123 4567", "024 123 456"])
def test_phone_shaped_text_that_is_no_real_number_is_kept_as_typed_and_gets_no_texts(client, typed):
    """Registration takes what it always took (7 to 15 digits): a made-up number is stored as
    typed (no E.164 form exists) and no text goes to it."""
    response = client.post(REGISTER, json=registration(phonenumber=typed))
    assert response.status_code == 201, response.text
    user = _user_by_email("ama@example.com")
    assert user.phonenumber == typed
    assert client.get("/api/users/me/", headers=auth_headers(user)).json()["phonenumber"] == typed
    assert outbox(channel="sms") == []
    # No number to text: the account's messages go by email (the outbox check alone proves
    # nothing, since registering sends no text to anyone).
    prefs = client.get("/api/users/me/notifications/", headers=auth_headers(user)).json()
    assert (prefs["sms_number"], prefs["order_updates"]) == (None, "email")


@pytest.mark.parametrize("typed", ["12345", "call 0241234567", "+233 24 123 4567 0000 0", "024_123_4567"])
def test_a_number_that_is_no_number_is_refused_with_the_message_and_nothing_is_stored(client, typed):
    response = client.post(REGISTER, json=registration(phonenumber=typed))
    assert response.status_code == 400
    assert response.json()["phonenumber"] == ["Please enter a valid phone number"]
    assert _user_by_email("ama@example.com") is None


def test_a_new_phone_from_the_profile_is_stored_e164(client, make_user):
    user = make_user(phonenumber="0241234567")
    changes = {"phonenumber": "050 999 9999", "current_password": "secret123"}
    assert client.patch(f"/api/users/users/{user.id}/", json=changes, headers=auth_headers(user)).status_code == 200
    assert reload_user(user.id).phonenumber == "+233509999999"
    assert [m.recipient for m in outbox(kind="contact_changed", channel="sms")] == ["+233241234567"]


@pytest.mark.parametrize("sent", ["0241234567", "024 123 4567", "+233241234567"])
def test_the_same_number_sent_back_in_any_spelling_is_no_change(client, make_user, sent):
    user = make_user(phonenumber="+233 24 123 4567")
    answer = client.patch(f"/api/users/users/{user.id}/", json={"phonenumber": sent, "first_name": "Ama"},
                          headers=auth_headers(user))
    assert answer.status_code == 200 and answer.json()["phonenumber"] == "0241234567"
    assert reload_user(user.id).phonenumber == "+233241234567"
    assert outbox(kind="contact_changed") == []


def test_an_admins_edit_stores_the_phone_e164(client, make_user, admin_headers):
    user = make_user(phonenumber="0241234567")
    changes = {"phonenumber": "+233 20 555 0199", "current_password": "secret123"}  # the owner's, as for anyone
    assert client.patch(f"/api/users/users/{user.id}/", json=changes, headers=admin_headers).status_code == 200
    assert reload_user(user.id).phonenumber == "+233205550199"


def test_an_old_number_the_migration_left_does_not_block_the_profile_form(client, make_user):
    user = make_user(phonenumber="0241234567")
    _set_stored_phone(user, "1234567")
    me = client.get("/api/users/me/", headers=auth_headers(user)).json()
    assert me["phonenumber"] == "1234567"
    # The original client sends it back with every save: the rest is saved, the number stays.
    answer = client.patch(f"/api/users/users/{user.id}/", json={"phonenumber": me["phonenumber"], "first_name": "Ama"},
                          headers=auth_headers(user))
    assert answer.status_code == 200
    stored = reload_user(user.id)
    assert (stored.first_name, stored.phonenumber) == ("Ama", "1234567")
    # It is no number to text: the account hears by email.
    prefs = client.get("/api/users/me/notifications/", headers=auth_headers(user)).json()
    assert (prefs["sms_number"], prefs["order_updates"]) == (None, "email")


@pytest.mark.parametrize("typed", SPELLINGS)
def test_the_reset_by_sms_finds_the_account_by_any_spelling(client, make_user, typed):
    make_user(email="someone@example.com", phonenumber="+233241234567")  # another account, the same number later
    user = make_user(email="kofi@example.com", phonenumber="024 123 4567")
    with session_scope() as session:  # the earlier account is closed: the active one is found
        other = session.exec(select(models.User).where(models.User.email == "someone@example.com")).one()
        other.is_active = False
        session.add(other)
    assert client.post(RESET, json={"phone": typed}).status_code == 202
    [sms] = outbox(kind="password_reset")
    assert (sms.channel, sms.recipient, sms.user_id) == ("sms", "+233241234567", user.id)


def test_the_reset_ignores_an_account_whose_old_number_was_not_converted(client, make_user):
    user = make_user(phonenumber="0241234567")
    _set_stored_phone(user, "024-123-4567 (home)")
    assert client.post(RESET, json={"phone": "0241234567"}).status_code == 202
    assert outbox(kind="password_reset") == []
