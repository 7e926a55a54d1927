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

from sqlmodel import Session

from ...models import Order, RefundMethod, ReturnRequest, ReturnStatus, User
from ...config.settings import get_settings
from .. import Conflict
from ..permissions import require_user
from ..rows import owned_or_admin
from ..pricing import money_str
from ..order_rules import is_test_payment
from ..receipts import ReceiptLine, lines_json, seller_json
from ..taxes import TaxLine, rule_of, split_tax, stored_tax_lines
from .common import NOT_REFUNDED, RETURN_NOT_FOUND, lines_of

NOT_REFUNDED_TEXT = "This return has no credit note yet: it is given when the refund is made."


@dataclass(frozen=True)
class CreditNote:
    """Everything a credit note shows."""

    ret: ReturnRequest
    order: Order
    buyer_name: str
    buyer_email: str
    lines: list[ReceiptLine]
    tax_lines: tuple[TaxLine, ...]

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
            text = f"Refunded in cash by {self.ret.refunded_by_label}" if self.ret.refunded_by_label else "Refunded in cash"
        return text + (". TEST PAYMENT: no money moved." if is_test_payment(order) else ".")

    def as_json(self) -> dict[str, Any]:
        ret = self.ret
        return {
            "number": self.number,
            "issued_at": self.issued_at.isoformat() if self.issued_at else None,
            "return": ret.id,
            "order": self.order.id,
            "receipt_number": self.order.receipt_number,
            "seller": seller_json(),
            "buyer": {"name": self.buyer_name, "email": self.buyer_email, "phone": self.order.contact_phone},
            "lines": lines_json(self.lines),
            "goods": money_str(self.goods),
            "discount": money_str(ret.refund_discount),
            "shipping": money_str(ret.refund_shipping),
            "tax": money_str(ret.refund_tax),
            "tax_lines": [line.as_json() for line in self.tax_lines],
            "total": money_str(ret.refund_amount),
            "currency": get_settings().currency.code,
            "refund": {"method": ret.refund_method, "reference": ret.refund_reference,
                       "provider_status": ret.refund_provider_status, "by": ret.refunded_by_label,
                       "test": is_test_payment(self.order)},
        }


def credit_note_for(session: Session, ret: ReturnRequest) -> CreditNote:
    """The credit note of a refunded return."""
    order = session.get(Order, ret.order_id)
    buyer = session.get(User, ret.user_id)
    name = " ".join(part for part in (buyer.first_name, buyer.last_name) if part) if buyer else ""
    lines = [ReceiptLine(line.name, line.quantity, line.unit_price, line.amount)
             for line in lines_of(session, [ret.id])[ret.id]]
    rule = rule_of(stored_tax_lines(order.tax_lines, order.tax))
    return CreditNote(ret, order, name, buyer.email if buyer else "", lines, split_tax(ret.refund_tax, rule))


def return_credit_note(session: Session, user: User | None, return_id: str) -> CreditNote:
    """The credit note of one of the user's returns (admins: any): 404 for anyone else's, 409
    ``not_refunded`` before the refund."""
    ret = owned_or_admin(session, ReturnRequest, return_id, require_user(user), RETURN_NOT_FOUND)
    if ret.status != ReturnStatus.REFUNDED.value or not ret.credit_note_number:
        raise Conflict(NOT_REFUNDED_TEXT, code=NOT_REFUNDED, expose_code=True)
    return credit_note_for(session, ret)
