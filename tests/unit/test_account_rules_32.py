"""Issue 32 item 7: the last active admin stays, a Ghanaian address names one of the 16 regions,
and the commonest passwords are refused (services.users; real database, no mocks)."""

from __future__ import annotations

import pytest

from discount_deals import models
from discount_deals.services import ValidationFailed, users
from discount_deals.services.users import fields


def test_an_inactive_admin_may_be_demoted_but_not_the_last_active_one(session, make_user):
    admin, dormant = make_user(role="admin"), make_user(role="admin", is_active=False)
    actor = session.get(models.User, admin.id)
    assert users.change_role(session, actor, dormant.id, "customer").role == "customer"
    with pytest.raises(ValidationFailed) as caught:
        users.change_role(session, actor, admin.id, "seller")
    assert caught.value.code == "last_admin"
    assert session.get(models.User, admin.id).role == "admin"


@pytest.mark.parametrize(("sent", "stored"), [("Greater Accra", "Greater Accra"), ("  ashanti ", "Ashanti"),
                                              ("Bono East Region", "Bono East"), ("", "")])
def test_a_ghanaian_address_takes_one_of_the_sixteen_regions_or_none(session, customer, sent, stored):
    address = users.add_address(session, customer, {"line1": "1 Ring Rd", "city": "Accra", "country": "Ghana",
                                                    "state": sent})
    assert session.get(models.Address, address.id).state == stored


def test_an_unknown_region_is_refused_and_changes_nothing(session, customer):
    with pytest.raises(ValidationFailed) as caught:
        users.add_address(session, customer, {"line1": "1 Ring Rd", "city": "Accra", "country": "ghana",
                                               "state": "Gotham"})
    assert caught.value.code == "region_invalid" and list(caught.value.fields) == ["state"]
    assert users.addresses_of(session, customer) == []
    # Elsewhere a region stays free text.
    abroad = users.add_address(session, customer, {"line1": "1 Rue", "city": "Lome", "country": "Togo",
                                                   "state": "Maritime"})
    with pytest.raises(ValidationFailed) as caught:
        users.update_address(session, customer, abroad.id, {"country": "Ghana"})
    assert caught.value.code == "region_invalid"
    assert session.get(models.Address, abroad.id).country == "Togo"


@pytest.mark.parametrize("password", ["password", "PASSWORD", "qwerty", "12345678", "iloveyou"])
def test_the_commonest_passwords_are_refused(session, password):
    assert fields.password_problem(password) == fields.COMMON_PASSWORD
    with pytest.raises(ValidationFailed) as caught:
        users.register(session, {"first_name": "Kofi", "last_name": "Owusu", "username": "kofi",
                                 "phonenumber": "0241234567", "email": "kofi@example.com", "password": password,
                                 "date_of_birth": "1988-07-01", "gender": "male"})
    assert caught.value.code == "password_common"
    assert caught.value.fields == {"password": [fields.COMMON_PASSWORD]}


def test_the_common_password_list_is_bundled_with_its_source():
    listed = fields.common_passwords()
    assert len(listed) == 100 and "password" in listed and "secret123" not in listed and "deals-2026" not in listed
    assert fields.password_problem("Akwaaba-2026") is None
