"""GET /users/admin/users/ and PATCH /users/admin/users/{id}/: admin only, search, roles, pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers
from ..builders.accounts import reload_user, stale_headers

URL = "/api/users/admin/users/"


def _bulk_users(count: int, role: str = "customer") -> list[str]:
    """Users written straight to the table (no password hashing), created one second apart, oldest first."""
    start = datetime.now(UTC) - timedelta(days=1)
    ids = []
    with session_scope() as session:
        for n in range(count):
            user = models.User(
                email=f"bulk{n}@example.com",
                username=f"bulk{n}",
                password_hash="unusable",
                role=role,
                created_at=start + timedelta(seconds=n),
            )
            session.add(user)
            ids.append(user.id)
    return ids


def test_list_requires_a_token_and_the_admin_role(client, customer_headers):
    assert client.get(URL).status_code == 401
    assert client.get(URL, headers=stale_headers()).status_code == 401
    response = client.get(URL, headers=customer_headers)
    assert response.status_code == 403
    assert response.json() == {"detail": "You do not have permission to perform this action."}


@pytest.mark.parametrize("role", ["seller", "manager", "user"])
def test_other_staff_roles_are_403(client, make_user, role):
    staff = make_user(role=role)
    assert client.get(URL, headers=auth_headers(staff)).status_code == 403


def test_list_newest_first_with_the_client_fields(client, admin_headers, admin):
    ids = _bulk_users(3)
    response = client.get(URL, headers=admin_headers)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 4 and body["next"] is None and body["previous"] is None
    assert [u["id"] for u in body["results"]] == [admin.id, *reversed(ids)]
    first = body["results"][0]
    assert {"id", "email", "username", "first_name", "last_name", "role"} <= set(first)
    assert "password_hash" not in response.text and "unusable" not in response.text


def test_default_page_holds_100_and_next_is_absolute_and_followable(client, admin_headers):
    _bulk_users(150)
    first = client.get(URL, headers=admin_headers).json()
    assert first["count"] == 151 and len(first["results"]) == 100
    assert first["next"] == "http://testserver/api/users/admin/users/?page=2"
    second = client.get(first["next"], headers=admin_headers).json()
    assert len(second["results"]) == 51 and second["next"] is None
    assert second["previous"] == "http://testserver/api/users/admin/users/"
    seen = [u["id"] for u in first["results"] + second["results"]]
    assert len(set(seen)) == 151


def test_page_size_and_filters_are_kept_in_the_links(client, admin_headers):
    _bulk_users(5)
    body = client.get(URL, params={"page_size": 2, "search": "bulk", "role": "customer"}, headers=admin_headers).json()
    assert body["count"] == 5 and [u["username"] for u in body["results"]] == ["bulk4", "bulk3"]
    following = client.get(body["next"], headers=admin_headers).json()
    assert [u["username"] for u in following["results"]] == ["bulk2", "bulk1"]
    assert "search=bulk" in body["next"] and "role=customer" in body["next"]


@pytest.mark.parametrize(("params", "status"), [({"page": 9}, 404), ({"page": "x"}, 400), ({"page_size": 0}, 400)])
def test_bad_pages_are_clean_errors(client, admin_headers, params, status):
    response = client.get(URL, params=params, headers=admin_headers)
    assert response.status_code == status
    assert response.json()["detail"]


def test_search_covers_email_username_and_names_case_insensitively(client, admin_headers, make_user):
    by_email = make_user(email="kwame.deals@example.com")
    by_username = make_user(username="KwameShop")
    by_first = make_user(first_name="Kwamena")
    by_last = make_user(last_name="Ofori-Kwame")
    make_user(first_name="Ama")

    def found(term):
        body = client.get(URL, params={"search": term}, headers=admin_headers).json()
        return {u["id"] for u in body["results"]}

    assert found("KWAME") == {by_email.id, by_username.id, by_first.id, by_last.id}
    assert found("  ofori ") == {by_last.id}
    assert found("%") == set() and found("_") == set()


def test_role_filter(client, admin_headers, admin, make_user):
    seller = make_user(role="seller")
    make_user()
    body = client.get(URL, params={"role": "seller"}, headers=admin_headers).json()
    assert [u["id"] for u in body["results"]] == [seller.id]
    admins = client.get(URL, params={"role": "admin"}, headers=admin_headers).json()
    assert [u["id"] for u in admins["results"]] == [admin.id]
    assert client.get(URL, params={"role": "all"}, headers=admin_headers).json()["count"] == 3
    bad = client.get(URL, params={"role": "wizard"}, headers=admin_headers)
    assert bad.status_code == 400
    assert bad.json()["role"] == ["Select a valid role: admin, seller, manager, customer or user."]


# --- role changes ------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "seller", "manager", "customer", "user"])
def test_admin_changes_a_role(client, admin_headers, customer, role):
    response = client.patch(f"{URL}{customer.id}/", json={"role": role}, headers=admin_headers)
    assert response.status_code == 200
    assert response.json()["role"] == role and response.json()["id"] == customer.id
    assert reload_user(customer.id).role == role


def test_a_promoted_admin_gets_admin_access_at_once(client, admin_headers, customer, customer_headers):
    assert client.get(URL, headers=customer_headers).status_code == 403
    client.patch(f"{URL}{customer.id}", json={"role": "admin"}, headers=admin_headers)
    assert client.get(URL, headers=customer_headers).status_code == 200


@pytest.mark.parametrize("body", [{"role": "superuser"}, {"role": ""}, {"role": 3}, {}, {"rol": "admin"}])
def test_invalid_roles_are_400(client, admin_headers, customer, body):
    response = client.patch(f"{URL}{customer.id}/", json=body, headers=admin_headers)
    assert response.status_code == 400
    assert "role" in response.json()
    assert reload_user(customer.id).role == "customer"


def test_non_admins_cannot_change_roles(client, make_user):
    target = make_user()
    for role in ("customer", "seller", "manager", "user"):
        actor = make_user(role=role)
        response = client.patch(f"{URL}{actor.id}/", json={"role": "admin"}, headers=auth_headers(actor))
        assert response.status_code == 403
        response = client.patch(f"{URL}{target.id}/", json={"role": "seller"}, headers=auth_headers(actor))
        assert response.status_code == 403
        assert reload_user(actor.id).role == role
    assert reload_user(target.id).role == "customer"
    assert client.patch(f"{URL}{target.id}/", json={"role": "admin"}).status_code == 401


def test_unknown_user_is_404(client, admin_headers):
    response = client.patch(f"{URL}no-such-user/", json={"role": "seller"}, headers=admin_headers)
    assert response.status_code == 404


def test_the_last_admin_cannot_be_demoted(client, admin, admin_headers, make_user):
    response = client.patch(f"{URL}{admin.id}/", json={"role": "customer"}, headers=admin_headers)
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The last admin cannot be demoted.",
        "role": ["The last admin cannot be demoted."],
    }
    assert reload_user(admin.id).role == "admin"
    # Staying admin is not a demotion.
    assert client.patch(f"{URL}{admin.id}/", json={"role": "admin"}, headers=admin_headers).status_code == 200
    # With a second admin, one of them may go; then the other is the last one.
    second = make_user(role="admin")
    assert client.patch(f"{URL}{second.id}/", json={"role": "seller"}, headers=admin_headers).status_code == 200
    assert client.patch(f"{URL}{admin.id}/", json={"role": "user"}, headers=admin_headers).status_code == 400


def test_an_inactive_admin_does_not_count(client, admin, admin_headers, make_user):
    make_user(role="admin", is_active=False)
    response = client.patch(f"{URL}{admin.id}/", json={"role": "customer"}, headers=admin_headers)
    assert response.status_code == 400


def test_an_inactive_admin_may_be_demoted_while_the_active_one_stays(client, admin, admin_headers, make_user):
    dormant = make_user(role="admin", is_active=False)
    response = client.patch(f"{URL}{dormant.id}/", json={"role": "customer"}, headers=admin_headers)
    assert response.status_code == 200, response.text
    assert reload_user(dormant.id).role == "customer"
    refused = client.patch(f"{URL}{admin.id}/", json={"role": "customer"}, headers=admin_headers)
    assert refused.status_code == 400 and reload_user(admin.id).role == "admin"
