"""Numbered receipts (issue 33): given when an order's money is received, shown as JSON, PDF and a page.

When: the money is in when mobile money is reported paid (payments.report.apply_report) or a
cash order is delivered (orders.status.change_status); both go through
orders.status.set_payment_status(PAID), which calls :func:`issue_receipt` in the transaction
that records the payment. (Delivering a cash order issues it a step earlier, so that the
"delivered" message, queued with the status change, carries the number.)

Numbering: ``{DD_RECEIPT_PREFIX}-{year}-{000001}``, gap-free and never reused. One counter row
per (prefix, year) is incremented by a single ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``
inside that transaction: on PostgreSQL the statement locks the counter's row until the
transaction ends, so concurrent payments queue on it and get consecutive numbers, and a
rollback undoes the increment along with the payment (no gap); SQLite has one writer at a time.
The year is the year the money came in, in Ghana's time (GMT, that is UTC).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from ..models import Order, OrderItem, ReceiptCounter, User
from ..models.base import utcnow
from ..config.settings import get_settings
from . import Conflict
from .error_codes import ErrorCode
from .moments import utc_text
from .orders.rules import is_test_payment
from .permissions import require_user
from .rows import owned_or_admin
from .money import money_str
from .taxes import TaxLine, stored_tax_lines
from .users.fields import is_closed_email

NOT_PAID = ErrorCode.NOT_PAID
NOT_PAID_TEXT = "This order has no receipt yet: it is given when the money is received."


def next_sequence(session: Session, prefix: str, year: int) -> int:
    """The next number of ``prefix`` in ``year``, counted in the caller's transaction (see above)."""
    table = ReceiptCounter.__table__
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = (
        insert(table)
        .values(prefix=prefix, year=year, last_number=1)
        .on_conflict_do_update(index_elements=[table.c.prefix, table.c.year],
                               set_={"last_number": table.c.last_number + 1})
        .returning(table.c.last_number)
    )
    return int(session.execute(statement).scalar_one())


def receipt_number(prefix: str, year: int, sequence: int) -> str:
    return f"{prefix}-{year}-{sequence:06d}"


def issue_receipt(session: Session, order: Order, at: datetime | None = None) -> str:
    """Give ``order`` its receipt number (once: an order that has one keeps it)."""
    if order.receipt_number:
        return order.receipt_number
    at = at or utcnow()
    prefix = get_settings().receipts.prefix
    order.receipt_number = receipt_number(prefix, at.year, next_sequence(session, prefix, at.year))
    order.receipt_issued_at = at
    session.add(order)
    return order.receipt_number


@dataclass(frozen=True)
class ReceiptLine:
    name: str
    quantity: int
    unit_price: Decimal
    total: Decimal


def seller_json() -> dict[str, str]:
    """The seller as receipts and credit notes print it (DD_SELLER_NAME, _ADDRESS, _TIN)."""
    seller = get_settings().receipts
    return {"name": seller.seller_name, "address": seller.seller_address, "tin": seller.seller_tin}


def lines_json(lines: list[ReceiptLine] | tuple[ReceiptLine, ...]) -> list[dict[str, Any]]:
    """A document's lines as its JSON lists them (money as 2-decimal strings)."""
    return [{"name": line.name, "quantity": line.quantity, "unit_price": money_str(line.unit_price),
             "total": money_str(line.total)} for line in lines]


def buyer_email(email: str | None) -> str:
    """A buyer's email as documents and the back office's sheets print it: blank for an account
    its owner closed (its placeholder, deleted-<id>@deleted.invalid, names nobody)."""
    return "" if not email or is_closed_email(email) else email


def buyer_of(session: Session, user_id: str) -> tuple[str, str]:
    """The buyer's name and email as receipts and credit notes print them (a deleted or closed
    account: blank)."""
    buyer = session.get(User, user_id)
    if buyer is None:
        return "", ""
    return " ".join(part for part in (buyer.first_name, buyer.last_name) if part), buyer_email(buyer.email)


@dataclass(frozen=True)
class IssuedDocument:
    """What a receipt and a credit note share: the order, its buyer, the lines and the taxes."""

    order: Order
    buyer_name: str
    buyer_email: str
    lines: list[ReceiptLine]
    tax_lines: tuple[TaxLine, ...]

    @property
    def number(self) -> str:
        raise NotImplementedError

    @property
    def issued_at(self) -> datetime | None:
        raise NotImplementedError

    def heading_json(self, references: dict[str, Any]) -> dict[str, Any]:
        """Number, date, what the document is about (``references``) and the seller."""
        issued_at = self.issued_at
        return {"number": self.number, "issued_at": utc_text(issued_at), **references,
                "seller": seller_json()}

    def buyer_json(self) -> dict[str, Any]:
        return {"name": self.buyer_name, "email": self.buyer_email, "phone": self.order.contact_phone}

    def amounts_json(self, first: tuple[str, Decimal], discount: Decimal, shipping: Decimal, tax: Decimal,
                     total: Decimal) -> dict[str, Any]:
        """The amounts as both documents list them; ``first`` is the receipt's subtotal or the note's goods."""
        name, amount = first
        return {name: money_str(amount), "discount": money_str(discount), "shipping": money_str(shipping),
                "tax": money_str(tax), "tax_lines": [line.as_json() for line in self.tax_lines],
                "total": money_str(total), "currency": get_settings().currency.code}


@dataclass(frozen=True)
class Receipt(IssuedDocument):
    """Everything a receipt shows; the API's JSON, the PDF and the receipt page are made from it."""

    @property
    def number(self) -> str:
        return self.order.receipt_number or ""

    @property
    def issued_at(self) -> datetime | None:
        return self.order.receipt_issued_at

    def as_json(self) -> dict[str, Any]:
        order = self.order
        return {
            **self.heading_json({"order": order.id}),
            "buyer": self.buyer_json() | {"address": order.address, "pickup_store": order.pickup_store},
            "lines": lines_json(self.lines),
            **self.amounts_json(("subtotal", order.subtotal), order.discount, order.shipping, order.tax, order.total),
            "payment": {"method": order.payment_method, "network": order.payment_network,
                        "reference": order.payment_reference, "test": is_test_payment(order)},
        }


def receipt_for(session: Session, order: Order) -> Receipt:
    """The receipt of an order that has one."""
    name, email = buyer_of(session, order.user_id)
    items = session.exec(select(OrderItem).where(OrderItem.order_id == order.id).order_by(OrderItem.name,
                                                                                          OrderItem.id)).all()
    lines = [ReceiptLine(item.name, item.quantity, item.unit_price, item.line_total) for item in items]
    return Receipt(order, name, email, lines, stored_tax_lines(order.tax_lines, order.tax))


def order_receipt(session: Session, user: User, order_id: str) -> Receipt:
    """The receipt of one of the user's orders (admins: any): 404 for anyone else's, 409 with
    the code ``not_paid`` (in the API's body too) before the money is in."""
    order = owned_or_admin(session, Order, order_id, require_user(user), "Order not found.")
    if not order.receipt_number:
        raise Conflict(NOT_PAID_TEXT, code=NOT_PAID, expose_code=True)
    return receipt_for(session, order)
