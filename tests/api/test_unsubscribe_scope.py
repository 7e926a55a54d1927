"""What an email's unsubscribe link of order updates stops, and where return updates go (probe 65):
a customer whose order updates come by SMS to the order's number (no mobile number on the
profile) heard about their return by email, and the link in that email turned the texts off too."""

from __future__ import annotations

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.messages.preferences import ORDER_CHOICES
from discount_deals.services.messages.templates import RETURN_KINDS
from discount_deals.services.messages.unsubscribe import make_token

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, fill_cart, place
from ..builders.messaging import outbox, set_preferences
from ..builders.payments import minor, post_webhook
from ..builders.returns import ask_return, momo_order, step
from ..builders.shop import add_address

ORDER_NUMBER = "+233551112223"
PREFERENCES = "/api/users/me/notifications/"


def _unsubscribe_from_order_emails(client, user) -> None:
    answer = client.post(f"/api/notifications/unsubscribe/?token={make_token(user.id, 'orders')}")
    assert answer.status_code == 200 and answer.json()["detail"] == "You will no longer get order updates by email."


def _heard_of(client, user, product, body: dict) -> list[tuple[str, str]]:
    """Where the messages of one new order (placed, and paid when by mobile money) went."""
    fill_cart(client, auth_headers(user), (product, 1))
    order = place(client, auth_headers(user), body)
    if order["payment_method"] == "mobile_money":
        post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    return sorted({(m.channel, m.recipient) for m in outbox(subject_id=order["id"])})


def test_return_updates_go_where_the_orders_updates_go(client, messaging, make_user, make_product, admin_headers):
    user = make_user(phonenumber="")
    product = make_product(price="20.00", stock=10)
    order = momo_order(client, user, admin_headers, (product, 1), phone="055 111 2223")
    assert {(m.channel, m.recipient) for m in outbox(subject_id=order["id"])} == {("sms", ORDER_NUMBER)}
    ret = ask_return(client, user, order["id"], [(product.id, 1)])
    step(client, admin_headers, ret["id"], "approve")
    sent = [(m.kind, m.channel, m.recipient) for m in outbox(subject_id=order["id"]) if m.kind in RETURN_KINDS]
    assert sent == [("return_requested", "sms", ORDER_NUMBER), ("return_approved", "sms", ORDER_NUMBER)]


def test_unsubscribing_from_order_emails_keeps_the_texts_to_the_orders_number(client, messaging, make_user,
                                                                              make_product):
    # The default for a profile without a mobile number: SMS to the order's number, else email.
    user = make_user(phonenumber="")
    add_address(user, is_default=True)
    product = make_product(price="20.00", stock=10)
    assert _heard_of(client, user, product, {}) == [("email", user.email)]  # cash, no number anywhere
    _unsubscribe_from_order_emails(client, user)
    assert _heard_of(client, user, product, {**MOMO, "phone": "055 111 2223"}) == [("sms", ORDER_NUMBER)]
    assert _heard_of(client, user, product, {}) == []  # no more emails
    shown = client.get(PREFERENCES, headers=auth_headers(user)).json()
    # Shown as SMS (texts go, to an order's number): "None" is a choice that stops them.
    assert (shown["order_updates"], shown["sms_number"]) == ("sms", None)


def test_unsubscribing_from_order_emails_of_both_keeps_the_texts(client, messaging, make_user, make_product):
    both, by_email = make_user(phonenumber="+233241234567"), make_user(phonenumber="+233241234568")
    set_preferences(both, order_updates="both")
    set_preferences(by_email, order_updates="email")
    product = make_product(price="20.00", stock=10)
    for user in (both, by_email):
        add_address(user, is_default=True)
        _unsubscribe_from_order_emails(client, user)
    assert _heard_of(client, both, product, {}) == [("sms", "+233241234567")]
    assert client.get(PREFERENCES, headers=auth_headers(both)).json()["order_updates"] == "sms"
    assert _heard_of(client, by_email, product, {}) == []
    assert client.get(PREFERENCES, headers=auth_headers(by_email)).json()["order_updates"] == "off"
    with session_scope() as session:
        assert session.get(models.NotificationPreference, by_email.id).order_updates == "off"
    # A choice made later replaces it, as any choice does.
    assert client.patch(PREFERENCES, json={"order_updates": "email"}, headers=auth_headers(both)).status_code == 200
    assert _heard_of(client, both, product, {}) == [("email", both.email)]


def test_a_save_that_sends_every_choice_back_keeps_the_texts(client, messaging, make_user, make_product):
    """The profile (like the original client) sends every choice back with each save: the choice an
    unsubscribed customer without a number of their own is shown, sent back with a change of cart
    reminders, stopped the texts their orders' numbers get. No client may choose "sms_only"; "None"
    chosen stops the texts (a review found "None" read as the choice sent back, texts going on)."""
    user = make_user(phonenumber="")
    add_address(user, is_default=True)
    product = make_product(price="20.00", stock=10)
    _unsubscribe_from_order_emails(client, user)
    shown = client.get(PREFERENCES, headers=auth_headers(user)).json()
    assert shown["order_updates"] in ORDER_CHOICES
    sent_back = {**{name: shown[name] for name in ("order_updates", "deal_alerts", "account_email")},
                 "cart_reminders": False}
    answer = client.patch(PREFERENCES, json=sent_back, headers=auth_headers(user))
    assert answer.status_code == 200 and answer.json()["order_updates"] == "sms"
    assert _heard_of(client, user, product, {**MOMO, "phone": "055 111 2223"}) == [("sms", ORDER_NUMBER)]
    refused = client.patch(PREFERENCES, json={"order_updates": "sms_only"}, headers=auth_headers(user))
    assert refused.status_code == 400 and "order_updates" in refused.json()
    assert client.get(PREFERENCES, headers=auth_headers(user)).json()["order_updates"] == "sms"
    none = client.patch(PREFERENCES, json={**sent_back, "order_updates": "off"}, headers=auth_headers(user))
    assert none.status_code == 200 and none.json()["order_updates"] == "off"
    with session_scope() as session:
        assert session.get(models.NotificationPreference, user.id).order_updates == "off"
    assert _heard_of(client, user, product, {**MOMO, "phone": "055 111 2223"}) == []


def test_the_data_export_shows_an_email_unsubscribe_as_the_profile_does(client, make_user):
    # The stored "texts only" is a detail of the shop's: the profile and the API say "sms".
    user = make_user(phonenumber="+233241234567")
    set_preferences(user, order_updates="both")
    _unsubscribe_from_order_emails(client, user)
    exported = client.get("/api/users/me/export/", headers=auth_headers(user)).json()["notification_preferences"]
    assert exported["order_updates"] == client.get(PREFERENCES, headers=auth_headers(user)).json()["order_updates"]
    assert exported["order_updates"] == "sms"


def test_the_data_export_shows_a_default_order_choice_as_the_profile_does(client, make_user):
    # Review 79: a preferences row with no order choice yet exported "" where the profile says "sms".
    user = make_user(phonenumber="+233241234567")
    set_preferences(user, cart_reminders=False)
    exported = client.get("/api/users/me/export/", headers=auth_headers(user)).json()["notification_preferences"]
    assert exported["order_updates"] == client.get(PREFERENCES, headers=auth_headers(user)).json()["order_updates"]
    assert exported["order_updates"] == "sms" and exported["cart_reminders"] is False
