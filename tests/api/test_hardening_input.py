"""Issue 13 items 1 (registration throttle) and 4 (no control characters in stored text)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..builders.accounts import registration

CONTROL = "Must not contain control characters."


@pytest.fixture
def register_limit(monkeypatch):
    monkeypatch.setenv("DD_REGISTER_MAX_ATTEMPTS", "3")
    get_settings.cache_clear()
    yield 3
    monkeypatch.delenv("DD_REGISTER_MAX_ATTEMPTS")
    get_settings.cache_clear()


def _users() -> int:
    with session_scope() as session:
        return len(session.exec(select(models.User.id)).all())


def test_registrations_are_throttled_per_client_address(client, api_app, register_limit):
    # Malformed attempts are answered without asking the database and are not counted.
    for _ in range(5):
        assert client.post("/api/users/register/", json=registration(email="not-an-email")).status_code == 400
    assert client.post("/api/users/register/", json=registration()).status_code == 201
    taken = client.post("/api/users/register/", json=registration(username="other"))
    assert taken.status_code == 400
    assert taken.json()["email"] == ["A user with this email already exists."]
    assert client.post("/api/users/register/", json=registration(email="b@example.com", username="b")).status_code == 201
    blocked = client.post("/api/users/register/", json=registration(email="c@example.com", username="c"))
    assert blocked.status_code == 429
    assert blocked.json() == {"detail": "Too many registration attempts. Please try again in 60 minutes."}
    assert 3500 < int(blocked.headers["Retry-After"]) <= 3600
    # The throttled answer does not tell whether the email is taken.
    again = client.post("/api/users/register/", json=registration(username="x"))
    assert again.status_code == 429 and "email" not in again.json()
    assert _users() == 2
    with TestClient(api_app, client=("10.0.0.9", 4000)) as elsewhere:
        answer = elsewhere.post("/api/users/register/", json=registration(email="c@example.com", username="c"))
        assert answer.status_code == 201


# --- control characters ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["\x00", "\x1b[31m", "\x7f", "\x85", "a\x0bb"])
def test_registration_refuses_control_characters(client, bad):
    answer = client.post("/api/users/register/", json=registration(first_name=f"A{bad}ma"))
    assert answer.status_code == 400
    assert answer.json()["first_name"] == [CONTROL]
    assert _users() == 0


def test_profile_bio_refuses_nul_and_keeps_newlines_and_tabs(client, customer):
    headers = auth_headers(customer)
    profile = client.get("/api/users/me/", headers=headers).json()["profile"]
    url = f"/api/users/profiles/{profile['id']}/"
    refused = client.patch(url, json={"bio": "hello\x00world"}, headers=headers)
    assert refused.status_code == 400
    assert refused.json()["bio"] == [CONTROL]
    # Multipart too (the profile form with a picture).
    refused = client.patch(url, data={"bio": "bell\x07"}, files={"unused": ("a.txt", b"x")}, headers=headers)
    assert refused.status_code == 400 and refused.json()["bio"] == [CONTROL]
    assert client.patch(url, json={"bio": "line one\r\nline\ttwo"}, headers=headers).status_code == 200
    with session_scope() as session:
        stored = session.exec(select(models.Profile).where(models.Profile.user_id == customer.id)).one()
    assert stored.bio == "line one\nline\ttwo"


def test_account_and_address_fields_refuse_control_characters(client, customer):
    headers = auth_headers(customer)
    answer = client.patch(f"/api/users/users/{customer.id}/", json={"last_name": "Doe\x00"}, headers=headers)
    assert answer.status_code == 400 and answer.json()["last_name"] == [CONTROL]
    answer = client.patch(
        f"/api/users/users/{customer.id}/", json={"profile": {"website": "https://a.example/\x00"}}, headers=headers
    )
    assert answer.status_code == 400 and answer.json()["profile.website"] == [CONTROL]
    address = {"line1": "1 Road\x00", "city": "Accra", "country": "Ghana"}
    answer = client.post("/api/users/addresses/", json=address, headers=headers)
    assert answer.status_code == 400 and answer.json()["line1"] == [CONTROL]
    with session_scope() as session:
        assert session.get(models.User, customer.id).last_name == customer.last_name
        assert session.exec(select(models.Address)).all() == []


def test_pickup_store_fields_refuse_control_characters(client, admin):
    store = {"name": "Shoprite\x00", "address": "Mall", "city": "Accra"}
    answer = client.post("/api/pickup-stores/", json=store, headers=auth_headers(admin))
    assert answer.status_code == 400 and answer.json()["name"] == [CONTROL]
    with session_scope() as session:
        assert session.exec(select(models.PickupStore).where(models.PickupStore.name.startswith("Shoprite"))).all() == []
