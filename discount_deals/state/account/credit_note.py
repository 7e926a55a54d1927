"""A refunded return's printable credit note (/returns/{id}/credit-note): what
services.returns.return_credit_note gives, laid out as the receipt is (components/printable.py),
with "Print" and "Download PDF" (services.receipt_pdf.credit_note_pdf, the PDF that
/api/returns/{id}/credit-note.pdf serves).

The owner's and admins' page (the service decides); anyone else, and a return that does not
exist, get the not-found page. Before the refund the page says there is no credit note yet."""

from __future__ import annotations

import reflex as rx

from ...db import session_scope
from ...display import ghana_time, money_text, tax_line_views
from ...models import User
from ...services import NotFound, ServiceError, returns
from ...services.receipt_pdf import credit_note_pdf
from ...settings import get_settings
from ..actions import load_list, toast
from ..guards import user_event
from .order_views import OrderLineView, OrderTotals
from .receipt import PRINT, ReceiptView
from .session import per_user


def credit_note_view(note: returns.CreditNote) -> ReceiptView:
    order, ret, seller = note.order, note.ret, get_settings().receipts
    return ReceiptView(
        title="Credit note",
        number=note.number,
        issued_text=ghana_time(note.issued_at) if note.issued_at else "",
        short_id=order.id[:8],
        reference_text=f"Corrects receipt {order.receipt_number}" if order.receipt_number else "",
        seller_name=seller.seller_name,
        seller_address=seller.seller_address,
        seller_tin=seller.seller_tin,
        buyer_name=note.buyer_name,
        buyer_email=note.buyer_email,
        buyer_phone=order.contact_phone or "",
        where_label="Reason for the return",
        where_text=ret.reason,
        lines=[OrderLineView(line.name, line.quantity, money_text(line.unit_price), money_text(line.total))
               for line in note.lines],
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
        payment_text=note.method_text(),
        test_payment=order.payment_test,
    )


def read_credit_note(user: User, return_id: str) -> returns.CreditNote:
    with session_scope() as session:
        return returns.return_credit_note(session, user, return_id)


@per_user
class CreditNoteState(rx.State):
    return_id: str = ""
    order_id: str = ""  # "Back to order"
    note: ReceiptView = ReceiptView(title="Credit note")
    not_refunded: bool = False  # the return exists but is not refunded yet
    not_found: bool = False  # no such return, or someone else's: the not-found page
    loading: bool = True
    failed: bool = False

    def _forget(self) -> None:
        self.return_id = self.order_id = ""
        self.note = ReceiptView(title="Credit note")
        self.not_refunded = self.not_found = self.failed = False
        self.loading = True

    def _requested_id(self) -> str:
        parts = (self.router.url.path or "").strip("/").split("/")
        return parts[1][:64] if len(parts) == 3 and parts[0] == "returns" and parts[2] == "credit-note" else ""

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

    @user_event
    def load(self, user: User):
        self._forget()
        self.return_id = self._requested_id()
        return load_list(self, lambda: self._fill(user), f"credit note of return {self.return_id}")

    @user_event
    def print_document(self, user: User):
        return PRINT

    @user_event
    def download_pdf(self, user: User):
        """The credit note's PDF, made for this user now (no link with a token to leak)."""
        try:
            note = read_credit_note(user, self.return_id)
        except ServiceError:
            return toast(("This credit note cannot be downloaded.", None, "error"))
        return rx.download(data=credit_note_pdf(note), filename=f"credit-note-{note.number}.pdf")
