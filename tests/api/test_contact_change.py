"""Issue 32 item 2 over HTTP: a stolen access token cannot move the account to another email or
phone, and the old email can undo a change for 7 days (POST /api/users/email-change/undo/)."""

from __future__ import annotations

import re

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import bearer, login, reload_user


def _contact_notices() -> list[models.OutboxMessage]:
    with session_scope() as session:
        return list(session.exec(select(models.OutboxMessage)
                                 .where(models.OutboxMessage.kind == "contact_changed")).all())


def test_a_stolen_token_cannot_change_the_email_or_phone(client, make_user):
    user = make_user(email="ama@example.com", phonenumber="0241234567")
    stolen = bearer(login(client, user.email).json()["access"])
    for changes in ({"email": "thief@example.com"}, {"phonenumber": "0509999999"}):
        response = client.patch(f"/api/users/users/{user.id}/", json=changes, headers=stolen)
        assert response.status_code == 400
        assert response.json()["current_password"] == [
            "Enter your current password to change your email or phone number."]
    stored = reload_user(user.id)
    assert (stored.email, stored.phonenumber) == ("ama@example.com", "+233241234567")  # stored E.164 (issue 35)
    assert _contact_notices() == []
    # The original client's form carries both, unchanged, every time: no password needed.
    same = {"email": "ama@example.com", "phonenumber": "0241234567", "first_name": "Ama"}
    assert client.patch(f"/api/users/users/{user.id}/", json=same, headers=stolen).status_code == 200


def test_the_old_email_can_undo_a_change_and_every_session_ends(client, make_user):
    user = make_user(email="ama@example.com", phonenumber="0241234567")
    tokens = login(client, user.email).json()
    changes = {"email": "new@example.com", "current_password": "secret123"}
    changed = client.patch(f"/api/users/users/{user.id}/", json=changes, headers=bearer(tokens["access"]))
    assert changed.status_code == 200 and changed.json()["email"] == "new@example.com"
    email = next(m for m in _contact_notices() if m.channel == "email")
    assert email.recipient == "ama@example.com"
    token = re.search(r"token=([\w.-]+)", email.body_text).group(1)
    refused = client.post("/api/users/email-change/undo/", json={"token": "junk"})
    assert refused.status_code == 400 and refused.json()["detail"] == "This undo link is invalid or has expired."
    undone = client.post("/api/users/email-change/undo/", json={"token": token})
    assert undone.status_code == 200, undone.text
    assert reload_user(user.id).email == "ama@example.com"
    assert client.get("/api/users/me/", headers=bearer(tokens["access"])).status_code == 401
    assert client.post("/api/auth/token/refresh/", json={"refresh": tokens["refresh"]}).status_code == 401
    again = client.post("/api/users/email-change/undo/", json={"token": token})
    assert again.status_code == 400 and reload_user(user.id).email == "ama@example.com"


def test_an_undo_link_works_once_even_after_the_same_change_again(client, make_user):
    """The link was refused only while the account lacked the values it undoes: after a change, its
    undo and the same change again, the first link pulled the account back a second time."""
    user = make_user(email="a@example.com", phonenumber="")

    def move_to_b() -> None:
        headers = bearer(login(client, reload_user(user.id).email).json()["access"])
        moved = client.patch(f"/api/users/users/{user.id}/", json={"email": "b@example.com",
                                                                    "current_password": "secret123"}, headers=headers)
        assert moved.status_code == 200, moved.text

    move_to_b()
    [first] = [m for m in _contact_notices() if m.channel == "email"]
    token = re.search(r"token=([\w.-]+)", first.body_text).group(1)
    assert client.post("/api/users/email-change/undo/", json={"token": token}).status_code == 200
    move_to_b()
    replayed = client.post("/api/users/email-change/undo/", json={"token": token})
    assert replayed.status_code == 400 and replayed.json()["detail"] == "This undo link is invalid or has expired."
    assert reload_user(user.id).email == "b@example.com"
    # The second change's own link still works, once.
    second = [m for m in _contact_notices() if m.channel == "email" and m.id != first.id][0]
    fresh = re.search(r"token=([\w.-]+)", second.body_text).group(1)
    assert client.post("/api/users/email-change/undo/", json={"token": fresh}).status_code == 200
    assert reload_user(user.id).email == "a@example.com"
    assert client.post("/api/users/email-change/undo/", json={"token": fresh}).status_code == 400
