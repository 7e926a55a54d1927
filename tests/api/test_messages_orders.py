"""Order updates reach the customer: written in the order's own transaction, delivered by the
worker to a real SMTP server and a Hubtel-shaped SMS server, by the customer's choice."""

from __future__ import annotations

import pytest

from ..builders.accounts import auth_headers
from ..support.mail import html_of, text_of
from ..builders.checkout import MOMO, add_store, fill_cart, place
from ..builders.payments import minor, post_webhook
from ..builders.messaging import PUBLIC_URL, outbox, set_preferences
from ..builders.shop import add_address

PHONE = "+233241234567"


@pytest.fixture
def shopper(make_user):
    user = make_user(phonenumber="024 123 4567")
    add_address(user, is_default=True)
    return user


def test_an_order_placed_is_texted_and_its_email_has_everything(client, messaging, shopper, make_product):
    set_preferences(shopper, order_updates="both")
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(price="12.50", stock=5), 2))
    order = place(client, headers)
    number = order["id"][:8]
    # Written with the order, sent later by the worker: nothing has left yet.
    assert [m.status for m in outbox()] == ["queued", "queued"]
    assert messaging.mailbox.messages == [] and messaging.texts.texts == []
    report = messaging.deliver()
    assert report.sent == 2
    [text] = messaging.texts.texts
    assert text["To"] == PHONE and text["From"] == "DealsGH"
    assert f"order #{number} placed" in text["Content"] and "Pay cash on delivery." in text["Content"]
    [mail] = messaging.mailbox.wait_for(1)
    assert mail["To"] == shopper.email and mail["Subject"] == f"Discount Deals: Order #{number} placed"
    body, page = text_of(mail), html_of(mail)
    assert f"{PUBLIC_URL}/orders/{order['id']}" in body and f'href="{PUBLIC_URL}/orders/{order["id"]}"' in page
    assert "Total:" in body and "delivery to" in body.lower()
    assert mail["List-Unsubscribe"].startswith(f"<{PUBLIC_URL}/api/notifications/unsubscribe/?token=")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert f"{PUBLIC_URL}/unsubscribe?token=" in body
    assert {m.status for m in outbox()} == {"sent"}
    assert messaging.deliver().claimed == 0  # sent once


def test_the_default_is_sms_when_a_phone_is_known_else_email(client, messaging, shopper, make_user, make_product):
    fill_cart(client, auth_headers(shopper), (make_product(stock=5), 1))
    place(client, auth_headers(shopper))
    no_phone = make_user(phonenumber="")
    add_address(no_phone, is_default=True)
    fill_cart(client, auth_headers(no_phone), (make_product(stock=5), 1))
    place(client, auth_headers(no_phone))
    assert sorted((m.channel, m.recipient) for m in outbox()) == [("email", no_phone.email), ("sms", PHONE)]


def test_a_refused_order_queues_nothing(client, messaging, shopper, make_product):
    product = make_product(stock=1)
    fill_cart(client, auth_headers(shopper), (product, 1))
    from discount_deals.db import session_scope
    from discount_deals import models

    with session_scope() as session:  # the stock goes meanwhile: the placement rolls back
        row = session.get(models.Product, product.id)
        row.stock = 0
        session.add(row)
    place(client, auth_headers(shopper), expect=409)
    assert outbox() == []


def test_pickup_and_mobile_money_messages(client, messaging, shopper, admin_headers, make_product):
    store = add_store("Melcom Kaneshie")
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(price="30.00", stock=5), 1))
    order = place(client, headers, {**MOMO, "delivery_method": "pickup", "pickup_store": store.id})
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    for status in ("processing", "ready_for_pickup", "delivered"):
        assert client.patch(f"/api/orders/{order['id']}/", json={"status": status},
                            headers=admin_headers).status_code == 200
    messaging.deliver()
    texts = [t["Content"] for t in messaging.texts.texts]
    assert [m.kind for m in outbox()] == ["order_placed", "payment_paid", "order_ready", "order_delivered"]
    assert "pickup at Melcom Kaneshie" in texts[0] and "Approve the MTN MoMo prompt on 024 123 4567" in texts[0]
    assert "we received your payment" in texts[1]
    assert "ready for pickup at Melcom Kaneshie" in texts[2]
    assert "was delivered" in texts[3]


def test_a_declined_payment_and_a_paid_order_cancelled_say_so(client, messaging, shopper, make_product):
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(price="20.00", stock=5), 1))
    declined = place(client, headers, MOMO)
    post_webhook(client, "charge.failed", declined["payment_reference"], minor(declined["total"]))
    fill_cart(client, headers, (make_product(price="20.00", stock=5), 1))
    paid = place(client, headers, MOMO)
    post_webhook(client, "charge.success", paid["payment_reference"], minor(paid["total"]))
    assert client.post(f"/api/orders/{paid['id']}/cancel/", headers=headers).status_code == 200
    messaging.deliver()
    by_kind = {(m.subject_id, m.kind): m.body_text for m in outbox()}
    assert "did not go through" in by_kind[(declined["id"], "payment_failed")]
    cancelled = by_kind[(paid["id"], "order_cancelled")]
    assert "was cancelled" in cancelled and "refund" in cancelled


def test_shipped_and_an_unpaid_cancel(client, messaging, shopper, admin_headers, make_product):
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(stock=5), 1))
    order = place(client, headers)
    for status in ("processing", "shipped"):
        client.patch(f"/api/orders/{order['id']}/", json={"status": status}, headers=admin_headers)
    fill_cart(client, headers, (make_product(stock=5), 1))
    momo = place(client, headers, MOMO)
    client.post(f"/api/orders/{momo['id']}/cancel/", headers=headers)
    messaging.deliver()
    kinds = [(m.subject_id, m.kind) for m in outbox()]
    assert (order["id"], "order_shipped") in kinds
    # Cancelled before paying: one message (no "payment failed" besides it), and no refund.
    assert [k for s, k in kinds if s == momo["id"]] == ["order_placed", "order_cancelled"]
    assert "refund" not in outbox(subject_id=momo["id"], kind="order_cancelled")[0].body_text


def test_the_sms_names_the_step_the_order_page_asks_for(client, messaging, shopper, make_product):
    """Issue 32: a Telecel Cash charge asks for a voucher code on the order page, not a prompt."""
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(price="30.00", stock=5), 1))
    order = place(client, headers, {**MOMO, "network": "telecel", "phone": "020 123 4567"})
    assert order["payment_step"] == "send_otp"
    messaging.deliver()
    text = messaging.texts.texts[0]["Content"]
    assert "Enter the code Telecel Cash sent to 020 123 4567 on your order page." in text
    assert "prompt" not in text


def test_texts_go_to_the_number_the_order_carries_when_the_account_has_no_mobile(client, messaging, make_user,
                                                                                  make_product):
    """Issue 34 item 4: a profile with a landline (or no number) still hears by SMS about an order
    that carries a mobile number: its contact number, else the number that paid."""
    landline = make_user(phonenumber="030 221 2345")
    add_address(landline, is_default=True)
    fill_cart(client, auth_headers(landline), (make_product(stock=5), 1))
    paid_from = place(client, auth_headers(landline), {**MOMO, "phone": "024 123 4567"})
    no_phone = make_user(phonenumber="")
    add_address(no_phone, is_default=True)
    fill_cart(client, auth_headers(no_phone), (make_product(stock=5), 1))
    contact = place(client, auth_headers(no_phone), {"contact_phone": "055 123 4567"})
    sent = {(m.subject_id, m.channel, m.recipient) for m in outbox()}
    assert (paid_from["id"], "sms", "+233241234567") in sent
    assert (contact["id"], "sms", "+233551234567") in sent
    assert not any(channel == "email" for _, channel, _ in sent)


def test_a_customer_who_chose_email_keeps_email_whatever_the_order_carries(client, messaging, make_user,
                                                                           make_product):
    user = make_user(phonenumber="")
    add_address(user, is_default=True)
    set_preferences(user, order_updates="email")
    fill_cart(client, auth_headers(user), (make_product(stock=5), 1))
    place(client, auth_headers(user), {"contact_phone": "055 123 4567"})
    assert [(m.channel, m.recipient) for m in outbox()] == [("email", user.email)]
