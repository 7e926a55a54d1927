"""A receipt as a one-page A4 PDF (fpdf2), made from :class:`services.receipts.Receipt`, and a
credit note (:class:`services.returns.credit_notes.CreditNote`) in the same layout.

The PDF uses the standard Helvetica font, so it needs no font file on the server; that font
has only Latin-1 letters, so an amount whose currency symbol is outside them (GH₵) is written
with the currency's code instead ("GHS 12.35", as the SMS do), and any other character outside
Latin-1 (in a product's name) becomes "?".
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from fpdf import FPDF

from ..models import DeliveryMethod, Order, PaymentMethod
from ..config.settings import get_settings
from .money import Money
from .orders.rules import is_test_payment
from .receipts import Receipt, ReceiptLine
from .returns.credit_notes import CreditNote
from .taxes import TaxLine

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


def _heading(pdf: FPDF, title: str, issued: datetime | None, order: Order, buyer: tuple[str, str],
             more: tuple[str, ...] = ()) -> None:
    """The seller, the document's title and number, when, which order and whose (receipts and
    credit notes alike)."""
    seller = get_settings().receipts
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(WIDTH, 8, _latin1(seller.seller_name), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    for line in (seller.seller_address, f"TIN: {seller.seller_tin}" if seller.seller_tin else ""):
        if line:
            pdf.cell(WIDTH, 5, _latin1(line), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(WIDTH, 7, _latin1(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    when = f"{issued.strftime('%d %b %Y, %H:%M').lstrip('0')} GMT" if issued else ""
    for line in (f"Issued: {when}", f"Order #{order.id[:8]}", *more, f"Customer: {buyer[0]}", buyer[1],
                 order.contact_phone or ""):
        if line.strip():  # wrapped: a name may be 300 characters long
            pdf.multi_cell(WIDTH, 5, _latin1(line), align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


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
    return text + (". TEST PAYMENT: no money moved." if is_test_payment(order) else ".")


def _document(title: str, compress: bool) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_compression(compress)
    pdf.set_title(_latin1(title))
    pdf.set_margins(15, 15, 15)
    pdf.add_page()
    return pdf


def _lines(pdf: FPDF, lines: Iterable[ReceiptLine]) -> None:
    """The items, a row each, through fpdf2's table: a long name wraps within its column (a
    retailer's names run past it: "NESTLE MILO … REFILL PACK 1.8KG BAG") instead of being cut or
    printed over the quantity, and the heading row repeats on a new page."""
    pdf.set_font("Helvetica", "", 10)
    with pdf.table(col_widths=COLUMNS, width=WIDTH, align="LEFT", text_align=("LEFT", "RIGHT", "RIGHT", "RIGHT"),
                   borders_layout="NONE", line_height=5, padding=(0.5, 1), v_align="TOP") as table:
        table.row(("Item", "Qty", "Unit price", "Total"))
        for line in lines:
            table.row((_latin1(line.name), str(line.quantity), pdf_money(line.unit_price), pdf_money(line.total)))
    pdf.ln(2)


def _taxes(pdf: FPDF, tax_lines: Iterable[TaxLine]) -> None:
    for tax in tax_lines:
        rate = f"{tax.rate.normalize():f}"
        label = f"{tax.label} ({rate}%)" + (", included" if tax.included else "")
        _total(pdf, label, pdf_money(tax.amount))


def _closing(pdf: FPDF, text: str) -> bytes:
    pdf.ln(4)
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(WIDTH, 5, _latin1(text))
    return bytes(pdf.output())


def receipt_pdf(receipt: Receipt, *, compress: bool = True) -> bytes:
    """The receipt's PDF (``compress=False`` leaves its text readable in the file, for tests)."""
    order = receipt.order
    pdf = _document(f"Receipt {receipt.number}", compress)
    _heading(pdf, f"Receipt {receipt.number}", order.receipt_issued_at, order,
             (receipt.buyer_name, receipt.buyer_email))
    _lines(pdf, receipt.lines)
    _total(pdf, "Subtotal", pdf_money(order.subtotal))
    if order.discount > 0:
        _total(pdf, "Coupon", "-" + pdf_money(order.discount))
    _total(pdf, "Pickup" if order.delivery_method == DeliveryMethod.PICKUP else "Delivery", pdf_money(order.shipping))
    _taxes(pdf, receipt.tax_lines)
    _total(pdf, "Total", pdf_money(order.total), bold=True)
    return _closing(pdf, _payment_text(receipt))


def credit_note_pdf(note: CreditNote, *, compress: bool = True) -> bytes:
    """A refunded return's credit note as a one-page PDF, laid out as a receipt."""
    order, ret = note.order, note.ret
    title = f"Credit note {note.number}"
    pdf = _document(title, compress)
    against = (f"Against receipt {order.receipt_number}",) if order.receipt_number else ()
    _heading(pdf, title, note.issued_at, order, (note.buyer_name, note.buyer_email), against)
    _lines(pdf, note.lines)
    _total(pdf, "Items returned", pdf_money(note.goods))
    if ret.refund_discount > 0:
        _total(pdf, "Coupon share", "-" + pdf_money(ret.refund_discount))
    if ret.refund_shipping > 0:
        _total(pdf, "Pickup" if order.delivery_method == DeliveryMethod.PICKUP else "Delivery", pdf_money(ret.refund_shipping))
    _taxes(pdf, note.tax_lines)
    _total(pdf, "Refunded", pdf_money(ret.refund_amount), bold=True)
    return _closing(pdf, note.method_text())
