"""A shop in cedis (DD_CURRENCY=GHS, issue 33 item 1): no "$" in any message it queues, its order
export or its receipts; texts write ``GHS 12.35`` (GH₵ is not GSM-7: it would make every text
two SMS) and emails may show GH₵."""

from __future__ import annotations

import csv
import io

import pytest

from discount_deals.config.settings import get_settings
from discount_deals.worker.tasks import fan_out_and_compose

from ..builders.accounts import auth_headers
from ..support.mail import html_of, text_of
from ..unit.test_receipt_documents import page_text
from ..builders.checkout import MOMO, fill_cart, place
from ..builders.payments import minor, post_webhook
from ..builders.messaging import outbox, set_preferences
from ..builders.shop import add_address


@pytest.fixture
def cedis(messaging, monkeypatch):
    for name in ("DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY", "DD_CURRENCY_SYMBOL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    monkeypatch.setenv("DD_DEAL_ALERT_BATCH_SECONDS", "0")
    get_settings.cache_clear()
    yield messaging
    get_settings.cache_clear()


def _shopper(make_user):
    user = make_user(phonenumber="024 123 4567")
    add_address(user, is_default=True)
    set_preferences(user, order_updates="both", deal_alerts="sms")
    return user


def test_every_message_of_a_cedi_shop_is_in_cedis(client, cedis, make_user, make_product, admin_headers):
    shopper = _shopper(make_user)
    headers = auth_headers(shopper)
    rice = make_product(name="Rice 5kg", price="112.35", stock=9)
    fill_cart(client, headers, (rice, 1))
    stale = client.post("/api/orders/checkout/", json={"expected_total": "1.00"}, headers=headers)
    assert stale.status_code == 409
    assert "GH₵" in stale.json()["detail"] and "$" not in stale.json()["detail"]  # "your order total changed"
    paid = place(client, headers, MOMO)
    post_webhook(client, "charge.success", paid["payment_reference"], minor(paid["total"]))
    for status in ("processing", "shipped", "delivered"):
        assert client.patch(f"/api/orders/{paid['id']}/", json={"status": status},
                            headers=admin_headers).status_code == 200
    fill_cart(client, headers, (rice, 1))
    declined = place(client, headers, MOMO)
    post_webhook(client, "charge.failed", declined["payment_reference"], minor(declined["total"]))
    favourite = client.post("/api/favorites/", json={"product": rice.id}, headers=headers)
    assert favourite.status_code in (200, 201)
    assert client.patch(f"/api/products/{rice.id}/", json={"discount_price": "99.50"},
                        headers=admin_headers).status_code == 200
    fan_out_and_compose()
    cedis.deliver()

    queued = outbox()
    kinds = {m.kind for m in queued}
    assert {"order_placed", "payment_paid", "order_shipped", "order_delivered", "payment_failed",
            "deal_alert"} <= kinds, kinds
    for message in queued:
        for text in (message.subject or "", message.body_text or "", message.body_html or ""):
            assert "$" not in text, (message.kind, message.channel, text)
    texts = [t["Content"] for t in cedis.texts.texts]
    assert len(texts) == len([m for m in queued if m.channel == "sms"]) >= 6
    for text in texts:
        assert "₵" not in text and "$" not in text, text
    money_texts = [t for t in texts if "order #" in t and ("placed" in t or "payment" in t)] + [
        t for t in texts if "is now" in t]
    assert money_texts and all("GHS " in t for t in money_texts), texts
    assert any("is now GHS 99.50" in t for t in texts), texts
    mails = cedis.mailbox.to(shopper.email)
    assert any("Total: GH₵" in text_of(mail) for mail in mails)
    assert all("$" not in text_of(mail) and "$" not in html_of(mail) for mail in mails)


def test_the_order_export_and_the_receipt_of_a_cedi_shop_show_no_dollar(client, cedis, make_user, make_product,
                                                                         admin_headers):
    shopper = _shopper(make_user)
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(name="Milo 400g", price="12.35", stock=9), 2))
    order = place(client, headers, MOMO)
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))

    export = client.get("/api/admin/exports/orders.csv", headers=admin_headers)
    assert export.status_code == 200 and "$" not in export.text
    [line] = list(csv.DictReader(io.StringIO(export.text)))
    assert (line["unit_price"], line["line_total"], line["currency"]) == ("12.35", "24.70", "GHS")

    receipt = client.get(f"/api/orders/{order['id']}/receipt/", headers=headers)
    assert receipt.status_code == 200 and "$" not in receipt.text
    assert receipt.json()["currency"] == "GHS"
    pdf = client.get(f"/api/orders/{order['id']}/receipt.pdf", headers=headers)
    shown = page_text(pdf.content)
    assert pdf.status_code == 200 and "GHS 24.70" in shown and "$" not in shown
