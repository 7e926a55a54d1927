"""Returns and refunds of delivered orders (issue 33).

- :mod:`.requests`: a customer asks to return items (who, when, how many), reads their returns
- :mod:`.steps`: the back office approves, rejects, receives (stock back exactly once)
- :mod:`.refunds`: the refund's plan, claim and record, by the way the order was paid, and its credit note's number
- :mod:`.sending`: the refund sent to the payment provider (or recorded: cash), and "Check refund"
- :mod:`.pending`: a queued refund's final word (the provider's webhook)
- :mod:`.shares`: what a return refunds (its lines' share of the order, written once)
- :mod:`.credit_notes`: a refunded return's credit note (JSON and PDF are made from it)
- :mod:`.cancellations`: a cancelled, paid order refunded whole, as a return, with its credit note
- :mod:`.common`: refusal codes, finding a return, quantities already returned

Each step is in the audit trail and messages the customer in its own transaction.

Owns its transactions: ``sending.refund_return`` and ``cancellations.settle_refund_due`` (a
mobile-money refund calls the payment provider over the network, outside any transaction). Everything else takes the caller's session.
"""

from .common import (
    DUPLICATE_LINE,
    ITEMS_INVALID,
    NO_ITEMS,
    NOT_DELIVERED,
    NOT_REFUNDED,
    NOTE_REQUIRED,
    QUANTITY,
    REASON_REQUIRED,
    REFUND_FAILED,
    REFUND_IN_PROGRESS,
    STATUS_LABELS,
    UNKNOWN_PRODUCT,
    WINDOW_CLOSED,
    WRONG_STATUS,
    ReturnView,
    may_refund_in_cash,
    may_take,
    refund_waiting,
    returnable,
)
from .cancellations import refund_on_its_way, refunds_by_credit_note, settle_refund_due
from .credit_notes import CreditNote, return_credit_note
from .pending import refund_reported
from .sending import check_waiting_refunds, refund_return
from .requests import order_returns, request_return, returns_close_at, returns_open
from .steps import admin_returns, approve, receive, reject, withdraw

__all__ = [
    "DUPLICATE_LINE",
    "ITEMS_INVALID",
    "NOTE_REQUIRED",
    "NOT_DELIVERED",
    "NOT_REFUNDED",
    "NO_ITEMS",
    "QUANTITY",
    "REASON_REQUIRED",
    "REFUND_FAILED",
    "REFUND_IN_PROGRESS",
    "STATUS_LABELS",
    "UNKNOWN_PRODUCT",
    "WINDOW_CLOSED",
    "WRONG_STATUS",
    "CreditNote",
    "ReturnView",
    "admin_returns",
    "may_refund_in_cash",
    "may_take",
    "refund_waiting",
    "returnable",
    "approve",
    "check_waiting_refunds",
    "order_returns",
    "receive",
    "refund_on_its_way",
    "refund_reported",
    "refund_return",
    "refunds_by_credit_note",
    "settle_refund_due",
    "reject",
    "request_return",
    "returns_close_at",
    "returns_open",
    "return_credit_note",
    "withdraw",
]
