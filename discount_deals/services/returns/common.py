"""What every step of a return shares: its refusal codes, finding a return, its lines, the
quantities already returned and the order's figures for the share arithmetic."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session, select

from ...models import Order, OrderItem, PaymentMethod, RefundMethod, RefundState, ReturnLine, ReturnRequest, ReturnStatus, User
from .. import Conflict, ErrorCode, NotFound, ValidationFailed
from ..money import round_amount
from ..rows import by_id
from ..taxes import ZERO, rule_of, stored_tax_lines
from .shares import OrderFigures, Share, returned_share

# Refusal codes (``ServiceError.code``, in the API's body too): services.error_codes's, by the
# names this package reads them by.
NOT_DELIVERED = ErrorCode.NOT_DELIVERED
WINDOW_CLOSED = ErrorCode.RETURN_WINDOW_CLOSED
QUANTITY = ErrorCode.QUANTITY
NO_ITEMS = ErrorCode.NO_ITEMS
ITEMS_INVALID = ErrorCode.ITEMS_INVALID
UNKNOWN_PRODUCT = ErrorCode.UNKNOWN_PRODUCT
DUPLICATE_LINE = ErrorCode.DUPLICATE_LINE
REASON_REQUIRED = ErrorCode.REASON_REQUIRED
NOTE_REQUIRED = ErrorCode.NOTE_REQUIRED
WRONG_STATUS = ErrorCode.RETURN_STATUS
NOT_REFUNDED = ErrorCode.NOT_REFUNDED
REFUND_IN_PROGRESS = ErrorCode.REFUND_IN_PROGRESS
REFUND_FAILED = ErrorCode.REFUND_FAILED

REASON_LIMIT = 500
NOTE_LIMIT = 500
RETURN_NOT_FOUND = "Return not found."
# Returns that count against what may still be returned (a rejected one gives its items back).
LIVE = (ReturnStatus.REQUESTED.value, ReturnStatus.APPROVED.value, ReturnStatus.RECEIVED.value,
        ReturnStatus.REFUNDED.value)
# The statuses each back-office step starts from: the steps check them (steps.py, refunds.py) and
# the back office offers a step's button only on a return in one of them. An approved return
# whose items never came back is rejected too (with a note): nothing else could end it.
STEP_FROM: dict[str, tuple[str, ...]] = {
    "approve": (ReturnStatus.REQUESTED.value,),
    "reject": (ReturnStatus.REQUESTED.value, ReturnStatus.APPROVED.value),
    "receive": (ReturnStatus.APPROVED.value,),
    "refund": (ReturnStatus.RECEIVED.value,),
    # The customer's own step: until the items came back, nothing moved (stock, money).
    "withdraw": (ReturnStatus.REQUESTED.value, ReturnStatus.APPROVED.value),
}
STATUS_LABELS = {
    ReturnStatus.REQUESTED.value: "Requested",
    ReturnStatus.APPROVED.value: "Approved",
    ReturnStatus.REJECTED.value: "Rejected",
    ReturnStatus.RECEIVED.value: "Received",
    ReturnStatus.REFUNDED.value: "Refunded",
    ReturnStatus.WITHDRAWN.value: "Withdrawn",
}


def refused(detail: str, code: str, field: str | None = None) -> ValidationFailed:
    """A 400 with its code in the body (and ``field``'s message when one field is to blame)."""
    return ValidationFailed(detail, fields={field: [detail]} if field else None, code=code, expose_code=True)


def wrong_status(ret: ReturnRequest, step: str) -> Conflict:
    label = STATUS_LABELS.get(ret.status, ret.status).lower()
    return Conflict(f"This return is {label}: it cannot be {step} now.", code=WRONG_STATUS, expose_code=True)


@dataclass(frozen=True)
class ReturnView:
    """A return with its lines (and, for admins, whose it is)."""

    ret: ReturnRequest
    lines: list[ReturnLine]
    customer: User | None = None


def find_return(session: Session, return_id: object) -> ReturnRequest:
    ret = by_id(session, ReturnRequest, return_id)
    if ret is None:
        raise NotFound(RETURN_NOT_FOUND)
    return ret


def lines_of(session: Session, return_ids: Iterable[str]) -> dict[str, list[ReturnLine]]:
    """Each return's lines, by name, in one query."""
    ids = list(return_ids)
    by_return: dict[str, list[ReturnLine]] = {return_id: [] for return_id in ids}
    if ids:
        rows = session.exec(select(ReturnLine).where(ReturnLine.return_id.in_(ids))
                            .order_by(ReturnLine.name, ReturnLine.id)).all()
        for line in rows:
            by_return[line.return_id].append(line)
    return by_return


def view_of(session: Session, ret: ReturnRequest, customer: User | None = None) -> ReturnView:
    return ReturnView(ret, lines_of(session, [ret.id])[ret.id], customer)


def returned_quantities(session: Session, order_id: str, statuses: Iterable[str] = LIVE,
                        leave_out: str | None = None) -> dict[str, int]:
    """``{order item id: quantity}`` in the order's returns in ``statuses`` (but ``leave_out``)."""
    query = (select(ReturnLine.order_item_id, ReturnLine.quantity)
             .join(ReturnRequest, ReturnRequest.id == ReturnLine.return_id)
             .where(ReturnRequest.order_id == order_id, ReturnRequest.status.in_(list(statuses))))
    if leave_out:
        query = query.where(ReturnRequest.id != leave_out)
    totals: dict[str, int] = defaultdict(int)
    for item_id, quantity in session.exec(query).all():
        totals[item_id] += quantity
    return dict(totals)


def order_items(session: Session, order_id: str) -> list[OrderItem]:
    return list(session.exec(select(OrderItem).where(OrderItem.order_id == order_id)
                             .order_by(OrderItem.name, OrderItem.id)).all())


def figures_of(order: Order, items: Iterable[OrderItem]) -> OrderFigures:
    """The order as the share arithmetic sees it (its taxes as it was charged them)."""
    return OrderFigures(
        lines={item.id: (item.unit_price, item.quantity) for item in items},
        subtotal=order.subtotal, discount=order.discount, shipping=order.shipping, tax=order.tax,
        rule=rule_of(stored_tax_lines(order.tax_lines, order.tax)),
    )


def given_back(session: Session, order_id: str, figures: OrderFigures, refunded: dict[str, int]) -> Share:
    """What the order's credit notes gave back, added up (``refunded``: the quantities of its
    refunded returns, whose lines are the goods)."""
    rows = session.exec(select(ReturnRequest.refund_discount, ReturnRequest.refund_tax, ReturnRequest.refund_shipping,
                               ReturnRequest.refund_amount)
                        .where(ReturnRequest.order_id == order_id,
                               ReturnRequest.status == ReturnStatus.REFUNDED.value)).all()
    discount, tax, shipping, amount = (sum((row[index] for row in rows), ZERO) for index in range(4))
    return Share(returned_share(figures, refunded).goods, discount, tax, shipping, amount)


def may_take(ret: ReturnRequest, step: str) -> bool:
    """Whether the back-office ``step`` (a key of :data:`STEP_FROM`) may be taken on ``ret`` now."""
    return ret.status in STEP_FROM[step]


def may_refund_in_cash(ret: ReturnRequest) -> bool:
    """Whether ``ret`` may be refunded in cash in place of its mobile-money refund: a received
    return whose refund the provider refused or reported failed (never while it is being sent or
    pending: it may still go through)."""
    return (may_take(ret, "refund") and ret.refund_method == RefundMethod.MOBILE_MONEY.value
            and ret.refund_state == RefundState.FAILED.value)


def refund_waiting(ret: ReturnRequest) -> bool:
    """The provider queued the return's refund and has not said yet that it went through."""
    return ret.status == ReturnStatus.RECEIVED.value and ret.refund_state == RefundState.PENDING.value


def returnable(item: OrderItem, taken: dict[str, int]) -> int:
    """How many of an order's line may still go back: bought less what its live returns take
    (``taken``: :func:`returned_quantities`)."""
    return max(item.quantity - taken.get(item.id, 0), 0)


def quantities_of(lines: Iterable[ReturnLine]) -> dict[str, int]:
    return {line.order_item_id: line.quantity for line in lines}


def open_return(session: Session, order: Order, user_id: str, chosen: Iterable[tuple[OrderItem, int]],
                share: Share, reason: str, **fields) -> ReturnRequest:
    """A new return of ``chosen`` ((order line, quantity), ...) refunding ``share``, to be refunded
    the way the order was paid (``fields``: more of its columns, e.g. a status); flushed."""
    method = RefundMethod.MOBILE_MONEY if order.payment_method == PaymentMethod.MOBILE_MONEY.value else RefundMethod.CASH
    ret = ReturnRequest(order_id=order.id, user_id=user_id, reason=reason, refund_amount=share.amount,
                        refund_discount=share.discount, refund_tax=share.tax, refund_shipping=share.shipping,
                        refund_method=method.value, **fields)
    session.add(ret)
    session.flush()
    for item, quantity in chosen:
        session.add(ReturnLine(return_id=ret.id, order_item_id=item.id, product_id=item.product_id, name=item.name,
                               quantity=quantity, unit_price=item.unit_price,
                               amount=round_amount(item.unit_price * quantity)))
    session.flush()
    return ret
