"""Read-then-write races on PostgreSQL found by probing (SQLite serialises writers, so they cannot
happen there; see test_races_postgres.py for how each interleaving is made certain).

- Two registrations, or two username changes, at once as "Kofi" and "kofi": one account has it
  (the unique index on lower(username), migration 36u), the other hears the 400 it would alone.
- "Pay in cash instead" while a late mobile-money payment is applied: the order's row is locked
  for the switch, so a paid order is never told to pay cash (services/payments/changes.py).
- An edit of a row another request deletes meanwhile: 404, as a moment later, not a 500
  (``rows.by_id(for_update=True)``, the cart line's lock).
- A user's addresses change one at a time (the user's row lock): two made default at once are
  both answered 200, and the count limit holds under parallel adds.
"""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import func
from sqlmodel import select

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.db import session_scope
from discount_deals.services.users.fields import MAX_ADDRESSES

from ..builders.accounts import auth_headers, image_bytes, profile_id_of, registration
from ..builders.checkout import fill_cart, order_row, place
from ..builders.payments import WEBHOOK, minor, signed
from ..builders.shop import add_address
from .test_races_postgres import row_held, start_together

pytestmark = pytest.mark.skipif(
    get_settings().is_sqlite,
    reason="SQLite serialises writers (one write lock): run under scripts/with-postgres.sh (make test-postgres)",
)
TAKEN = "A user with this username already exists."


def _usernames(key: str) -> list[str]:
    with session_scope() as session:
        return list(session.exec(select(models.User.username).where(func.lower(models.User.username) == key)).all())


def test_registrations_at_once_in_two_cases_make_one_account(api_app, client, use_settings):
    use_settings(DD_REGISTER_MAX_ATTEMPTS="1000")
    names = ["Kofi", "kofi", "KOFI", "kOfI"]
    calls = [lambda own, n=n, name=name: own.post("/api/users/register/", json=registration(
        username=name, email=f"kofi{n}@example.com")) for n, name in enumerate(names)]
    answers = start_together(api_app, calls)()
    assert Counter(answer.status_code for answer in answers) == {201: 1, 400: 3}, [a.text for a in answers]
    assert all(a.json()["username"] == [TAKEN] for a in answers if a.status_code == 400)
    assert len(_usernames("kofi")) == 1


def test_registrations_at_once_with_one_email_name_the_email(api_app, client, use_settings):
    use_settings(DD_REGISTER_MAX_ATTEMPTS="1000")
    emails = ["Esi@Example.com", "esi@example.com", "ESI@EXAMPLE.COM"]
    calls = [lambda own, n=n, email=email: own.post("/api/users/register/", json=registration(
        username=f"esi{n}", email=email)) for n, email in enumerate(emails)]
    answers = start_together(api_app, calls)()
    assert Counter(answer.status_code for answer in answers) == {201: 1, 400: 2}, [a.text for a in answers]
    assert all(a.json()["email"] == ["A user with this email already exists."]
               for a in answers if a.status_code == 400)


def test_username_changes_at_once_to_one_name_in_two_cases(api_app, client, make_user):
    users = [make_user() for _ in range(3)]
    calls = [lambda own, user=user, name=name: own.patch(f"/api/users/users/{user.id}/", json={"username": name},
                                                          headers=auth_headers(user))
             for user, name in zip(users, ["Yaw", "yaw", "YAW"], strict=True)]
    answers = start_together(api_app, calls)()
    assert Counter(answer.status_code for answer in answers) == {200: 1, 400: 2}, [a.text for a in answers]
    assert len(_usernames("yaw")) == 1


def test_pay_in_cash_after_a_late_payment_took_the_order_is_refused(api_app, client, make_user, make_product):
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    fill_cart(client, headers, (make_product(price="20.00", stock=5), 1))
    order = place(client, headers, {"payment_method": "mobile_money", "phone": "024 123 0000"})  # declined
    assert order["payment_status"] == "failed"
    raw, signature = signed("charge.success", order["payment_reference"], minor(order["total"]))
    with row_held(models.Order, order["id"]) as wait_for:
        hook = start_together(api_app, [lambda own: own.post(WEBHOOK, content=raw, headers=signature)])
        wait_for(1)  # the late payment queues first on the order's row
        switch = start_together(api_app, [lambda own: own.post(
            f"/api/orders/{order['id']}/payment-method/", json={"payment_method": "cash_on_delivery"},
            headers=headers)])
        wait_for(2)
    (paid,) = hook()
    (switched,) = switch()
    assert paid.json()["outcome"] == "paid"
    assert switched.status_code == 409, switched.text
    row = order_row(order["id"])
    assert (row.payment_method, row.payment_status) == ("mobile_money", "paid")


def _deleted_then_edited(api_app, model, row_id, delete, edit):
    with row_held(model, row_id) as wait_for:
        deleting = start_together(api_app, [delete])
        wait_for(1)
        editing = start_together(api_app, [edit])
        wait_for(2)
    return deleting()[0], editing()[0]


def test_an_address_edited_while_it_is_deleted_is_not_found(api_app, client, make_user):
    user = make_user()
    headers = auth_headers(user)
    add_address(user, is_default=True, line1="Home")
    other = add_address(user, line1="Work")
    url = f"/api/users/addresses/{other.id}/"
    gone, edited = _deleted_then_edited(api_app, models.Address, other.id,
                                        lambda own: own.delete(url, headers=headers),
                                        lambda own: own.patch(url, json={"line1": "Office"}, headers=headers))
    assert (gone.status_code, edited.status_code) == (204, 404), edited.text


def test_a_product_edited_while_it_is_deleted_is_not_found(api_app, client, make_product, admin_headers):
    product = make_product(stock=5)
    url = f"/api/products/{product.id}/"
    gone, edited = _deleted_then_edited(api_app, models.Product, product.id,
                                        lambda own: own.delete(url, headers=admin_headers),
                                        lambda own: own.patch(url, json={"stock": 7}, headers=admin_headers))
    assert gone.status_code in (200, 204) and edited.status_code == 404, edited.text
    with session_scope() as session:
        assert session.get(models.Product, product.id) is None


def test_a_cart_line_changed_while_checkout_takes_it_is_not_found(api_app, client, make_user, make_product):
    product = make_product(stock=10)
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    fill_cart(client, headers, (product, 1))
    item_id = client.get("/api/cart/cartitems/", headers=headers).json()["results"][0]["id"]
    placed, patched = _deleted_then_edited(
        api_app, models.CartItem, item_id, lambda own: own.post("/api/orders/checkout/", json={}, headers=headers),
        lambda own: own.patch(f"/api/cart/cartitems/{item_id}/", json={"product": product.id, "quantity": 3},
                              headers=headers))
    assert (placed.status_code, patched.status_code) == (201, 404), patched.text
    assert placed.json()["items"][0]["quantity"] == 1


@pytest.mark.parametrize("change", ["lower", "remove"])
def test_a_cart_change_confirmed_while_a_checkout_waits_is_in_the_order_or_refused(api_app, client, make_user,
                                                                                   make_product, change):
    """A checkout read the cart unlocked, then waited for a product's lock (another shopper's
    checkout, a busy flash sale): a change confirmed meanwhile (quantity 1, or the line removed)
    was lost, and the old quantity charged. The checkout takes the cart's row as a change does."""
    product = make_product(price="10.00", stock=10)
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    fill_cart(client, headers, (product, 3))
    item_id = client.get("/api/cart/cartitems/", headers=headers).json()["results"][0]["id"]
    with row_held(models.Product, product.id) as wait_for:
        placing = start_together(api_app, [lambda own: own.post("/api/orders/checkout/", json={}, headers=headers)])
        wait_for(1)  # the checkout waits for the product's row
        changing = start_together(api_app, [
            (lambda own: own.patch(f"/api/cart/cartitems/{item_id}/", json={"quantity": 1}, headers=headers))
            if change == "lower" else (lambda own: own.delete(f"/api/cart/cartitems/{item_id}/", headers=headers))])
    placed, changed = placing()[0], changing()[0]
    # The checkout took the cart first: the change comes after it and finds no line.
    assert (placed.status_code, changed.status_code) == (201, 404), (placed.text, changed.text)
    assert placed.json()["items"][0]["quantity"] == 3
    with session_scope() as session:
        assert session.get(models.Product, product.id).stock == 7


def _pictures_on_disk() -> set[str]:
    root = get_settings().media_dir / "profiles"
    return {path.name for path in root.glob("*.webp")} if root.exists() else set()


def test_two_picture_uploads_at_once_take_turns_and_leave_one_file(api_app, client, make_user):
    """Both read the profile unlocked: both answered 200, the second overwrote the first without
    deleting its file, which stayed public with no row naming it (a probe)."""
    user = make_user()
    headers = auth_headers(user)
    profile_id = profile_id_of(user)
    url = f"/api/users/profiles/{profile_id}/"
    before = _pictures_on_disk()
    calls = [lambda own, c=c: own.patch(url, files={"profile_image": ("a.png", image_bytes(colour=c))},
                                        headers=headers) for c in ((1, 2, 3), (4, 5, 6))]
    with row_held(models.Profile, profile_id) as wait_for:
        finish = start_together(api_app, calls)
        wait_for(2)
    answers = finish()
    assert [answer.status_code for answer in answers] == [200, 200], [answer.text for answer in answers]
    named = client.get("/api/users/me/", headers=headers).json()["profile"]["profile_image"].rsplit("/", 1)[1]
    assert _pictures_on_disk() - before == {named}


def _defaults(user_id: str) -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(models.Address)
                            .where(models.Address.user_id == user_id, models.Address.is_default)).one()


def test_two_addresses_made_default_at_once_are_both_answered(api_app, client, make_user):
    user = make_user()
    headers = auth_headers(user)
    current = add_address(user, is_default=True, line1="C")
    a, b = add_address(user, line1="A"), add_address(user, line1="B")
    calls = [lambda own, x=x: own.patch(f"/api/users/addresses/{x.id}/", json={"is_default": True}, headers=headers)
             for x in (a, b)]
    with row_held(models.Address, current.id) as wait_for:
        finish = start_together(api_app, calls)
        wait_for(2)
    answers = finish()
    assert [answer.status_code for answer in answers] == [200, 200], [answer.text for answer in answers]
    assert _defaults(user.id) == 1


def test_the_address_limit_holds_under_parallel_adds(api_app, client, make_user):
    user = make_user()
    headers = auth_headers(user)
    for n in range(MAX_ADDRESSES - 1):
        add_address(user, is_default=n == 0, line1=f"{n} Road")
    body = {"line1": "Last Road", "city": "Accra", "country": "Ghana"}
    with row_held(models.User, user.id) as wait_for:
        finish = start_together(api_app, [lambda own: own.post("/api/users/addresses/", json=body,
                                                                headers=headers)] * 4)
        wait_for(4)  # each has been asked in and waits to count the addresses
    answers = finish()
    assert Counter(answer.status_code for answer in answers) == {201: 1, 400: 3}, [a.text for a in answers]
    with session_scope() as session:
        count = session.exec(select(func.count()).select_from(models.Address)
                             .where(models.Address.user_id == user.id)).one()
    assert count == MAX_ADDRESSES


def test_a_line_changed_while_the_same_product_is_added_does_not_deadlock(api_app, client, make_user, make_product):
    """An add locks the cart, then its line; a change locked the line, then the cart (its touch):
    with the add first in the cart's queue, each waited for the other and PostgreSQL killed one
    (a 503). A change takes the cart first now, so they queue."""
    product = make_product(stock=10)
    user = make_user()
    headers = auth_headers(user)
    fill_cart(client, headers, (product, 1))
    item_id = client.get("/api/cart/cartitems/", headers=headers).json()["results"][0]["id"]
    with session_scope() as session:
        cart_id = session.exec(select(models.Cart.id).where(models.Cart.user_id == user.id)).one()
    with row_held(models.Cart, cart_id) as wait_for:
        adding = start_together(api_app, [lambda own: own.post(
            "/api/cart/cartitems/", json={"product": product.id, "quantity": 1}, headers=headers)])
        wait_for(1)  # the add waits first for the cart
        changing = start_together(api_app, [lambda own: own.patch(
            f"/api/cart/cartitems/{item_id}/", json={"product": product.id, "quantity": 5}, headers=headers)])
        wait_for(2)
    (added,) = adding()
    (changed,) = changing()
    assert (added.status_code, changed.status_code) == (201, 200), (added.text, changed.text)
    with session_scope() as session:
        assert session.get(models.CartItem, item_id).quantity == 5  # the change came last


def test_a_locked_read_sees_the_row_as_it_stands_now(client, make_product):
    """rows.found(for_update=True) reads the row again under its lock, even when the session holds
    it already: a write between a plain read and the locked one is not hidden by the identity map."""
    from discount_deals.services import rows

    product = make_product(stock=5)
    with session_scope() as session:
        held = session.get(models.Product, product.id)
        assert held.stock == 5
        with session_scope() as other:
            other.get(models.Product, product.id).stock = 9  # committed meanwhile
        fresh = rows.found(session, models.Product, product.id, "Product not found.", for_update=True)
        assert fresh is held and fresh.stock == 9
