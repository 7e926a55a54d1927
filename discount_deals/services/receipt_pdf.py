"""A receipt as a one-page A4 PDF (fpdf2), made from :class:`services.receipts.Receipt`.

The PDF uses the standard Helvetica font, so it needs no font file on the server; that font
has only Latin-1 letters, so an amount whose currency symbol is outside them (GH₵) is written
with the currency's code instead ("GHS 12.35", as the SMS do), and any other character outside
Latin-1 (in a product's name) becomes "?".
"""

from __future__ import annotations

from decimal import Decimal

from fpdf import FPDF

from ..models import DeliveryMethod, PaymentMethod
from ..settings import get_settings
from .money import Money
from .receipts import Receipt

WIDTH = 180  # mm of text on A4 with 15 mm margins
COLUMNS = (100, 16, 32, 32)  # item, quantity, unit price, line total


def _latin1(text: object) -> str:
    return str(text).encode("latin-1", "replace").decode("latin-1")


def pdf_money(value: Decimal) -> str:
    """The shop's money text, or its plain form (``GHS 12.50``) when Helvetica lacks the symbol."""
    amount = Money.of(value)
    try:
        amount.symbol.encode("latin-1")
    except UnicodeEncodeError:
        return amount.plain_text()
    return amount.text()


def _heading(pdf: FPDF, receipt: Receipt) -> None:
    seller = get_settings().receipts
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(WIDTH, 8, _latin1(seller.seller_name), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    for line in (seller.seller_address, f"TIN: {seller.seller_tin}" if seller.seller_tin else ""):
        if line:
            pdf.cell(WIDTH, 5, _latin1(line), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(WIDTH, 7, _latin1(f"Receipt {receipt.number}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    issued = receipt.order.receipt_issued_at
    when = f"{issued.strftime('%d %b %Y, %H:%M').lstrip('0')} GMT" if issued else ""
    for line in (f"Issued: {when}", f"Order #{receipt.order.id[:8]}", f"Customer: {receipt.buyer_name}",
                 receipt.buyer_email, receipt.order.contact_phone or ""):
        if line.strip():
            pdf.cell(WIDTH, 5, _latin1(line), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


def _row(pdf: FPDF, cells: tuple[str, ...], *, bold: bool = False) -> None:
    pdf.set_font("Helvetica", "B" if bold else "", 10)
    for index, (text, width) in enumerate(zip(cells, COLUMNS, strict=True)):
        last = index == len(COLUMNS) - 1
        pdf.cell(width, 6, _latin1(text), align="L" if index == 0 else "R",
                 new_x="LMARGIN" if last else "RIGHT", new_y="NEXT" if last else "TOP")


def _total(pdf: FPDF, label: str, amount: str, *, bold: bool = False) -> None:
    pdf.set_font("Helvetica", "B" if bold else "", 10)
    pdf.cell(WIDTH - 40, 6, _latin1(label), align="R")
    pdf.cell(40, 6, _latin1(amount), align="R", new_x="LMARGIN", new_y="NEXT")


def _payment_text(receipt: Receipt) -> str:
    order = receipt.order
    if order.payment_method == PaymentMethod.MOBILE_MONEY:
        text = f"Paid by mobile money ({(order.payment_network or '').upper()})"
        text += f", reference {order.payment_reference}" if order.payment_reference else ""
    else:
        text = "Paid in cash at pickup" if order.delivery_method == DeliveryMethod.PICKUP else "Paid in cash on delivery"
    return text + (". TEST PAYMENT: no money moved." if order.payment_test else ".")


def receipt_pdf(receipt: Receipt, *, compress: bool = True) -> bytes:
    """The receipt's PDF (``compress=False`` leaves its text readable in the file, for tests)."""
    pdf = FPDF(format="A4")
    pdf.set_compression(compress)
    pdf.set_title(_latin1(f"Receipt {receipt.number}"))
    pdf.set_margins(15, 15, 15)
    pdf.add_page()
    _heading(pdf, receipt)
    _row(pdf, ("Item", "Qty", "Unit price", "Total"), bold=True)
    for line in receipt.lines:
        _row(pdf, (line.name[:60], str(line.quantity), pdf_money(line.unit_price), pdf_money(line.total)))
    pdf.ln(2)
    order = receipt.order
    _total(pdf, "Subtotal", pdf_money(order.subtotal))
    if order.discount > 0:
        _total(pdf, "Coupon", "-" + pdf_money(order.discount))
    _total(pdf, "Pickup" if order.delivery_method == DeliveryMethod.PICKUP else "Delivery", pdf_money(order.shipping))
    for tax in receipt.tax_lines:
        rate = f"{tax.rate.normalize():f}"
        label = f"{tax.label} ({rate}%)" + (", included" if tax.included else "")
        _total(pdf, label, pdf_money(tax.amount))
    _total(pdf, "Total", pdf_money(order.total), bold=True)
    pdf.ln(4)
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(WIDTH, 5, _latin1(_payment_text(receipt)))
    return bytes(pdf.output())
