"""Every SMS the shop sends fits one message (160 GSM-7 characters) for realistic long values,
and money in a text falls back to the currency code when the symbol is not GSM-7."""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals.models import Order
from discount_deals.services.messages import templates
from discount_deals.services.money import Money, plain_money_text
from discount_deals.config.settings import get_settings

LONG_STORE = "Shoprite Accra Mall (Spintex Road branch, next to the Game store entrance)"


def order(**fields) -> Order:
    values = {"id": "1a2b3c4d-0000-4000-8000-000000000000", "user_id": "u", "total": Decimal("12345.67"),
              "item_count": 12, "delivery_method": "delivery", "payment_method": "mobile_money",
              "payment_status": "awaiting_payment", "payment_network": "airteltigo",
              "payment_phone": "+233271234567", "address": {"city": "Sekondi-Takoradi Metropolitan"},
              "pickup_store": {"name": LONG_STORE}}
    return Order(**{**values, **fields})


ORDERS = [order(), order(delivery_method="pickup"), order(payment_method="cash_on_delivery",
                                                           payment_status="pay_on_delivery"),
          order(payment_status="paid")]


@pytest.mark.parametrize("kind", list(templates.ORDER_KINDS))
@pytest.mark.parametrize("shape", range(len(ORDERS)))
@pytest.mark.parametrize("refund_due", [False, True])
def test_every_order_sms_fits_one_message(kind, shape, refund_due):
    text = templates.order_sms(kind, ORDERS[shape], refund=ORDERS[shape].total if refund_due else None)
    assert templates.fits_one_sms(text), (len(text), text)
    assert "#1a2b3c4d" in text


def test_account_and_deal_texts_fit():
    long_name = "Golden Penny Spaghetti Family Pack 20 x 500g (Carton) - limited offer"
    texts = [
        templates.reset_code_sms("123456", 10),
        templates.password_changed_sms(),
        templates.account_locked_sms(15),
        templates.contact_changed_sms("email address and phone number", 7),
        templates.deal_sms([templates.DealLine("p", long_name, "price_drop", Money("12345.67", "GHS"))]),
        templates.deal_sms([templates.DealLine("p", long_name, "back_in_stock", None),
                            *[templates.DealLine(str(n), "x", "price_drop", Money(1, "USD")) for n in range(12)]]),
    ]
    for text in texts:
        assert templates.fits_one_sms(text), (len(text), text)


def test_a_symbol_outside_gsm7_becomes_the_currency_code(monkeypatch):
    monkeypatch.setenv("DD_CURRENCY_SYMBOL", "GH₵")
    monkeypatch.setenv("DD_CURRENCY_CODE", "GHS")
    get_settings.cache_clear()
    try:
        assert plain_money_text(Decimal("12.5")) == "GHS 12.50"
        assert templates.fits_one_sms(templates.order_sms("order_placed", ORDERS[0]))
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_gsm7_counting():
    assert templates.sms_length("Hello €") == 8  # the euro sign takes two septets
    assert templates.sms_length("₵") is None
    assert not templates.fits_one_sms("x" * 161)


def test_preflight_names_a_sender_id_longer_than_eleven_characters(monkeypatch):
    from discount_deals.server.preflight import plan_server
    from discount_deals.config.settings import server_settings

    monkeypatch.setenv("DD_SMS_SENDER", "DiscountDealsGH")
    monkeypatch.setenv("DD_SMS_PROVIDER", "hubtel")
    get_settings.cache_clear()
    try:
        problems = plan_server(production=False, workers=None, server=server_settings(), connect=False).problems
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert any("DD_SMS_SENDER must be at most 11" in p for p in problems)
    assert any("DD_HUBTEL_CLIENT_ID" in p for p in problems)


@pytest.mark.parametrize("kind", ["payment_paid", "order_delivered"])
def test_the_money_received_email_links_the_receipt(kind):
    links = templates.Links(base="https://shop.example.com")
    paid = order(payment_status="paid", receipt_number="DD-2026-000007")
    email = templates.order_email(kind, paid, links)
    receipt_page = "https://shop.example.com/orders/1a2b3c4d-0000-4000-8000-000000000000/receipt"
    assert f"View your receipt: {receipt_page}" in email.text and "DD-2026-000007" in email.text
    assert f'href="{receipt_page}"' in email.html
    # Without a receipt (or for another message) the email links the order as before.
    assert "/receipt" not in templates.order_email(kind, order(payment_status="paid"), links).text
    assert "/receipt" not in templates.order_email("order_shipped", paid, links).text


@pytest.mark.parametrize("kind", list(templates.RETURN_KINDS))
@pytest.mark.parametrize("shape", range(len(ORDERS)))
def test_every_return_sms_fits_one_message_and_writes_ghs(kind, shape, monkeypatch):
    from discount_deals.models import ReturnRequest

    ret = ReturnRequest(order_id="o", user_id="u", reason="x", refund_amount=Decimal("12345.67"),
                        credit_note_number="CN-2026-000123",
                        admin_note="Opened food and drink cannot be returned: the seal of the tin was broken.")
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    try:
        text = templates.return_sms(kind, ORDERS[shape], ret)
        email = templates.return_email(kind, ORDERS[shape], ret, templates.Links("https://deals.example"))
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert templates.fits_one_sms(text), (len(text), text)
    assert "#1a2b3c4d" in text and "$" not in text + email.text + email.html + email.subject
    if kind not in ("return_requested", "return_rejected"):
        assert "GHS 12,345.67" in text


def test_texts_write_money_as_ascii_and_emails_with_the_symbol():
    """A text says "USD 12,345.67" in a dollar shop too (one form for every currency); the email shows "$"."""
    placed = ORDERS[0]
    text = templates.order_sms("order_placed", placed)
    assert "Total USD 12,345.67," in text and "$" not in text
    assert "Total: $12,345.67" in templates.order_email("order_placed", placed, templates.Links(base="https://x")).text
    deal = templates.DealLine("p", "Rice", "price_drop", Money("9.50", "GHS"))
    assert "Rice is now GHS 9.50." in templates.deal_sms([deal])
    mail = templates.deal_email([deal], templates.Links(base="https://x"))
    assert mail.subject.endswith(": Rice is now GH₵9.50") and "Rice: now GH₵9.50" in mail.text


@pytest.mark.parametrize("typed, sent", [
    ("Kɔkɔ porridge mix", "Koko porridge mix"),  # Akan's ɛ ɔ and Ewe's ŋ have no accent to drop: they vanished
    ("Ɛmaa Adɔm Store", "Emaa Adom Store"),
    ("Ŋkatie burger", "Ngkatie burger"),
    ("Mama`s Gari 5kg", "Mama's Gari 5kg"),  # a backtick, outside GSM-7, made the whole text UCS-2
    ("Ideal \u201cFull Cream\u201d Milk \U0001f95b 400g", 'Ideal "Full Cream" Milk 400g'),
    ("\U0001f35a\U0001f1ec\U0001f1ed", ""),
])
def test_typed_names_reach_a_text_as_gsm7_letters(typed, sent):
    assert templates.ascii_text(typed) == sent
    assert templates.sms_length(templates.deal_sms([templates.DealLine("p", typed, "back_in_stock", None)]))


def test_a_name_with_nothing_to_write_in_a_text_leaves_no_hole():
    """A name of emoji only gave "Discount Deals:  is back in stock"; a store's gave "pickup at ."."""
    text = templates.deal_sms([templates.DealLine("p", "\U0001f35a\U0001f35a", "back_in_stock", None)])
    assert text == f"{templates.shop_name()}: A favourite is back in stock. See your favourites on our site."
    ready = order(delivery_method="pickup", pickup_store={"name": "\U0001f3ea"})
    assert "is ready for pickup at the store. Bring" in templates.order_sms("order_ready", ready)
    assert "pickup at the store" in templates.order_sms("order_placed", ready)
