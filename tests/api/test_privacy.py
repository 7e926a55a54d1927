"""Issue 32, item 16: a customer downloads their data (JSON) and closes their account; the
orders stay, anonymised, for the books."""

from __future__ import annotations

from sqlmodel import select

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, auth_headers, image_bytes, new_user, profile_id_of, registration, reload_user
from ..builders.checkout import fill_cart, order_row, place
from ..builders.shop import add_address

EXPORT, CLOSE = "/api/users/me/export/", "/api/users/me/close/"


def _delivered_order(client, headers, customer, make_product, admin_headers) -> dict:
    add_address(customer, is_default=True, line1="7 Kojo Thompson Rd")
    fill_cart(client, headers, (make_product(name="Ideal Milk", price="20.00", stock=5), 2))
    order = place(client, headers)
    for status in ("processing", "shipped", "delivered"):
        assert client.patch(f"/api/orders/{order['id']}/", json={"status": status},
                            headers=admin_headers).status_code == 200
    return order


def test_the_export_holds_what_the_shop_keeps(client, customer, customer_headers, make_product, admin_headers):
    order = _delivered_order(client, customer_headers, customer, make_product, admin_headers)
    answer = client.get(EXPORT, headers=customer_headers)
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].startswith('attachment; filename="discount-deals-data-')
    data = answer.json()
    assert data["account"]["email"] == customer.email
    assert [a["line1"] for a in data["addresses"]] == ["7 Kojo Thompson Rd"]
    (kept,) = data["orders"]
    assert (kept["id"], kept["status"], kept["total"]) == (order["id"], "delivered", order["total"])
    assert kept["items"][0]["name"] == "Ideal Milk" and kept["items"][0]["quantity"] == 2
    assert client.get(EXPORT).status_code == 401


def test_closing_erases_the_person_and_keeps_the_orders(client, customer, customer_headers, make_product,
                                                         admin_headers):
    order = _delivered_order(client, customer_headers, customer, make_product, admin_headers)
    wrong = client.post(CLOSE, json={"password": "not-it"}, headers=customer_headers)
    assert wrong.status_code == 400 and "password" in wrong.json()
    with session_scope() as session:
        assert session.get(models.User, customer.id).is_active

    assert client.post(CLOSE, json={"password": "secret123"}, headers=customer_headers).status_code == 204
    with session_scope() as session:
        user = session.get(models.User, customer.id)
        assert (user.is_active, user.first_name, user.phonenumber) == (False, "", "")
        assert user.email.endswith("@deleted.invalid") and customer.email not in user.email
        assert session.exec(select(models.Address).where(models.Address.user_id == customer.id)).all() == []
    row = order_row(order["id"])
    assert str(row.total) == order["total"] and row.status == "delivered"
    assert row.address == {"state": "Greater Accra", "country": "Ghana"} and row.contact_phone is None
    # Every token is retired; the email is free for a new account, the old password opens nothing.
    assert client.get("/api/users/me/", headers=customer_headers).status_code == 401
    login = client.post("/api/auth/token/", json={"email": customer.email, "password": "secret123"})
    assert login.status_code in (400, 401)


def test_an_order_on_its_way_or_an_admin_keeps_the_account(client, customer, customer_headers, make_product,
                                                            admin, admin_headers):
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(price="20.00", stock=5), 1))
    place(client, customer_headers)
    refused = client.post(CLOSE, json={"password": "secret123"}, headers=customer_headers)
    assert refused.status_code == 409
    assert client.post(CLOSE, json={"password": "secret123"}, headers=auth_headers(admin)).status_code == 409
    with session_scope() as session:
        assert session.get(models.User, customer.id).is_active and session.get(models.User, admin.id).is_active


def test_bad_bodies_change_nothing(client, customer, customer_headers):
    for body in ({}, {"password": 5}, [], None):
        assert client.post(CLOSE, json=body, headers=customer_headers).status_code == 400
    assert client.post(CLOSE, json={"password": "secret123"}).status_code == 401
    with session_scope() as session:
        assert session.get(models.User, customer.id).is_active


def test_nobody_can_take_a_closing_accounts_placeholders_first(client, customer, customer_headers):
    """A closed account is renamed to placeholders; an account holding them first made the closing
    fail (409) for good. No account may take them: not by registering, nor by a profile change."""
    squats = ({"email": f"deleted-{customer.id}@deleted.invalid"}, {"username": f"deleted:{customer.id}"})
    for squat in squats:
        taken = client.post("/api/users/register/", json=registration(**squat))
        assert taken.status_code == 400 and list(squat)[0] in taken.json()
    other = new_user()
    for squat in squats:
        changed = client.patch(f"/api/users/users/{other.id}/", json={**squat, "current_password": PASSWORD},
                               headers=auth_headers(other))
        assert changed.status_code == 400
        assert (reload_user(other.id).email, reload_user(other.id).username) == (other.email, other.username)
    assert client.post(CLOSE, json={"password": PASSWORD}, headers=customer_headers).status_code == 204
    closed = reload_user(customer.id)
    assert (closed.email, closed.username) == (f"deleted-{customer.id}@deleted.invalid", f"deleted:{customer.id}")


def test_a_refused_closing_keeps_the_picture(client, customer, customer_headers):
    """The picture was deleted before the account's row was written: when that write was refused,
    the profile the customer still had pointed at a file that was gone."""
    uploaded = client.patch(f"/api/users/profiles/{profile_id_of(customer)}/", headers=customer_headers,
                            files={"profile_image": ("me.png", image_bytes("PNG"), "image/png")})
    url = uploaded.json()["profile_image"]
    picture = get_settings().media_dir / url.split("/api/media/", 1)[1]
    new_user(username=f"deleted:{customer.id}")  # make_user skips the rules: the row's write fails
    assert client.post(CLOSE, json={"password": PASSWORD}, headers=customer_headers).status_code == 409
    assert reload_user(customer.id).is_active
    assert client.get("/api/users/me/", headers=customer_headers).json()["profile"]["profile_image"] == url
    assert picture.is_file()


def test_a_closed_account_is_never_reopened_nor_promoted(client, customer, customer_headers, admin, admin_headers):
    """A closed account reactivated and made admin counted as the active admin that let the last
    real one step down: the shop was left with an admin nobody can sign in as."""
    assert client.post(CLOSE, json={"password": PASSWORD}, headers=customer_headers).status_code == 204
    admin_url, account_url = f"/api/users/admin/users/{customer.id}/", f"/api/users/users/{customer.id}/"
    for url, change in ((admin_url, {"is_active": True}), (admin_url, {"role": "admin"}),
                        (account_url, {"email": "back@example.com"})):
        refused = client.patch(url, json=change, headers=admin_headers)
        assert refused.status_code == 409 and refused.json()["code"] == "account_closed", refused.text
    with session_scope() as session:
        closed = session.get(models.User, customer.id)
        assert (closed.is_active, closed.role, closed.email.endswith("@deleted.invalid")) == (False, "customer", True)
    last = client.patch(f"/api/users/admin/users/{admin.id}/", json={"role": "customer"}, headers=admin_headers)
    assert last.status_code == 400 and reload_user(admin.id).role == "admin"
