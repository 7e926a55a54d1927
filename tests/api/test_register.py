"""POST /users/register/: SPEC §5 validation with the spec's messages, uniqueness, role always customer."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.accounts import REGISTER_PASSWORD, login, registration, stale_headers

URL = "/api/users/register/"

SPEC_REQUIRED = {
    "first_name": "First name is required",
    "last_name": "Last name is required",
    "username": "Username is required",
    "phonenumber": "Phone number is required",
    "date_of_birth": "Date of birth is required",
    "gender": "Gender is required",
    "email": "Email is required",
    "password": "Password is required",
}


def _stored(email: str) -> models.User | None:
    with session_scope() as session:
        return session.exec(select(models.User).where(models.User.email == email)).first()


def test_register_creates_a_customer_with_a_profile(client):
    response = client.post(URL, json=registration())
    assert response.status_code == 201
    body = response.json()
    assert body["id"]
    assert body["email"] == "ama@example.com" and body["username"] == "ama"
    assert body["date_of_birth"] == "1995-04-12" and body["gender"] == "female"
    assert body["role"] == "customer"
    assert body["profile"]["id"] and body["addresses"] == []
    assert "password" not in response.text
    stored = _stored("ama@example.com")
    assert stored.password_hash.startswith("$argon2id$") and REGISTER_PASSWORD not in stored.password_hash
    assert login(client, "ama@example.com", REGISTER_PASSWORD).status_code == 200


def test_register_trims_text_and_lowercases_email_and_gender(client):
    payload = registration(first_name="  Ama ", email=" Ama@Example.COM ", gender="Female", username=" ama ")
    body = client.post(URL, json=payload).json()
    assert (body["first_name"], body["email"], body["gender"], body["username"]) == (
        "Ama",
        "ama@example.com",
        "female",
        "ama",
    )


@pytest.mark.parametrize("role", ["admin", "manager", "seller", None, 5])
def test_role_in_the_payload_is_ignored(client, role):
    response = client.post(URL, json=registration(role=role))
    assert response.status_code == 201
    assert response.json()["role"] == "customer"
    assert _stored("ama@example.com").role == "customer"


def test_register_ignores_a_stale_bearer(client, customer):
    for headers in (stale_headers(), auth_headers(customer)):
        payload = registration(email=f"{len(headers)}{id(headers)}@example.com", username=f"u{id(headers)}")
        response = client.post(URL, json=payload, headers=headers)
        assert response.status_code == 201
        assert response.json()["role"] == "customer"
    assert client.post("/api/users/register", json=registration(), headers=stale_headers()).status_code == 201


@pytest.mark.parametrize(
    ("field", "message", "empty"),
    [
        (field, message, empty)
        for field, message in SPEC_REQUIRED.items()
        for empty in ("", "   ", None, "missing")
        # A password of spaces is not empty (see below).
        if not (field == "password" and empty == "   ")
    ],
)
def test_every_field_is_required_with_the_spec_message(client, field, message, empty):
    payload = registration()
    if empty == "missing":
        del payload[field]
    else:
        payload[field] = empty
    response = client.post(URL, json=payload)
    assert response.status_code == 400
    body = response.json()
    assert body[field] == [message]
    assert body["detail"] == message
    assert _stored("ama@example.com") is None


def test_all_errors_are_reported_together(client):
    response = client.post(URL, json={})
    assert response.status_code == 400
    body = response.json()
    assert {k: v for k, v in body.items() if k != "detail"} == {k: [v] for k, v in SPEC_REQUIRED.items()}


def test_whitespace_password_is_not_empty(client):
    response = client.post(URL, json=registration(password="      "))
    assert response.status_code == 201
    assert login(client, "ama@example.com", "      ").status_code == 200


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("password", "12345", "Password must be at least 6 characters"),
        ("email", "not-an-email", "Please enter a valid email"),
        ("email", "ama@example", "Please enter a valid email"),
        ("gender", "unknown", "Gender must be male, female or other"),
        ("date_of_birth", "2023-02-30", "Enter a valid date in the format YYYY-MM-DD."),
        ("date_of_birth", "12/04/1995", "Enter a valid date in the format YYYY-MM-DD."),
        # Read when the test runs, not when it is collected: a run across midnight sent yesterday.
        ("date_of_birth", lambda: date.today().isoformat(), "Date of birth must be in the past"),
        ("date_of_birth", lambda: (date.today() + timedelta(days=30)).isoformat(), "Date of birth must be in the past"),
        ("date_of_birth", "1850-01-01", "Date of birth must be after 1900-01-01"),
        ("phonenumber", "call me", "Please enter a valid phone number"),
        ("username", "has space", "Username may contain only letters, digits and @ . + - _"),
        ("first_name", "x" * 151, "Ensure this field has at most 150 characters."),
    ],
)
def test_invalid_values_give_a_field_message(client, field, value, message):
    response = client.post(URL, json=registration(**{field: value() if callable(value) else value}))
    assert response.status_code == 400
    assert response.json()[field] == [message]


# Look-alikes of another account (a probe registered all of these beside ama@example.com): an
# invisible character, a full-width letter, a domain's trailing dot or empty label, the closed
# accounts' reserved domain, a right-to-left override in a name.
LOOK_ALIKES = {
    "email": ["ama\u200b@example.com", "\uff41ma@example.com", "ama@example.com.", "ama@example..com",
              "ama@shop.invalid"],
    "username": ["\uff41ma", "ama\u200b"],
    "first_name": ["Ama\u202egnap"],
}
LOOK_ALIKE_MESSAGES = {"email": "Please enter a valid email", "first_name": "Must not contain control characters.",
                       "username": "Username may contain only letters, digits and @ . + - _"}


@pytest.mark.parametrize(("field", "value"), [(field, value) for field, values in LOOK_ALIKES.items() for value in values])
def test_look_alikes_of_another_account_are_refused(client, field, value):
    response = client.post(URL, json=registration(**{field: value}))
    assert response.status_code == 400 and response.json()[field] == [LOOK_ALIKE_MESSAGES[field]]


def test_email_and_username_must_be_unique_regardless_of_case(client, make_user):
    make_user(email="ama@example.com", username="Ama")
    response = client.post(URL, json=registration(email="AMA@example.com", username="ama"))
    assert response.status_code == 400
    body = response.json()
    assert body["email"] == ["A user with this email already exists."]
    assert body["username"] == ["A user with this username already exists."]
    # in any script: SQLite's lower() folds ASCII only, and "ámà" was taken beside "Ámà" there
    make_user(email="ama2@example.com", username="Ámà")
    accented = client.post(URL, json=registration(email="new@example.com", username="ámà"))
    assert accented.status_code == 400 and accented.json()["username"] == ["A user with this username already exists."]
    assert client.post(URL, json=registration(email="new@example.com", username="ámá")).status_code == 201
    # the register toast shows detail: sentences, not "exists.; A user"
    assert body["detail"] == "A user with this email already exists. A user with this username already exists."


def test_the_database_refuses_a_username_in_another_case_with_the_same_words(client, make_user):
    """Two registrations at once pass the check each alone (PostgreSQL runs them side by side:
    test_races_postgres_rows.py); the unique index on lower(username) refuses the second, and
    that is the 400 one at a time gives. ``make_user`` inserts without the check."""
    from discount_deals.services import ValidationFailed

    for name, twin in (("Kofi", "kOFI"), ("emailking", "EmailKing")):  # PostgreSQL's DETAIL quotes the name
        make_user(username=name)
        with pytest.raises(ValidationFailed) as refused:
            make_user(username=twin)
        assert refused.value.fields == {"username": ["A user with this username already exists."]}
    make_user(email="esi@example.com")
    with pytest.raises(ValidationFailed) as refused:
        make_user(email="esi@example.com")
    assert refused.value.fields == {"email": ["A user with this email already exists."]}
    with session_scope() as session:
        names = session.exec(select(models.User.username)).all()
    assert [name for name in names if name.lower() == "kofi"] == ["Kofi"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content": b'{"email": ', "headers": {"Content-Type": "application/json"}},
        {"json": [registration()]},
        {"json": "register me"},
        {"json": registration(first_name=5)},
        {"json": registration(date_of_birth=19950412)},
        {"json": registration(password=123456)},
    ],
)
def test_bad_json_non_objects_and_wrong_types_are_400(client, kwargs):
    response = client.post(URL, **kwargs)
    assert response.status_code == 400
    assert response.json()["detail"]
    assert _stored("ama@example.com") is None


# --- issue 32 item 7: the commonest passwords are refused ------------------------------------------


@pytest.mark.parametrize("password", ["password", "Password", "qwerty"])
def test_a_common_password_is_refused_at_registration(client, password):
    response = client.post("/api/users/register/", json=registration(password=password))
    assert response.status_code == 400
    assert response.json()["password"] == ["This password is too common. Choose one that is harder to guess."]
    assert login(client, "ama@example.com", password).status_code == 401  # no account was made


def test_a_common_password_is_refused_as_a_new_password(client, customer):
    tokens = login(client, customer.email).json()
    response = client.patch(f"/api/users/users/{customer.id}/", json={"password": "password",
                            "current_password": "secret123"}, headers={"Authorization": f"Bearer {tokens['access']}"})
    assert response.status_code == 400
    assert response.json()["password"] == ["This password is too common. Choose one that is harder to guess."]
    assert login(client, customer.email, "password").status_code == 401
