"""The current password asked by a password, email or phone change and by closing the account is
checked at most DD_LOGIN_MAX_FAILURES times a window per account, as logins from one address are:
with a stolen token, a probe guessed 25 times unhindered, then set its own password and shut the
owner out (an admin could do the same to any customer)."""

from __future__ import annotations

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, auth_headers, login

CLOSE = "/api/users/me/close/"


def change_password(client, user, current: str, headers=None):
    return client.patch(f"/api/users/users/{user.id}/", headers=headers or auth_headers(user),
                        json={"password": "Brand-New-4567", "current_password": current})


def checks_counted(user) -> int:
    with session_scope() as session:
        row = session.exec(select(models.AuthThrottle).where(models.AuthThrottle.scope == "password_checks",
                                                             models.AuthThrottle.key == user.id)).first()
        return row.hits if row else 0


def test_guessing_the_current_password_stops_after_the_logins_limit(client, customer, use_settings):
    use_settings(DD_LOGIN_MAX_FAILURES="5")
    for guess in range(5):
        assert change_password(client, customer, f"guess-{guess}").status_code == 400
    assert checks_counted(customer) == 5  # each refusal kept its count
    stopped = change_password(client, customer, PASSWORD)  # the right one too, until the window ends
    assert stopped.status_code == 429, stopped.text
    assert stopped.json()["detail"].startswith("Too many password attempts.") and int(stopped.headers["Retry-After"]) > 0
    assert login(client, customer.email).status_code == 200  # the password did not change


def test_closing_the_account_and_an_admins_change_share_the_count(client, customer, admin_headers, use_settings):
    use_settings(DD_LOGIN_MAX_FAILURES="3")
    assert change_password(client, customer, "guess-1", headers=admin_headers).status_code == 400
    assert client.post(CLOSE, json={"password": "guess-2"}, headers=auth_headers(customer)).status_code == 400
    assert client.post(CLOSE, json={"password": "guess-3"}, headers=auth_headers(customer)).status_code == 400
    stopped = client.post(CLOSE, json={"password": PASSWORD}, headers=auth_headers(customer))
    assert stopped.status_code == 429, stopped.text
    with session_scope() as session:
        assert session.get(models.User, customer.id).is_active  # not closed


def test_the_right_password_starts_the_count_over(client, customer, use_settings):
    use_settings(DD_LOGIN_MAX_FAILURES="2")
    assert change_password(client, customer, "guess").status_code == 400
    assert client.patch(f"/api/users/users/{customer.id}/", headers=auth_headers(customer),
                        json={"email": "ama.new@example.com", "current_password": PASSWORD}).status_code == 200
    assert checks_counted(customer) == 0
    assert change_password(client, customer, "").status_code == 400  # nothing typed is no guess: not counted
    assert checks_counted(customer) == 0
