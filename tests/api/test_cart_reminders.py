"""A cart that reminds (issue 34 item 3): a signed-in customer's cart untouched for an hour gets
one reminder, by SMS (through the Hubtel-shaped server) or email (through the real SMTP server),
never at night in Accra, at most one per cart in three days, only about what can still be bought,
and never to a customer who turned them off.

Every run passes ``now`` (a morning in Accra) and dates the cart's last touch from it, so that the
suite gives the same answers at any hour it runs."""

from __future__ import annotations

import re
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.models.base import utcnow
from discount_deals.services.messages.reminders import quiet_hours
from discount_deals.config.settings import get_settings
from discount_deals.worker import tasks

from ..builders.accounts import auth_headers
from ..support.mail import html_of, text_of
from ..builders.checkout import fill_cart
from ..builders.messaging import PUBLIC_URL, outbox, set_preferences

MORNING = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)  # 10:00 in Accra (GMT all year)
ITEMS = "/api/cart/cartitems/"
PHONE = "+233241234567"


@pytest.fixture
def ghs(messaging, use_settings):
    """A shop in cedis (whose symbol, GH₵, is not GSM-7)."""
    use_settings(DD_CURRENCY="GHS")
    return messaging


def cart_of(user: models.User) -> models.Cart:
    with session_scope() as session:
        return session.exec(select(models.Cart).where(models.Cart.user_id == user.id)).one()


def touched_at(user: models.User, moment: datetime) -> None:
    """Date the cart's last touch (the cart and its lines) at ``moment``."""
    cart = cart_of(user)
    with session_scope() as session:
        session.execute(update(models.Cart).where(models.Cart.id == cart.id).values(updated_at=moment))
        session.execute(update(models.CartItem).where(models.CartItem.cart_id == cart.id)
                        .values(updated_at=moment))


def remind(now: datetime) -> int:
    """What the worker's sweep does at ``now``."""
    return tasks.remind_carts(now)


def set_product(product: models.Product, **values) -> None:
    with session_scope() as session:
        session.execute(update(models.Product).where(models.Product.id == product.id).values(**values))


@pytest.fixture
def texter(make_user):
    return make_user(phonenumber="024 123 4567")


@pytest.fixture
def emailer(make_user):
    return make_user(phonenumber="")


def test_a_cart_untouched_an_hour_is_texted_once_through_hubtel(client, ghs, texter, make_product):
    rice = make_product(name="Royal Aroma Jasmine Rice 5kg", price="120.00", discount_price="99.50")
    oil = make_product(name="Frytol Oil 1L", price="32.40")
    fill_cart(client, auth_headers(texter), (rice, 2), (oil, 1))
    touched_at(texter, MORNING - timedelta(minutes=61))
    assert remind(MORNING) == 1
    assert remind(MORNING) == 0  # the next sweep: reminded already
    assert ghs.deliver().sent == 1
    [text] = ghs.texts.texts
    content = text["Content"]
    assert text["To"] == PHONE
    assert content.startswith("Discount Deals: Royal Aroma Jasmine Rice 5kg and 1 more item are still in your cart")
    assert "GHS 231.40" in content and f"Finish your order: {PUBLIC_URL}/cart" in content
    assert "$" not in content and "₵" not in content and content.isascii() and len(content) <= 160
    [message] = outbox(kind="cart_reminder")
    assert message.channel == "sms" and message.status == "sent" and message.user_id == texter.id
    assert cart_of(texter).reminded_at == MORNING


def test_an_emailed_reminder_lists_the_cart_with_its_links(client, ghs, emailer, make_product):
    rice = make_product(name="Jasmine Rice 5kg", price="120.00", discount_price="99.50")
    fill_cart(client, auth_headers(emailer), (rice, 2), (make_product(name="Milo 400g", price="45.00"), 1))
    touched_at(emailer, MORNING - timedelta(minutes=61))
    assert remind(MORNING) == 1
    ghs.deliver()
    [mail] = ghs.mailbox.wait_for(1)
    body, page = text_of(mail), html_of(mail)
    assert mail["To"] == emailer.email and mail["Subject"] == "Discount Deals: You left something in your cart"
    assert "Jasmine Rice 5kg × 2: GH₵199.00" in body and "Milo 400g × 1: GH₵45.00" in body
    assert "Total: GH₵244.00" in body and "$" not in body
    assert f"Finish your order: {PUBLIC_URL}/cart" in body and f'href="{PUBLIC_URL}/cart"' in page
    assert f"{PUBLIC_URL}/unsubscribe?token=" in body and "Stop these cart reminders by email" in body
    assert mail["List-Unsubscribe"].startswith(f"<{PUBLIC_URL}/api/notifications/unsubscribe/?token=")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_the_reminder_goes_the_way_order_updates_do_sms_first(client, messaging, make_user, make_product):
    both, by_email, none = (make_user(phonenumber="024 123 4567") for _ in range(3))
    set_preferences(both, order_updates="both")
    set_preferences(by_email, order_updates="email")
    set_preferences(none, order_updates="off")  # no order updates; cart reminders have their own switch
    for user in (both, by_email, none):
        fill_cart(client, auth_headers(user), (make_product(), 1))
        touched_at(user, MORNING - timedelta(hours=2))
    assert remind(MORNING) == 3
    sent = {m.user_id: (m.channel, m.recipient) for m in outbox(kind="cart_reminder")}
    assert sent == {both.id: ("sms", PHONE), by_email.id: ("email", by_email.email), none.id: ("email", none.email)}


def test_a_cart_touched_since_waits_another_hour(client, messaging, texter, make_product):
    fill_cart(client, auth_headers(texter), (make_product(), 1))
    touched_at(texter, MORNING - timedelta(minutes=59))
    assert remind(MORNING) == 0  # not an hour yet
    touched_at(texter, MORNING - timedelta(minutes=10))  # touched again meanwhile
    assert remind(MORNING + timedelta(minutes=49)) == 0
    assert remind(MORNING + timedelta(minutes=51)) == 1
    assert [m.kind for m in outbox()] == ["cart_reminder"]


@pytest.mark.parametrize("change", ["add", "quantity", "remove", "clear"])
def test_every_change_of_the_cart_is_a_touch(client, messaging, texter, make_product, change):
    headers = auth_headers(texter)
    rice, oil = make_product(stock=9), make_product(stock=9)
    fill_cart(client, headers, (rice, 1), (oil, 1))
    touched_at(texter, MORNING - timedelta(days=1))
    line = client.get(ITEMS, headers=headers).json()["results"][0]
    before = utcnow()
    if change == "add":
        response = client.post(ITEMS, json={"product": rice.id, "quantity": 1}, headers=headers)
    elif change == "quantity":
        response = client.patch(f"{ITEMS}{line['id']}/", json={"product": line["product"]["id"], "quantity": 3},
                                headers=headers)
    elif change == "remove":
        response = client.delete(f"{ITEMS}{line['id']}/", headers=headers)
    else:
        response = client.delete(f"/api/cart/{cart_of(texter).id}/clear/", headers=headers)
    assert response.status_code < 300, response.text
    assert cart_of(texter).updated_at >= before


def test_a_refused_change_is_no_touch(client, messaging, texter, make_product):
    headers = auth_headers(texter)
    fill_cart(client, headers, (make_product(stock=2), 1))
    touched_at(texter, MORNING - timedelta(days=1))
    line = client.get(ITEMS, headers=headers).json()["results"][0]
    refused = client.patch(f"{ITEMS}{line['id']}/", json={"product": line["product"]["id"], "quantity": 5},
                           headers=headers)
    assert refused.status_code == 400
    assert cart_of(texter).updated_at == MORNING - timedelta(days=1)


def test_never_twice_in_three_days(client, messaging, texter, make_product):
    fill_cart(client, auth_headers(texter), (make_product(), 1))
    touched_at(texter, MORNING - timedelta(minutes=61))
    assert remind(MORNING) == 1
    touched_at(texter, MORNING + timedelta(hours=1))  # back, then gone again
    assert remind(MORNING + timedelta(hours=3)) == 0
    assert remind(MORNING + timedelta(days=2, hours=23)) == 0
    assert remind(MORNING + timedelta(days=3, minutes=1)) == 1
    assert len(outbox(kind="cart_reminder")) == 2
    # Reminded about its last touch: nothing more until it is touched again.
    assert remind(MORNING + timedelta(days=6, minutes=2)) == 0


def test_nothing_is_sent_at_night_in_accra(client, messaging, texter, make_product):
    fill_cart(client, auth_headers(texter), (make_product(), 1))
    evening = MORNING.replace(hour=20)
    touched_at(texter, evening)
    assert quiet_hours(evening.replace(hour=21, minute=30)) and not quiet_hours(MORNING.replace(hour=7))
    assert remind(evening.replace(hour=21, minute=30)) == 0
    assert remind(evening + timedelta(hours=10, minutes=59)) == 0  # 06:59 the next day
    assert outbox() == []
    assert remind(evening + timedelta(hours=11)) == 1  # 07:00
    assert cart_of(texter).reminded_at == evening + timedelta(hours=11)


def test_products_no_longer_sold_are_left_out(client, ghs, emailer, make_user, make_product):
    rice, hidden = make_product(name="Rice", price="50.00"), make_product(name="Hidden Soap", price="5.00")
    sold_out, withdrawn = make_product(name="Sold Out Sugar", price="9.00"), make_product(name="Gone Gari")
    fill_cart(client, auth_headers(emailer), (hidden, 1), (rice, 1), (sold_out, 1), (withdrawn, 1))
    other = make_user(phonenumber="")
    fill_cart(client, auth_headers(other), (hidden, 1), (sold_out, 1), (withdrawn, 1))
    set_product(hidden, status="inactive")
    set_product(sold_out, stock=0)
    set_product(withdrawn, is_available=False)
    touched_at(emailer, MORNING - timedelta(hours=2))
    touched_at(other, MORNING - timedelta(hours=2))
    assert remind(MORNING) == 1  # a cart of only such products gets nothing
    ghs.deliver()
    [mail] = ghs.mailbox.wait_for(1)
    body = text_of(mail)
    assert mail["To"] == emailer.email and "You left this in your cart:" in body and "Rice × 1: GH₵50.00" in body
    assert "Total: GH₵50.00" in body
    assert not any(name in body for name in ("Hidden Soap", "Sold Out Sugar", "Gone Gari"))
    assert cart_of(other).reminded_at is None


def test_the_unsubscribe_link_turns_reminders_off(client, messaging, emailer, make_product):
    fill_cart(client, auth_headers(emailer), (make_product(), 1))
    touched_at(emailer, MORNING - timedelta(hours=2))
    remind(MORNING)
    messaging.deliver()
    [mail] = messaging.mailbox.wait_for(1)
    token = re.search(r"/unsubscribe\?token=(\S+)", text_of(mail)).group(1)
    answer = client.post(f"/api/notifications/unsubscribe/?token={token}")
    assert answer.status_code == 200 and "cart reminders" in answer.json()["detail"]
    with session_scope() as session:
        assert session.get(models.NotificationPreference, emailer.id).cart_reminders is False
    touched_at(emailer, MORNING + timedelta(hours=1))  # touched again, and left again
    assert remind(MORNING + timedelta(days=4)) == 0
    assert client.get("/api/users/me/notifications/", headers=auth_headers(emailer)).json()["cart_reminders"] is False


def test_customers_who_turned_them_off_get_none(client, messaging, texter, make_product):
    headers = auth_headers(texter)
    assert client.get("/api/users/me/notifications/", headers=headers).json()["cart_reminders"] is True
    refused = client.patch("/api/users/me/notifications/", json={"cart_reminders": "maybe"}, headers=headers)
    assert refused.status_code == 400 and "cart_reminders" in refused.json()
    assert client.get("/api/users/me/notifications/", headers=headers).json()["cart_reminders"] is True
    done = client.patch("/api/users/me/notifications/", json={"cart_reminders": False}, headers=headers)
    assert done.status_code == 200 and done.json()["cart_reminders"] is False
    with session_scope() as session:
        assert session.get(models.NotificationPreference, texter.id).cart_reminders is False
    fill_cart(client, headers, (make_product(), 1))
    touched_at(texter, MORNING - timedelta(hours=2))
    assert remind(MORNING) == 0 and outbox() == []


def test_inactive_accounts_and_the_setting_at_zero_get_none(client, messaging, texter, make_user, make_product,
                                                           monkeypatch):
    closed = make_user(phonenumber="")
    for user in (texter, closed):
        fill_cart(client, auth_headers(user), (make_product(), 1))
        touched_at(user, MORNING - timedelta(minutes=45))
    with session_scope() as session:
        session.execute(update(models.User).where(models.User.id == closed.id).values(is_active=False))
    monkeypatch.setenv("DD_CART_REMINDER_MINUTES", "0")
    get_settings.cache_clear()
    assert remind(MORNING + timedelta(hours=2)) == 0
    monkeypatch.setenv("DD_CART_REMINDER_MINUTES", "30")
    get_settings.cache_clear()
    assert remind(MORNING) == 1  # 45 minutes: due after 30
    assert [m.user_id for m in outbox(kind="cart_reminder")] == [texter.id]


def test_guests_have_no_server_cart_to_remind(client, messaging, make_product):
    guest = client.post(ITEMS, json={"product": make_product().id, "quantity": 1})
    assert guest.status_code == 401
    with session_scope() as session:
        assert session.exec(select(models.Cart)).all() == []
    assert remind(MORNING) == 0 and outbox() == []


def test_two_sweeps_at_once_send_one_reminder(client, messaging, texter, make_product):
    fill_cart(client, auth_headers(texter), (make_product(), 1))
    touched_at(texter, MORNING - timedelta(hours=2))
    start, counts = threading.Barrier(2), []

    def sweep():
        start.wait()
        counts.append(remind(MORNING))

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(counts) == [0, 1]
    assert messaging.deliver().sent == 1
    assert len(messaging.texts.texts) == 1 and len(outbox(kind="cart_reminder")) == 1


def test_the_sweep_looks_at_carts_once_a_minute(client, messaging, texter, make_product, monkeypatch):
    fill_cart(client, auth_headers(texter), (make_product(), 1))
    now = utcnow()
    touched_at(texter, now - timedelta(hours=2))
    monkeypatch.setattr(tasks, "_reminders_run_at", time.monotonic())  # this process just looked
    assert tasks.remind_carts_now_and_then() == 0 and outbox() == []
    monkeypatch.setattr(tasks, "_reminders_run_at", time.monotonic() - tasks.REMINDERS_EVERY_SECONDS - 1)
    tasks.remind_carts_now_and_then()
    expected = 0 if quiet_hours(utcnow()) or quiet_hours(now) else 1  # the suite may run at night
    assert len(outbox(kind="cart_reminder")) == expected


def test_a_reminder_offers_no_more_than_the_stock_left(client, ghs, emailer, make_product):
    """The cart page said "Only 2 left"; the reminder offered "Oil × 5: GH₵100.00"."""
    oil = make_product(name="Reminder Oil", price="20.00", stock=9)
    fill_cart(client, auth_headers(emailer), (oil, 5))
    set_product(oil, stock=2)
    touched_at(emailer, MORNING - timedelta(minutes=61))
    assert remind(MORNING) == 1
    ghs.deliver()
    [mail] = ghs.mailbox.wait_for(1)
    body = text_of(mail)
    assert "Reminder Oil × 2: GH₵40.00" in body and "Total: GH₵40.00" in body and "× 5" not in body
