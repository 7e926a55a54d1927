"""How returns read on screen (issue 33): the order page's "Return items" form and its Returns
box, and a row of the back office's Returns tab. Plain functions of what services.returns gives;
the rules (who may return what, until when, what goes back) are the service's."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..display import ghana_time, money_text
from ..models import Order, OrderStatus, RefundMethod, RefundState, ReturnStatus
from ..services import returns
from ..services.orders.rules import is_test_payment
from ..services.orders import OrderLine
from ..services.returns.common import REASON_LIMIT
from ..services.users import full_name
from .forms import form_text

QUANTITY_FIELD = "qty-"  # + the product's id (the line's, if it was deleted): one select per line of the form
REASON_FIELD = "reason"
STATUS_BADGES = {
    ReturnStatus.REQUESTED.value: "warning",
    ReturnStatus.APPROVED.value: "brand",
    ReturnStatus.RECEIVED.value: "brand",
    ReturnStatus.REFUNDED.value: "success",
    ReturnStatus.REJECTED.value: "destructive",
}
# The refusals that name a field of the form (services.returns' codes); the others are the form's.
ITEM_CODES = (returns.QUANTITY, returns.NO_ITEMS, returns.ITEMS_INVALID, returns.UNKNOWN_PRODUCT,
              returns.DUPLICATE_LINE)
REASON_CODES = (returns.REASON_REQUIRED,)


@dataclasses.dataclass
class ReturnFormLine:
    """One line of the order as the form offers it: how many may still go back."""

    product_id: str = ""  # blank when the product has been deleted since: the line is named by item_id
    item_id: str = ""
    name: str = ""
    bought: int = 0
    returnable: int = 0
    field: str = ""  # the select's name and id
    choices: list[str] = dataclasses.field(default_factory=list)  # "0" .. str(returnable)


def form_lines(lines: Sequence[OrderLine], taken: Mapping[str, int]) -> list[ReturnFormLine]:
    """The order's lines that may still go back: bought less what its live returns take
    (``taken``: services.returns' ``returned_quantities``, {order item id: quantity}). A line
    whose product was deleted since goes back by the line's id."""
    shown = []
    for line in lines:
        item = line.item
        left = returns.returnable(item, taken)
        if left > 0:
            shown.append(ReturnFormLine(product_id=item.product_id or "", item_id=item.id, name=item.name,
                                        bought=item.quantity, returnable=left,
                                        field=QUANTITY_FIELD + (item.product_id or item.id),
                                        choices=[str(n) for n in range(left + 1)]))
    return shown


def requested_items(form: Mapping[str, Any], offered: Sequence[ReturnFormLine]) -> list[dict[str, Any]]:
    """The ``items`` of the return request a submitted form stands for: each offered line whose
    quantity is above 0, as ``{"product_id", "quantity"}`` (or ``item_id``; what ``services.returns.request_return``
    and ``POST /api/orders/{id}/returns/`` take). A quantity that is not a whole number reads as 0;
    one above what may go back is sent as it is, for the service to refuse."""
    items = []
    for line in offered:
        text = form_text(dict(form), line.field, strip=True, limit=6)
        quantity = int(text) if text.isascii() and text.isdigit() else 0
        if quantity > 0:
            named = {"product_id": line.product_id} if line.product_id else {"item_id": line.item_id}
            items.append({**named, "quantity": quantity})
    return items


def requested_reason(form: Mapping[str, Any]) -> str:
    """The reason typed, cut one character past what the service takes (so it still refuses it,
    with its own words, rather than a cut sentence going through)."""
    return form_text(dict(form), REASON_FIELD, limit=REASON_LIMIT + 1)


def day_text(moment) -> str:
    """"27 Dec 2026", "3 Jan 2027" (Accra keeps UTC: no zone to convert or name for a day)."""
    return moment.strftime("%d %b %Y").lstrip("0")


def open_until_text(order: Order) -> str:
    """"Returns open until 27 Dec 2026, 14:05 GMT" while the order's returns are open, else "".
    With the time: "until 27 Dec" read as "through 27 Dec", and from 14:05 that day was refused."""
    closes = returns.returns_close_at(order)
    return f"Returns open until {ghana_time(closes)}" if closes and returns.returns_open(order) else ""


@dataclasses.dataclass
class ReturnCard:
    """A return as its customer sees it on the order page."""

    id: str = ""
    status: str = ""
    status_text: str = ""
    badge: str = "secondary"
    date_text: str = ""
    item_lines: list[str] = dataclasses.field(default_factory=list)  # "1 × Milo 400g"
    reason: str = ""
    refund_label: str = "Refund"  # "Estimated refund" until the money is sent
    refund_text: str = ""
    note: str = ""  # why it was rejected
    credit_note: str = ""  # CN-2026-000001, once refunded
    can_withdraw: bool = False  # its customer may still take it back (nothing moved yet)


def item_texts(view: returns.ReturnView) -> list[str]:
    return [f"{line.quantity} × {line.name}" for line in view.lines]


PENDING_TEXT = "Refund on its way"  # the provider queued the refund; its credit note follows


def status_text(ret) -> str:
    """A return's status in words, for the customer's card and the back office alike."""
    return PENDING_TEXT if returns.refund_waiting(ret) else returns.STATUS_LABELS.get(ret.status, ret.status)


def returns_title(order: Order) -> str:
    """The heading over an order's returns: "Refund" on a cancelled order (its money given back:
    services.returns.cancellations), else "Returns"."""
    return "Refund" if order.status == OrderStatus.CANCELLED.value else "Returns"


def return_card(view: returns.ReturnView) -> ReturnCard:
    ret = view.ret
    refunded, rejected = ret.status == ReturnStatus.REFUNDED.value, ret.status == ReturnStatus.REJECTED.value
    return ReturnCard(
        id=ret.id,
        status=ret.status,
        status_text=status_text(ret),
        badge=STATUS_BADGES.get(ret.status, "secondary"),
        date_text=day_text(ret.created_at) if ret.created_at else "",
        item_lines=item_texts(view),
        reason=ret.reason,
        # A rejected return refunds nothing: no estimate is shown.
        refund_label="Refunded" if refunded else "" if rejected else "Estimated refund",
        refund_text="" if rejected else money_text(ret.refund_amount),
        note=ret.admin_note if ret.status == ReturnStatus.REJECTED.value else "",
        credit_note=ret.credit_note_number or "" if refunded else "",
        can_withdraw=returns.may_take(ret, "withdraw"),
    )


@dataclasses.dataclass
class AdminReturnRow:
    """A return as the back office's Returns tab shows it, with the steps its status allows."""

    id: str = ""
    order_id: str = ""
    short_order: str = ""
    customer: str = ""
    email: str = ""
    date_text: str = ""
    item_lines: list[str] = dataclasses.field(default_factory=list)
    reason: str = ""
    refund_text: str = ""
    method_text: str = ""  # "Mobile money" | "Cash"
    mobile_money: bool = False
    test_payment: bool = False
    status: str = ""
    status_text: str = ""
    badge: str = "secondary"
    note: str = ""
    refund_problem: str = ""  # the provider's words on a refund that did not go through
    refund_pending: bool = False  # queued by the provider: "Check refund" asks how it stands
    credit_note: str = ""
    can_decide: bool = False  # Approve
    can_reject: bool = False  # a requested return, or an approved one never sent back
    can_receive: bool = False
    can_refund: bool = False
    can_refund_in_cash: bool = False  # its mobile-money refund failed: "Refund in cash" beside the retry


def admin_return_row(view: returns.ReturnView, order: Order | None) -> AdminReturnRow:
    ret, customer = view.ret, view.customer
    name = full_name(customer)
    mobile_money = ret.refund_method == RefundMethod.MOBILE_MONEY.value
    return AdminReturnRow(
        id=ret.id,
        order_id=ret.order_id,
        short_order=ret.order_id[:8],
        customer=name or (customer.email if customer else ""),
        email=customer.email if customer else "",
        date_text=ghana_time(ret.created_at, "%d %b %Y, %H:%M") if ret.created_at else "",
        item_lines=item_texts(view),
        reason=ret.reason,
        refund_text=money_text(ret.refund_amount),
        method_text="Mobile money" if mobile_money else "Cash",
        mobile_money=mobile_money,
        test_payment=bool(order is not None and is_test_payment(order)),
        status=ret.status,
        status_text=status_text(ret),
        badge=STATUS_BADGES.get(ret.status, "secondary"),
        note=ret.admin_note,
        refund_pending=returns.refund_waiting(ret),
        refund_problem=(ret.refund_provider_status if ret.refund_state == RefundState.FAILED.value else ""),
        credit_note=ret.credit_note_number or "",
        can_decide=returns.may_take(ret, "approve"),
        can_reject=returns.may_take(ret, "reject"),
        can_receive=returns.may_take(ret, "receive"),
        can_refund=returns.may_take(ret, "refund"),
        can_refund_in_cash=returns.may_refund_in_cash(ret),
    )
