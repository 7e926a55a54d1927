"""An order's life after it is placed: status changes, payment status, flags and the timeline.

Every status change goes through :func:`change_status`: it checks the transition, applies its
side effects (stock back on cancellation, cash collected on delivery, refunds due, a receipt
once the money is in: services.receipts) and records who and when as an OrderEvent in the same
transaction; payment and flag changes too, so an order's timeline is its events (:func:`timeline`).

Changes are guarded updates (``UPDATE ... WHERE status = :previous``): two admins, or an admin
and the payment timer, can never both cancel an order and restock it twice.

Takes the caller's session (unpaid mobile-money orders whose time is up: services.orders.expiry).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import func, or_, update
from sqlmodel import Session, select

from ...models import (Attention, DeliveryMethod, Order, OrderEvent, OrderItem, OrderStatus, PaymentStatus, Product, User)
from ...models.base import utcnow
from .. import Conflict, ErrorCode, ValidationFailed, audit, coupons, receipts
from ..messages import deals, notices
from ..moments import after_day, day_start
from .rules import (
    ADMIN_TRANSITIONS,
    CUSTOMER_TRANSITIONS,
    OWING,
    cancel_problem,
    refund_due_on_cancel,
    transition_problem,
)
from ..permissions import require_admin, require_user
from . import money_in
from .seen import CHANGED_TEXT, SeenOrder, lock_order
from ..rows import found, owned
from ..text_match import contains, starts_with

log = logging.getLogger("discount_deals.orders")

S = OrderStatus
STATUS_LABELS: dict[str, str] = {
    S.PENDING.value: "Pending",
    S.PROCESSING.value: "Processing",
    S.SHIPPED.value: "Shipped",
    S.READY_FOR_PICKUP.value: "Ready for pickup",
    S.DELIVERED.value: "Delivered",
    S.COMPLETED.value: "Completed",
    S.CANCELLED.value: "Cancelled",
}
PAYMENT_LABELS: dict[str, str] = {
    PaymentStatus.PAY_ON_DELIVERY.value: "Pay on delivery",
    PaymentStatus.AWAITING_PAYMENT.value: "Awaiting payment",
    PaymentStatus.PAID.value: "Paid",
    PaymentStatus.FAILED.value: "Payment failed",
    PaymentStatus.REFUNDED.value: "Refunded",
}
ATTENTION_LABELS: dict[str, str] = {
    Attention.AMOUNT_MISMATCH.value: "Payment amount does not match",
    Attention.REFUND_DUE.value: "Refund due",
    Attention.REFUNDED_TWICE.value: "Refunded twice",
    Attention.PICKUP_STORE_CHANGED.value: "Pickup store changed",
}
# A cancelled order in one of these payment states took no money.
NEVER_CHARGED = OWING | {PaymentStatus.PAY_ON_DELIVERY.value}
FINISHED = frozenset({S.DELIVERED.value, S.COMPLETED.value})
PROVIDER = "payment provider"
EXPIRED_STEP = "expired"  # Order.payment_step of an order whose payment time ran out
SHOP = "Discount Deals"


def status_label(status: str | None) -> str:
    return STATUS_LABELS.get((status or "").lower(), (status or "").replace("_", " ").capitalize() or "Pending")


def payment_label(order: Order) -> str:
    """The payment status as a shopper reads it (a cancelled, unpaid order owes nothing)."""
    if order.status == S.CANCELLED.value and order.payment_status in NEVER_CHARGED:
        # Money of another amount may have come in all the same: it is owed back.
        return ATTENTION_LABELS[order.attention] if order.attention == Attention.REFUND_DUE.value else "Not charged"
    if order.payment_status == PaymentStatus.PAY_ON_DELIVERY.value and order.delivery_method == DeliveryMethod.PICKUP:
        return "Pay at pickup"
    return PAYMENT_LABELS.get(order.payment_status, order.payment_status)


def order_label(order: Order) -> str:
    """How people name an order: "Order #" and the first 8 characters of its id (SPEC §2)."""
    return f"Order #{order.id[:8]}"


def actor_label(actor: User | None, fallback: str) -> str:
    return actor.email if actor is not None else fallback


def record_event(
    session: Session,
    order: Order,
    kind: str,
    to_value: str,
    *,
    from_value: str | None = None,
    actor: User | None = None,
    label: str = SHOP,
    note: str = "",
) -> OrderEvent:
    """Add one entry to the order's timeline (same transaction as the change it records), and
    queue the customer's message about it when it is news to them (``messages.notices``)."""
    event = OrderEvent(
        order_id=order.id,
        kind=kind,
        from_value=from_value,
        to_value=to_value,
        actor_id=actor.id if actor is not None else None,
        actor_label=actor_label(actor, label)[:254],
        note=note[:500],
    )
    session.add(event)
    notices.on_order_event(session, order, event)  # the customer's message, in this same transaction
    return event


def set_payment_status(
    session: Session, order: Order, to_status: str, *, actor: User | None = None, label: str = SHOP, note: str = ""
) -> bool:
    """Move the order's payment status (guarded); False when someone else changed it first."""
    previous = order.payment_status
    if previous == to_status:
        return False
    changed = session.execute(
        update(Order).where(Order.id == order.id, Order.payment_status == previous).values(payment_status=to_status)
    )
    if changed.rowcount != 1:
        return False
    order.payment_status = to_status
    if to_status == PaymentStatus.PAID.value:  # the money is in: its receipt, before the event's message
        receipts.issue_receipt(session, order)
    record_event(session, order, "payment", to_status, from_value=previous, actor=actor, label=label, note=note)
    return True


def flag(session: Session, order: Order, code: str | None, note: str, *, actor: User | None = None,
         label: str = SHOP) -> None:
    """Ask an admin to act on the order (``code``: an Attention value), or clear the flag (None).

    An order has one flag: a second one keeps the first's note before its own, and a refund due
    stays one whatever comes after it (money owed is never hidden behind another question)."""
    previous = order.attention
    if code and previous:
        code = Attention.REFUND_DUE.value if Attention.REFUND_DUE.value in (code, previous) else code
        note = f"{order.attention_note} Then: {note}"
    order.attention = code
    order.attention_note = note[:500] if code else ""
    session.add(order)
    record_event(session, order, "attention", code or "resolved", from_value=previous, actor=actor, label=label,
                 note=note)


def _restock(session: Session, order: Order) -> None:
    quantities = session.exec(
        select(OrderItem.product_id, OrderItem.quantity).where(
            OrderItem.order_id == order.id, OrderItem.product_id.is_not(None)
        )
    ).all()
    for product_id, quantity in sorted(quantities):
        after = session.execute(update(Product).where(Product.id == product_id)
                                .values(stock=Product.stock + quantity).returning(Product.stock)).scalar()
        if after is not None:  # back in stock from zero: its fans' deal alerts
            deals.stock_changed(session, product_id, after - quantity, after)


def change_status(
    session: Session,
    order: Order,
    to_status: str,
    *,
    actor: User | None,
    label: str = SHOP,
    note: str = "",
    transitions: dict[str, tuple[str, ...]] = ADMIN_TRANSITIONS,
    seen: SeenOrder | None = None,
) -> Order:
    """The one way an order's status changes: check, apply side effects, record who and when.

    Cancelling puts the stock back (exactly once), gives back the coupon's use and, when money
    was received, flags a refund for an admin. Delivering a cash-on-delivery order records the cash as paid.
    400 (code ``transition``) for a move the rules forbid; 409 (``changed``) when the order changed
    since it was read, or since the admin's page showed it (``seen``: a payment came in; :mod:`.seen`).
    """
    valid = list(STATUS_LABELS)
    read = order.status
    lock_order(session, order, seen)  # what it decides (a refund due?) is what the row holds now
    if order.status != read:
        raise Conflict(CHANGED_TEXT, code=ErrorCode.CHANGED)
    if to_status not in valid or to_status == S.COMPLETED.value:
        message = f"Status must be one of: {', '.join(s for s in valid if s != S.COMPLETED.value)}."
        raise ValidationFailed(message, fields={"status": [message]}, code=ErrorCode.STATUS_INVALID)
    problem = transition_problem(order, to_status, transitions)
    if problem is not None:
        raise ValidationFailed(problem, fields={"status": [problem]}, code=ErrorCode.TRANSITION)
    previous = order.status
    changed = session.execute(
        update(Order).where(Order.id == order.id, Order.status == previous).values(status=to_status)
    )
    if changed.rowcount != 1:
        raise Conflict(CHANGED_TEXT, code=ErrorCode.CHANGED)
    order.status = to_status
    if to_status == S.DELIVERED.value:
        order.delivered_at = utcnow()  # returns are open for DD_RETURN_DAYS from now (services.returns)
    if to_status == S.DELIVERED.value and order.payment_status == PaymentStatus.PAY_ON_DELIVERY.value:
        receipts.issue_receipt(session, order)  # the cash is in: the "delivered" message carries the receipt
    record_event(session, order, "status", to_status, from_value=previous, actor=actor, label=label, note=note)
    audit.record(session, actor, "order.status", "order", order.id, changes={"status": [previous, to_status]},
                 label=order_label(order), actor_fallback=label)

    if to_status == S.CANCELLED.value:
        _restock(session, order)
        coupons.release(session, order.coupon_code)  # the coupon's use goes back too
        if refund_due_on_cancel(order):
            flag(session, order, Attention.REFUND_DUE.value,
                 "The order was cancelled after money was received: refund the customer.", actor=actor, label=label)
        elif order.payment_status == PaymentStatus.AWAITING_PAYMENT.value:
            set_payment_status(session, order, PaymentStatus.FAILED.value, actor=actor, label=label,
                               note="Order cancelled before it was paid")
    elif to_status == S.DELIVERED.value and order.payment_status == PaymentStatus.PAY_ON_DELIVERY.value:
        set_payment_status(session, order, PaymentStatus.PAID.value, actor=actor, label=label,
                           note="Cash collected on delivery" if order.delivery_method != DeliveryMethod.PICKUP
                           else "Cash collected at pickup")
    session.flush()
    session.refresh(order)
    return order


def admin_change_status(session: Session, actor: User | None, order_id: str, to_status: Any,
                        seen: SeenOrder | None = None) -> Order:
    """An admin moves an order along (ADMIN_TRANSITIONS) from what their page showed (``seen``)."""
    require_admin(actor)
    order = found(session, Order, order_id, "Order not found.")
    if not isinstance(to_status, str):
        to_status = ""
    return change_status(session, order, to_status, actor=actor, seen=seen)


def cancel_order(session: Session, user: User | None, order_id: str) -> Order:
    """The customer cancels their own order while it is pending (payment awaited or not).

    404 for anyone else's order (admins use :func:`admin_change_status`); 409 (code
    ``not_cancellable``) once it is being prepared, delivered or already cancelled.
    """
    user = require_user(user)
    order = owned(session, Order, order_id, user, "Order not found.")
    problem = cancel_problem(order)
    if problem is not None:
        raise Conflict(problem, code=ErrorCode.NOT_CANCELLABLE)
    try:
        return change_status(session, order, S.CANCELLED.value, actor=user, transitions=CUSTOMER_TRANSITIONS,
                             note="Cancelled by the customer")
    except (Conflict, ValidationFailed):
        raise Conflict("This order can no longer be cancelled.", code=ErrorCode.NOT_CANCELLABLE) from None


def mark_refunded(session: Session, actor: User | None, order_id: str, note: str = "",
                  seen: SeenOrder | None = None) -> Order:
    """An admin records that the money the flag names was given back (orders flagged "refund
    due"). A cancelled order's payment is then refunded, and its ``refunded_total`` is what was
    paid (its total, or what charges of another amount brought in: :mod:`.money_in`); so is an
    order whose every item came back and was refunded for less than its total, the rest now
    counted (``money_in.owed_of_total``). An order that goes on (it was paid twice) stays paid:
    only the second payment went back, which is no part of its total (``seen``: :func:`lock_order`)."""
    require_admin(actor)
    order = lock_order(session, found(session, Order, order_id, "Order not found."), seen)
    if order.attention != Attention.REFUND_DUE.value:
        raise Conflict("This order has no refund due.", code=ErrorCode.NO_REFUND_DUE)
    previous, owed = order.payment_status, money_in.owed_of_total(session, order)
    after = PaymentStatus.REFUNDED.value if order.status == S.CANCELLED.value or owed else previous
    set_payment_status(session, order, after, actor=actor, note=note or ("The rest was given back" if owed else "Refunded"))
    changes = {"payment_status": [previous, after]} if after != previous else {"attention": [order.attention, None]}
    if after != previous:  # a charge of another amount: what came in; items refunded short: the rest
        given_back = order.refunded_total + owed if owed else money_in.to_give_back(session, order)
        changes["refunded_total"] = [order.refunded_total, given_back]
        order.refunded_total = given_back
        session.add(order)
    audit.record(session, actor, "order.refund", "order", order.id, changes=changes, label=order_label(order))
    flag(session, order, None, "", actor=actor)
    session.flush()
    session.refresh(order)
    return order


# --- reading -------------------------------------------------------------------------------


def timeline(session: Session, order: Order) -> list[OrderEvent]:
    """The order's events, oldest first."""
    return list(
        session.exec(
            select(OrderEvent).where(OrderEvent.order_id == order.id).order_by(OrderEvent.created_at, OrderEvent.id)
        ).all()
    )


@dataclass(frozen=True)
class OrderFilters:
    status: str = ""
    payment_status: str = ""
    delivery_method: str = ""
    date_from: date | None = None
    date_to: date | None = None
    search: str = ""  # an order number's start, part of the customer's email or name, or a phone number
    attention_only: bool = False


@dataclass(frozen=True)
class AdminOrderRow:
    order: Order
    email: str
    name: str


_FILTER_CHOICES = {"status": OrderStatus, "payment_status": PaymentStatus, "delivery_method": DeliveryMethod}


def _check_choices(filters: OrderFilters) -> None:
    for name, choices in _FILTER_CHOICES.items():
        value = getattr(filters, name)
        if value and value not in {choice.value for choice in choices}:
            message = f'"{value[:40]}" is not a valid {name}; use one of {", ".join(c.value for c in choices)}.'
            raise ValidationFailed(message, fields={name: [message]})


def _phone_digits(term: str) -> str:
    """The national digits of a phone number searched for ("024 111 2233", "+233241112233" and
    "0241112233" are "241112233"); "" when the term is no number (fewer than 6 digits, or letters)."""
    if re.search(r"[^\d\s()+.-]", term):
        return ""
    digits = re.sub(r"\D", "", term)
    if digits.startswith("233") and len(digits) > 9:
        digits = digits[3:]
    digits = digits.lstrip("0")
    return digits if len(digits) >= 6 else ""


def _search_condition(term: str) -> Any:
    """An order number's start, or part of the customer's email or name, or a phone number the
    order or the account carries (what an admin has when a customer calls)."""
    name = func.lower(func.coalesce(User.first_name, "") + " " + func.coalesce(User.last_name, ""))
    matches = [starts_with(Order.id, term), contains(func.lower(User.email), term), contains(name, term)]
    digits = _phone_digits(term)
    if digits:
        matches += [contains(Order.contact_phone, digits), contains(Order.payment_phone, digits),
                    contains(User.phonenumber, digits)]
    return or_(*matches)


def admin_orders(
    session: Session, actor: User | None, filters: OrderFilters = OrderFilters(), *, offset: int = 0, limit: int = 20
) -> tuple[list[AdminOrderRow], int]:
    """Every customer's orders, newest first, filtered in SQL (admins only); 400 naming a filter
    whose value is none of its choices ("PENDING", "bogus" found nothing, as if none matched)."""
    require_admin(actor)
    _check_choices(filters)
    conditions: list[Any] = []
    if filters.status:
        conditions.append(Order.status == filters.status)
    if filters.payment_status:
        conditions.append(Order.payment_status == filters.payment_status)
    if filters.delivery_method:
        conditions.append(Order.delivery_method == filters.delivery_method)
    if filters.date_from:
        conditions.append(Order.created_at >= day_start(filters.date_from))
    if filters.date_to:
        conditions.append(Order.created_at < after_day(filters.date_to))
    if filters.attention_only:
        conditions.append(Order.attention.is_not(None))
    term = filters.search.strip().lower().lstrip("#")[:100]
    if term:
        conditions.append(_search_condition(term))
    base = select(Order, User.email, User.first_name, User.last_name).join(User, User.id == Order.user_id)
    counted = select(func.count()).select_from(Order).join(User, User.id == Order.user_id)
    for condition in conditions:
        base = base.where(condition)
        counted = counted.where(condition)
    total = session.exec(counted).one()
    rows = session.exec(base.order_by(Order.created_at.desc(), Order.id.desc()).offset(offset).limit(limit)).all()
    return [AdminOrderRow(order, email, f"{first} {last}".strip() or email) for order, email, first, last in rows], total


def customer_of(session: Session, order: Order) -> User | None:
    return session.get(User, order.user_id)
