"""POST/PATCH/DELETE /users/addresses/: owner only, exactly one default once there is an address."""

from __future__ import annotations

import pytest

from ..builders.accounts import auth_headers
from ..builders.accounts import stale_headers

URL = "/api/users/addresses/"


def _address(**overrides):
    return {
        "line1": "12 Ring Road",
        "line2": "",
        "city": "Accra",
        "state": "",
        "postal_code": "",
        "country": "Ghana",
        "is_default": False,
        **overrides,
    }


def _add(client, user, **overrides):
    response = client.post(URL, json=_address(**overrides), headers=auth_headers(user))
    assert response.status_code == 201, response.text
    return response.json()


def _me_addresses(client, user):
    return client.get("/api/users/me/", headers=auth_headers(user)).json()["addresses"]


def _defaults(client, user):
    return [a["line1"] for a in _me_addresses(client, user) if a["is_default"]]


def test_first_address_becomes_the_default(client, customer):
    body = _add(client, customer, line1="First street")
    assert body["is_default"] is True
    assert set(body) == {"id", "line1", "line2", "city", "state", "postal_code", "country", "is_default"}
    assert body["line2"] == "" and body["state"] == "" and body["postal_code"] == ""
    second = _add(client, customer, line1="Second street")
    assert second["is_default"] is False
    assert _defaults(client, customer) == ["First street"]


def test_adding_a_default_moves_the_default(client, customer):
    _add(client, customer, line1="A")
    _add(client, customer, line1="B", is_default=True)
    assert _defaults(client, customer) == ["B"]
    assert [a["line1"] for a in _me_addresses(client, customer)] == ["B", "A"]


def test_set_default_makes_it_the_only_default(client, customer):
    _add(client, customer, line1="A")
    b = _add(client, customer, line1="B")
    _add(client, customer, line1="C")
    response = client.patch(f"{URL}{b['id']}/", json={"is_default": True}, headers=auth_headers(customer))
    assert response.status_code == 200
    assert response.json()["is_default"] is True
    assert _defaults(client, customer) == ["B"]
    # The default first, then oldest first.
    assert [a["line1"] for a in _me_addresses(client, customer)] == ["B", "A", "C"]


def test_other_fields_are_editable(client, customer):
    a = _add(client, customer)
    response = client.patch(
        f"{URL}{a['id']}", json={"city": " Kumasi ", "postal_code": "AK-039"}, headers=auth_headers(customer)
    )
    assert response.status_code == 200
    assert response.json()["city"] == "Kumasi" and response.json()["postal_code"] == "AK-039"
    assert response.json()["line1"] == "12 Ring Road"
    assert client.get(f"{URL}{a['id']}/", headers=auth_headers(customer)).json()["city"] == "Kumasi"


def test_the_default_cannot_be_unset_directly(client, customer):
    a = _add(client, customer)
    response = client.patch(f"{URL}{a['id']}/", json={"is_default": False}, headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()["is_default"] == ["A default address is required: set another address as default instead."]


def test_deleting_the_default_promotes_the_oldest_remaining(client, customer):
    a = _add(client, customer, line1="A")
    _add(client, customer, line1="B")
    _add(client, customer, line1="C")
    response = client.delete(f"{URL}{a['id']}/", headers=auth_headers(customer))
    assert response.status_code == 204
    assert response.content == b""
    assert _defaults(client, customer) == ["B"]
    assert [x["line1"] for x in _me_addresses(client, customer)] == ["B", "C"]


def test_deleting_a_non_default_keeps_the_default(client, customer):
    _add(client, customer, line1="A")
    b = _add(client, customer, line1="B")
    assert client.delete(f"{URL}{b['id']}", headers=auth_headers(customer)).status_code == 204
    assert _defaults(client, customer) == ["A"]
    assert client.delete(f"{URL}{b['id']}/", headers=auth_headers(customer)).status_code == 404


@pytest.mark.parametrize(
    ("field", "message"),
    [("line1", "Line 1 is required"), ("city", "City is required"), ("country", "Country is required")],
)
@pytest.mark.parametrize("empty", ["", "   ", None])
def test_required_address_fields(client, customer, field, message, empty):
    response = client.post(URL, json=_address(**{field: empty}), headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()[field] == [message]
    patched = _add(client, customer)
    response = client.patch(f"{URL}{patched['id']}/", json={field: empty}, headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()[field] == [message]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content": b"{", "headers": {"Content-Type": "application/json"}},
        {"json": [_address()]},
        {"json": _address(line1=5)},
        {"json": _address(is_default="perhaps")},
        {"json": _address(city="x" * 121)},
    ],
)
def test_bad_address_bodies_are_400(client, customer, kwargs):
    headers = {**kwargs.pop("headers", {}), **auth_headers(customer)}
    response = client.post(URL, headers=headers, **kwargs)
    assert response.status_code == 400
    assert response.json()["detail"]
    assert _me_addresses(client, customer) == []


def test_another_users_address_is_not_found(client, make_user, admin):
    owner, intruder = make_user(), make_user()
    address = _add(client, owner)
    for user in (intruder, admin):
        headers = auth_headers(user)
        assert client.get(f"{URL}{address['id']}/", headers=headers).status_code == 404
        assert client.patch(f"{URL}{address['id']}/", json={"city": "X"}, headers=headers).status_code == 404
        assert client.patch(f"{URL}{address['id']}/", json={"is_default": True}, headers=headers).status_code == 404
        assert client.delete(f"{URL}{address['id']}/", headers=headers).status_code == 404
        assert client.get(URL, headers=headers).json()["results"] == []
    assert _me_addresses(client, owner) == [address]


def test_addresses_need_a_valid_token(client, customer):
    address = _add(client, customer)
    for headers in ({}, stale_headers()):
        assert client.post(URL, json=_address(), headers=headers).status_code == 401
        assert client.patch(f"{URL}{address['id']}/", json={"city": "X"}, headers=headers).status_code == 401
        assert client.delete(f"{URL}{address['id']}/", headers=headers).status_code == 401
        assert client.get(URL, headers=headers).status_code == 401


def test_list_own_addresses(client, customer):
    _add(client, customer, line1="A")
    _add(client, customer, line1="B")
    body = client.get(URL, headers=auth_headers(customer)).json()
    assert body["count"] == 2 and body["next"] is None
    assert [a["line1"] for a in body["results"]] == ["A", "B"]


def test_at_most_twenty_addresses(client, customer):
    for n in range(20):
        _add(client, customer, line1=f"{n} Main Street")
    response = client.post(URL, json=_address(), headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()["detail"] == "You can save at most 20 addresses."


# --- issue 32 item 7: a Ghanaian address's region is one of the sixteen -------------------------------


def test_a_ghanaian_region_must_be_one_of_the_sixteen(client, customer):
    refused = client.post(URL, json=_address(state="Gotham"), headers=auth_headers(customer))
    assert refused.status_code == 400
    assert refused.json()["state"] == ["Choose one of Ghana's 16 regions, such as Greater Accra."]
    assert _me_addresses(client, customer) == []
    added = _add(client, customer, state="greater accra")
    assert added["state"] == "Greater Accra"
    patched = client.patch(f"{URL}{added['id']}/", json={"state": "Accra Central"}, headers=auth_headers(customer))
    assert patched.status_code == 400
    assert _me_addresses(client, customer)[0]["state"] == "Greater Accra"
    assert _add(client, customer, state="Maritime", country="Togo")["state"] == "Maritime"
