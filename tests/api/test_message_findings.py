"""Messages, found by a probe: who hears of a password change, which accounts hear of a paused
login, texts that stay one GSM-7 SMS whatever an admin typed, and a mail batch that one address
outside ASCII no longer breaks."""

from __future__ import annotations

from decimal import Decimal

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.messages import notices, templates
from discount_deals.services.money import Money

from ..builders.accounts import auth_headers, login
from ..builders.messaging import outbox
from ..unit.test_message_templates import order


def test_a_password_change_is_told_to_the_email_the_account_had(client, messaging, make_user):
    # One PATCH changing the email and the password told the new address: perhaps the thief's.
    user = make_user(email="owner@example.com", phonenumber="")
    answer = client.patch(f"/api/users/users/{user.id}/", json={"email": "thief@example.com",
                                                                "password": "Newpass-123x",
                                                                "current_password": "secret123"},
                          headers=auth_headers(user))
    assert answer.status_code == 200, answer.text
    told = [message.recipient for message in outbox(kind="password_changed")]
    assert told == ["owner@example.com"]


def test_a_deactivated_account_hears_nothing_of_wrong_passwords(client, messaging, make_user, admin_headers,
                                                               use_settings):
    # Anyone could make the shop text a deactivated account (which can neither log in nor reset).
    use_settings(DD_TRUSTED_PROXY_HOPS="1")
    user = make_user(email="gone@example.com", phonenumber="0241234567")
    assert client.patch(f"/api/users/admin/users/{user.id}/", json={"is_active": False},
                        headers=admin_headers).status_code == 200
    for n in range(12):
        login(client, "gone@example.com", "wrong", headers={"X-Forwarded-For": f"10.0.0.{n}"})
    assert outbox(kind="account_locked") == []


def test_texts_carry_typed_names_in_gsm7():
    milk = templates.DealLine("p1", "Ideal \u201cFull Cream\u201d Milk \U0001f95b 400g", "price_drop",
                              Money.of(Decimal("79.00")))
    assert templates.fits_one_sms(templates.deal_sms([milk]))
    assert "Ideal \"Full Cream\" Milk" in templates.deal_sms([milk])
    store = order(delivery_method="pickup", payment_status="paid", pickup_store={"name": "Melcom \u2013 Achimota"})
    assert "Melcom - Achimota" in templates.order_sms("order_ready", store)


def test_an_order_asking_for_a_code_still_fits_one_text():
    # A Telecel Cash order (a code to enter) with a long total and place came to 165-171 characters.
    for step in ("", "send_otp"):
        placed = order(payment_network="telecel", payment_phone="+233201234567", payment_step=step or None)
        text = templates.order_sms("order_placed", placed)
        assert templates.fits_one_sms(text), (len(text), text)
        assert "Enter the code Telecel Cash sent to 020 123 4567 on your order page." in text


def test_an_address_outside_ascii_fails_alone(client, messaging, make_user):
    # smtplib failed in the middle of the MAIL command and the next message met "503 nested MAIL".
    users = [make_user(email="kof\u00ed@example.com", phonenumber=""), make_user(email="ama@example.com",
                                                                               phonenumber="")]
    with session_scope() as session:
        for user in users:
            notices.password_changed(session, session.get(models.User, user.id))
    messaging.deliver()
    by_recipient = {message.recipient: message for message in outbox(kind="password_changed")}
    assert by_recipient["ama@example.com"].status == "sent"
    assert by_recipient["kof\u00ed@example.com"].status == "dead"
