"""A refunded return's credit note: what was given back, against which order and receipt.

Its number (``CN-{year}-{000001}``) is given in the refund's transaction (:mod:`.refunds`); the
API's JSON, the PDF (``services.receipt_pdf.credit_note_pdf``) and any page are made from
:class:`CreditNote`. The owner and admins may read it; anyone else gets 404, as for a missing
return, and before the refund 409 ``not_refunded``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from ...models import Order, RefundMethod, ReturnRequest, ReturnStatus, User
from .. import Conflict
from ..permissions import require_user
from ..orders.rules import is_test_payment
from ..receipts import IssuedDocument, ReceiptLine, buyer_of, lines_json
from ..rows import owned_or_admin
from ..taxes import ZERO, TaxLine, rule_of, split_refunded_tax, stored_tax_lines
from .common import NOT_REFUNDED, RETURN_NOT_FOUND, lines_of

NOT_REFUNDED_TEXT = "This return has no credit note yet: it is given when the refund is made."


@dataclass(frozen=True)
class CreditNote(IssuedDocument):
    """Everything a credit note shows: the order's document fields and the refunded return."""

    ret: ReturnRequest

    @property
    def number(self) -> str:
        return self.ret.credit_note_number or ""

    @property
    def issued_at(self) -> datetime | None:
        return self.ret.refunded_at

    @property
    def goods(self) -> Decimal:
        return sum((line.total for line in self.lines), Decimal("0.00"))

    def method_text(self) -> str:
        order = self.order
        if self.ret.refund_method == RefundMethod.MOBILE_MONEY.value:
            text = f"Refunded by mobile money ({(order.payment_network or '').upper()})"
            text += f", refund {self.ret.refund_reference}" if self.ret.refund_reference else ""
        else:
            text = "Refunded in cash"  # the customer's document: which admin paid stays in the audit trail
        return text + (". TEST PAYMENT: no money moved." if is_test_payment(order) else ".")

    def as_json(self, *, staff: bool = False) -> dict[str, Any]:
        """The credit note's JSON; ``refund.by`` (the admin who refunded) for admins only, blank
        for the customer."""
        ret = self.ret
        return {
            **self.heading_json({"return": ret.id, "order": self.order.id, "receipt_number": self.order.receipt_number}),
            "buyer": self.buyer_json(),
            "lines": lines_json(self.lines),
            **self.amounts_json(("goods", self.goods), ret.refund_discount, ret.refund_shipping, ret.refund_tax,
                                ret.refund_amount),
            "refund": {"method": ret.refund_method,
                       "reference": ret.refund_reference if ret.refund_method == RefundMethod.MOBILE_MONEY.value else None,
                       "provider_status": ret.refund_provider_status, "by": ret.refunded_by_label if staff else "",
                       "test": is_test_payment(self.order)},
        }


def credit_note_for(session: Session, ret: ReturnRequest) -> CreditNote:
    """The credit note of a refunded return."""
    order = session.get(Order, ret.order_id)
    name, email = buyer_of(session, ret.user_id)
    lines = [ReceiptLine(line.name, line.quantity, line.unit_price, line.amount)
             for line in lines_of(session, [ret.id])[ret.id]]
    return CreditNote(order=order, buyer_name=name, buyer_email=email, lines=lines,
                      tax_lines=refunded_tax_lines(session, order, ret), ret=ret)


def refunded_tax_lines(session: Session, order: Order, ret: ReturnRequest) -> tuple[TaxLine, ...]:
    """The taxes ``ret`` gave back, each apart, as kept when it was refunded; for one refunded
    before they were kept, computed: the order's credit notes, in the order they were given, split
    their tax so that together they give back each tax the receipt charged exactly
    (``taxes.split_refunded_tax``)."""
    if ret.refund_tax_lines is not None:
        return stored_tax_lines(ret.refund_tax_lines, ret.refund_tax)
    charged = stored_tax_lines(order.tax_lines, order.tax)
    rule = rule_of(charged)
    earlier = session.exec(
        select(ReturnRequest).where(ReturnRequest.order_id == order.id, ReturnRequest.id != ret.id,
                                    ReturnRequest.status == ReturnStatus.REFUNDED.value,
                                    col(ReturnRequest.refunded_at) <= ret.refunded_at)
        .order_by(ReturnRequest.refunded_at, ReturnRequest.credit_note_number)
    ).all()
    given = tuple(ZERO for _ in charged)
    for before in earlier:
        if (before.refunded_at, before.credit_note_number or "") < (ret.refunded_at, ret.credit_note_number or ""):
            parts = (stored_tax_lines(before.refund_tax_lines, before.refund_tax) if before.refund_tax_lines
                     else split_refunded_tax(before.refund_tax, charged, given, rule))
            given = tuple(total + line.amount for total, line in zip(given, parts, strict=True))
    return split_refunded_tax(ret.refund_tax, charged, given, rule)


def return_credit_note(session: Session, user: User | None, return_id: str) -> CreditNote:
    """The credit note of one of the user's returns (admins: any): 404 for anyone else's, 409
    ``not_refunded`` before the refund."""
    ret = owned_or_admin(session, ReturnRequest, return_id, require_user(user), RETURN_NOT_FOUND)
    if ret.status != ReturnStatus.REFUNDED.value or not ret.credit_note_number:
        raise Conflict(NOT_REFUNDED_TEXT, code=NOT_REFUNDED, expose_code=True)
    return credit_note_for(session, ret)
