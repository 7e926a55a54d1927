"""The header's words for who is signed in: the browser gets the greeting and the menu's name,
never the name's parts or the role (services.permissions decides, and ``is_admin`` says so)."""

from __future__ import annotations

from discount_deals.models import User
from discount_deals.state.account.session import SessionState, header_words


def test_the_greeting_and_the_menus_name_fall_back_as_the_header_always_did():
    assert header_words(User(first_name="Ama", last_name="Mensah", username="ama", email="a@b.co")) == {
        "greeting": "Hi, Ama", "full_name": "Ama Mensah"}
    assert header_words(User(first_name="", last_name="", username="kojo", email="k@b.co")) == {
        "greeting": "Hi, User", "full_name": "kojo"}
    assert header_words(User(first_name="", last_name="", username="", email="k@b.co"))["full_name"] == "k@b.co"


def test_the_browser_state_holds_no_role_and_no_name_parts():
    sent = set(SessionState.get_fields())
    assert {"greeting", "full_name", "is_admin", "email", "user_id"} <= sent
    assert not sent & {"role", "first_name", "last_name", "username"}
