"""The receipt's PDF and settings (issue 33, item 3), without the database."""

from __future__ import annotations

import dataclasses
import re
import zlib
from datetime import UTC, datetime
from decimal import Decimal as D

import pytest

from discount_deals.models import Order
from discount_deals.services import Conflict, ServiceError
from discount_deals.services.receipt_pdf import pdf_money, receipt_pdf
from discount_deals.services.receipts import Receipt, ReceiptLine, receipt_number
from discount_deals.services.taxes import TAX_PARTS, TaxRule, split_tax
from discount_deals.config.settings import get_settings


def receipt(**order_fields) -> Receipt:
    order = Order(id="0f1e2d3c-0000-4000-8000-000000000001", user_id="u", subtotal=D("10.00"), shipping=D("5.99"),
                  tax=D("2.00"), total=D("17.99"), payment_method="mobile_money", payment_network="mtn",
                  payment_reference="DD-abc", receipt_number="DD-2026-000042",
                  receipt_issued_at=datetime(2026, 11, 27, 9, 5, tzinfo=UTC), contact_phone="+233241234567",
                  **order_fields)
    return Receipt(order, "Ama Mensah", "ama@example.com", [ReceiptLine("Milo 400g", 2, D("5.00"), D("10.00"))],
                   split_tax(D("2.00"), TaxRule(TAX_PARTS["ghana"])))


def page_text(pdf: bytes) -> str:
    """The text the pages draw: the strings of each ``(...) Tj`` in every content stream
    (inflated when compressed), PDF escapes undone, one a line."""
    texts = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            stream = zlib.decompress(stream)
        except zlib.error:
            pass
        for shown in re.findall(r"\(((?:\\.|[^\\)])*)\)\s*Tj", stream.decode("latin-1")):
            texts.append(re.sub(r"\\(.)", r"\1", shown))
    return "\n".join(texts)


@pytest.mark.parametrize("compress", [False, True])
def test_the_pdf_shows_the_number_the_lines_and_each_tax(compress):
    pdf = receipt_pdf(receipt(), compress=compress)
    assert pdf.startswith(b"%PDF-") and len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1
    text = page_text(pdf)
    for shown in ("Receipt DD-2026-000042", "27 Nov 2026, 09:05 GMT", "Ama Mensah", "Milo 400g", "$10.00",
                  "VAT (15%)", "$1.50", "NHIL (2.5%)", "GETFund levy (2.5%)", "$17.99", "mobile money (MTN)"):
        assert shown in text, shown
    if not compress:
        assert b"DD-2026-000042" in pdf  # uncompressed: the number is readable in the file itself


def test_a_test_payment_says_so_on_the_receipt():
    assert "TEST PAYMENT" in page_text(receipt_pdf(receipt(payment_test=True), compress=False))


def test_amounts_use_the_shops_currency_code_when_helvetica_lacks_its_symbol(monkeypatch):
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    try:
        assert pdf_money(D("12.35")) == "GHS 12.35"  # GH₵ is outside Latin-1
        assert "$" not in page_text(receipt_pdf(receipt(), compress=False))
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert pdf_money(D("12.35")) == "$12.35"


def test_receipt_numbers_have_six_digits():
    assert receipt_number("DD", 2026, 7) == "DD-2026-000007"


@pytest.mark.parametrize("value", ["D-D", "TOOLONGPREFIX", "dd dd"])
def test_a_bad_receipt_prefix_is_refused(monkeypatch, value):
    monkeypatch.setenv("DD_RECEIPT_PREFIX", value)
    get_settings.cache_clear()
    try:
        with pytest.raises(ValueError, match="DD_RECEIPT_PREFIX"):
            get_settings()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_only_an_error_raised_to_expose_its_code_does():
    assert Conflict("No.", code="not_paid", expose_code=True).expose_code
    assert not ServiceError("No.", code="changed").expose_code
    assert not ServiceError("No.", expose_code=True).expose_code  # nothing to expose


def test_the_receipt_page_shows_a_formatted_receipt():
    from discount_deals.state.account.receipt import receipt_view

    view = receipt_view(receipt(address={"line1": "12 Ring Road", "city": "accra", "country": "Ghana"}))
    assert (view.number, view.issued_text, view.short_id) == ("DD-2026-000042", "27 Nov 2026, 09:05 GMT", "0f1e2d3c")
    assert (view.buyer_name, view.buyer_email, view.buyer_phone) == ("Ama Mensah", "ama@example.com", "+233241234567")
    assert view.where_label == "Delivery address" and "12 Ring Road" in view.where_text and "Accra" in view.where_text
    assert [(line.name, line.quantity, line.unit_text, line.line_text) for line in view.lines] == [
        ("Milo 400g", 2, "$5.00", "$10.00")]
    assert view.totals.total_text == "$17.99"
    assert view.payment_text.startswith("Mobile money") and not view.test_payment
    pickup = receipt_view(receipt(delivery_method="pickup", pickup_store={"name": "Shoprite Accra Mall",
                                                                          "address": "Spintex Road", "city": "Accra"}))
    assert (pickup.where_label, pickup.where_text) == ("Pickup store", "Shoprite Accra Mall, Spintex Road, Accra")


def drawn(pdf: bytes) -> list[tuple[float, float, str]]:
    """Each string an uncompressed page draws: (left edge in mm, right edge in mm, text)."""
    from fpdf import FPDF

    measure = FPDF()
    measure.add_page()
    measure.set_font("Helvetica", "", 10)
    found = re.findall(r"BT ([\d.]+) [\d.]+ Td \((.*?)\) Tj ET", pdf.decode("latin-1"))
    return [(float(x) * 25.4 / 72, float(x) * 25.4 / 72 + measure.get_string_width(text), text) for x, text in found]


def test_a_long_item_name_wraps_in_its_column_and_is_printed_whole():
    """A retailer's 61-character name was cut at 60 characters and still ran 27 mm under the quantity."""
    long = receipt()
    long.lines[0] = ReceiptLine("NESTLE MILO CHOCOLATE MALT DRINK POWDER REFILL PACK 1.8KG BAG", 2, D("5.00"), D("10.00"))
    strings = drawn(receipt_pdf(long, compress=False))
    name = [(left, right) for left, right, text in strings if "NESTLE" in text or "BAG" in text]
    shown = " ".join(text for _, _, text in strings if set(text.split()) <= set(long.lines[0].name.split()))
    assert long.lines[0].name in shown
    quantity_left = next(left for left, _, text in strings if text == "2")
    assert name and all(right < quantity_left for _, right in name), (name, quantity_left)


def test_a_long_customer_name_wraps_inside_the_page():
    buyer = dataclasses.replace(receipt(), buyer_name="Adwoa " * 50)
    strings = drawn(receipt_pdf(buyer, compress=False))
    assert sum(text.count("Adwoa") for _, _, text in strings) == 50
    assert all(right <= 195 for _, right, _ in strings)  # A4 is 210 mm wide, with 15 mm margins
