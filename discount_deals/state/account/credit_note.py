"""A refunded return's printable credit note (/returns/{id}/credit-note): what
services.returns.return_credit_note gives, laid out as the receipt is (components/printable.py),
with "Print" and "Download PDF" (services.receipt_pdf.credit_note_pdf, the PDF that
/api/returns/{id}/credit-note.pdf serves).

The owner's and admins' page (the service decides); anyone else, and a return that does not
exist, get the not-found page. Before the refund the page says there is no credit note yet."""

from __future__ import annotations

from typing import ClassVar

import reflex as rx

from ...db import session_scope
from ...display import money_text, tax_line_views
from ...models import OrderStatus, User
from ...services import NotFound, ServiceError, returns
from ...services.receipt_pdf import credit_note_pdf
from ..order_views import OrderTotals
from .receipt import PrintableState, ReceiptView, document_parts
from .session import per_user


def credit_note_view(note: returns.CreditNote) -> ReceiptView:
    order, ret = note.order, note.ret
    return ReceiptView(
        **document_parts(note.number, note.issued_at, order, note.buyer_name, note.buyer_email, note.lines),
        title="Credit note",
        reference_text=f"Corrects receipt {order.receipt_number}" if order.receipt_number else "",
        # a cancelled order's refund is a return of all of it (services.returns.cancellations)
        where_label="Reason for the refund" if order.status == OrderStatus.CANCELLED.value else "Reason for the return",
        where_text=ret.reason,
        totals=OrderTotals(
            subtotal_text=money_text(note.goods),
            has_discount=ret.refund_discount > 0,
            discount_text=money_text(ret.refund_discount),
            shipping_text=money_text(ret.refund_shipping),
            tax_text=money_text(ret.refund_tax),
            tax_lines=tax_line_views(note.tax_lines),
            total_text=money_text(ret.refund_amount),
        ),
        payment_label="Refund",
        payment_text=note.method_text(),  # says "TEST PAYMENT: no money moved." itself (as the PDF does)
        test_payment=False,
    )


def read_credit_note(user: User, return_id: str) -> returns.CreditNote:
    with session_scope() as session:
        return returns.return_credit_note(session, user, return_id)


@per_user
class CreditNoteState(PrintableState, rx.State):
    PATH: ClassVar[tuple[str, str]] = ("returns", "credit-note")
    CANNOT_DOWNLOAD: ClassVar[str] = "This credit note cannot be downloaded."
    return_id: str = ""
    note: ReceiptView = ReceiptView(title="Credit note")
    not_refunded: bool = False  # the return exists but is not refunded yet
    not_found: bool = False  # no such return, or someone else's: the not-found page

    def _forget(self) -> None:
        self.return_id = self.order_id = ""
        self.note = ReceiptView(title="Credit note")
        self.not_refunded = self.not_found = self.failed = False
        self.loading = True

    def _take_id(self, document_id: str) -> None:
        self.return_id = document_id

    def _fill(self, user: User) -> None:
        try:
            note = read_credit_note(user, self.return_id)
        except NotFound:
            self.not_found = True
            return
        except ServiceError as exc:
            self.not_refunded = exc.code == returns.NOT_REFUNDED
            if not self.not_refunded:
                raise
            return
        self.order_id = note.order.id
        self.note = credit_note_view(note)

    def _pdf(self, user: User) -> tuple[bytes, str]:
        note = read_credit_note(user, self.return_id)
        return credit_note_pdf(note), f"credit-note-{note.number}.pdf"
