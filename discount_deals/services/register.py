"""The register of issued documents, for the shop's accounts: every receipt and credit note, by
the moment it was issued, in the order of issue.

An issued document never changes (services.receipts numbers a receipt when the money is in;
services.returns.refunds numbers a credit note when its refund is recorded), so a month's rows,
read by their issue dates, never change after the month ends; the orders export, read by the day
an order was placed, moves money into the month it was ordered in, and its running refunded total
changes after the fact.

One row a document. A credit note's amounts are negative, so a column's sum is what the shop kept:
sales less refunds, tax charged less tax given back. ``tax_lines`` lists each tax of the document
(``VAT 15.00% 2.50; NHIL 2.50% 0.42``); where prices include tax (``DD_TAX_INCLUDED``) the tax is
inside ``goods`` and not added to ``total``. ``payment_test`` marks documents of payments through
the fake provider (no money moved). Receipts are numbered ``{DD_RECEIPT_PREFIX}-{year}-{6 digits}``
and credit notes ``CN-{year}-{6 digits}``, each without gaps: the register is where a gap would show.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import and_, or_, select
from sqlmodel import Session

from ..models import Order, ReturnRequest, User
from .exports import CHUNK_ROWS, DateRange
from .money import round_amount, shop_currency
from .orders.rules import is_test_payment
from .permissions import require_admin
from .receipts import buyer_email
from .taxes import TaxLine, stored_tax_lines

COLUMNS = (
    "number", "kind", "issued_at", "corrects", "order_id", "order_number", "customer_email", "customer_name",
    "payment_method", "refund_method", "goods", "discount", "shipping", "tax", "tax_lines", "total",
    "payment_test", "currency",
)
RECEIPT, CREDIT_NOTE = "receipt", "credit_note"


def document_rows(session: Session, actor: User | None, days: DateRange | None = None) -> Iterator[list[Any]]:
    """Every receipt and credit note issued in ``days`` (UTC; None: all), in the order of issue (admins only)."""
    require_admin(actor)  # now, not when the rows are first read
    days = days or DateRange()
    merged = heapq.merge(_receipt_rows(session, days), _credit_note_rows(session, days), key=lambda pair: pair[0])
    return (row for _key, row in merged)


def _in(column: Any, days: DateRange) -> list[Any]:
    conditions = [column.is_not(None)]
    if days.start:
        conditions.append(column >= days.start)
    if days.end:
        conditions.append(column < days.end)
    return conditions


def _issued_in_order(session: Session, query: Any, moment: Any, number: Any) -> Iterator[Any]:
    """The rows of ``query`` by (``moment``, ``number``), :data:`exports.CHUNK_ROWS` at a time, each
    chunk read after the last one's key (never an OFFSET), so memory stays flat."""
    query = query.order_by(moment, number).limit(CHUNK_ROWS)
    after: tuple[datetime, str] | None = None
    while True:
        paged = query if after is None else query.where(
            or_(moment > after[0], and_(moment == after[0], number > after[1])))
        chunk = session.execute(paged).all()
        if not chunk:
            return
        yield from chunk
        after = (chunk[-1].issued_at, chunk[-1].number)


def _taxes_text(lines: tuple[TaxLine, ...], sign: int) -> str:
    return "; ".join(f"{line.label} {line.rate:.2f}% {round_amount(line.amount * sign):.2f}" for line in lines)


def _buyer(row: Any) -> tuple[str, str]:
    return buyer_email(row.email), f"{row.first_name or ''} {row.last_name or ''}".strip()


def _receipt_rows(session: Session, days: DateRange) -> Iterator[tuple[tuple[datetime, str], list[Any]]]:
    orders, users = Order.__table__, User.__table__
    issued, number = orders.c.receipt_issued_at, orders.c.receipt_number
    query = (select(orders, issued.label("issued_at"), number.label("number"), users.c.email, users.c.first_name,
                    users.c.last_name)
             .join(users, users.c.id == orders.c.user_id, isouter=True).where(*_in(issued, days)))
    currency = shop_currency().code
    for row in _issued_in_order(session, query, issued, number):
        email, name = _buyer(row)
        taxes = stored_tax_lines(row.tax_lines, row.tax)
        yield (row.issued_at, row.number), [
            row.number, RECEIPT, row.issued_at, "", row.id, row.id[:8], email, name, row.payment_method, "",
            row.subtotal, row.discount, row.shipping, row.tax, _taxes_text(taxes, 1), row.total,
            "yes" if is_test_payment(row) else "no", currency,
        ]


def _credit_note_rows(session: Session, days: DateRange) -> Iterator[tuple[tuple[datetime, str], list[Any]]]:
    returns, orders, users = ReturnRequest.__table__, Order.__table__, User.__table__
    issued, number = returns.c.refunded_at, returns.c.credit_note_number
    query = (select(returns, issued.label("issued_at"), number.label("number"), orders.c.receipt_number,
                    orders.c.payment_method, orders.c.payment_test, orders.c.payment_status, users.c.email,
                    users.c.first_name, users.c.last_name)
             .join(orders, orders.c.id == returns.c.order_id)
             .join(users, users.c.id == returns.c.user_id, isouter=True)
             .where(*_in(issued, days), number.is_not(None)))
    currency = shop_currency().code
    for row in _issued_in_order(session, query, issued, number):
        email, name = _buyer(row)
        taxes = stored_tax_lines(row.refund_tax_lines, row.refund_tax)
        goods = row.refund_amount + row.refund_discount - row.refund_shipping - _added_tax(taxes)
        yield (row.issued_at, row.number), [
            row.number, CREDIT_NOTE, row.issued_at, row.receipt_number or "", row.order_id, row.order_id[:8], email,
            name, row.payment_method, row.refund_method or "", -goods, -row.refund_discount, -row.refund_shipping,
            -row.refund_tax, _taxes_text(taxes, -1), -row.refund_amount,
            "yes" if is_test_payment(row) else "no", currency,
        ]


def _added_tax(taxes: tuple[TaxLine, ...]) -> Decimal:
    """The tax added on top of prices (none where prices include it)."""
    return sum((line.amount for line in taxes if not line.included), Decimal("0.00"))
