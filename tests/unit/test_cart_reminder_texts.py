"""The cart reminder's SMS is one GSM-7 segment in plain ASCII for realistic long values, says how
to stop only when that still fits, and names amounts with the currency code in a cedi shop."""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals.services.messages import templates
from discount_deals.services.messages.templates_reminders import (ReminderLine, ascii_text, reminder_email,
                                                                  reminder_sms)
from discount_deals.config.settings import get_settings

SHORT = templates.Links(base="https://dd.gh")
LONG = templates.Links(base="https://discount-deals.example.com.gh")
CURLY = "Golden Penny “Extra Long” Spaghetti — Family Pack 20 × 500g (Carton) for the whole household"


@pytest.fixture(autouse=True)
def cedis(monkeypatch):
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize("links", [SHORT, LONG])
@pytest.mark.parametrize("count", [1, 2, 12])
@pytest.mark.parametrize("name", ["Milo", CURLY, "Crème fraîche ₵ edition 🍚 " * 4])
def test_the_reminder_sms_fits_one_ascii_segment(links, count, name):
    lines = [ReminderLine(name, 3, Decimal("4115.22"))] + [ReminderLine("x", 1, Decimal("1.00"))] * (count - 1)
    text = reminder_sms(lines, links)
    assert templates.fits_one_sms(text) and text.isascii(), (len(text), text)
    assert f"Finish your order: {links.base}/cart" in text and "GHS " in text and "₵" not in text
    assert ("and 11 more items are" in text) if count == 12 else True


def test_stop_is_said_when_it_fits_and_left_out_when_it_does_not():
    short = reminder_sms([ReminderLine("Milo 400g", 1, Decimal("45.00"))], SHORT)
    assert short == ("Discount Deals: Milo 400g is still in your cart (GHS 45.00). "
                     "Finish your order: https://dd.gh/cart Stop: https://dd.gh/profile")
    long = reminder_sms([ReminderLine(CURLY, 1, Decimal("45.00"))] * 2, LONG)
    assert "Stop:" not in long and templates.fits_one_sms(long)


def test_names_are_folded_to_ascii():
    assert ascii_text("Crème “Brûlée” – 2 × 1…") == 'Creme "Brulee" - 2 x 1...'


def test_the_email_lists_ten_lines_and_counts_the_rest():
    lines = [ReminderLine(f"Item {n}", 2, Decimal("1.50")) for n in range(13)]
    email = reminder_email(lines, templates.Links(base="https://dd.gh", unsubscribe="https://dd.gh/u"))
    assert email.subject == "Discount Deals: You left something in your cart"
    assert "Item 9 × 2: GH₵3.00" in email.text and "Item 10" not in email.text and "and 3 more items" in email.text
    assert "Total: GH₵39.00" in email.text and "Finish your order: https://dd.gh/cart" in email.text
    assert "Stop these cart reminders by email: https://dd.gh/u" in email.text and 'href="https://dd.gh/u"' in email.html
