"""What may happen to an order next: pay it, cancel it, move it to another status.

Pure functions of an :class:`~discount_deals.models.Order`, no I/O: the API's order JSON, the
order page, the admin order view and the services that act (``payments.begin_payment``,
``orders.status.cancel_order`` and ``change_status``) all ask these, so a button is shown
exactly when the action behind it would be accepted.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ...models import Attention, DeliveryMethod, Order, OrderStatus, PaymentMethod, PaymentStatus

S = OrderStatus

# Where an admin may move an order. Shipping applies to home delivery, "ready for pickup" to
# pickup orders (see transition_problem); delivered and cancelled are final.
ADMIN_TRANSITIONS: dict[str, tuple[str, ...]] = {
    S.PENDING.value: (S.PROCESSING.value, S.CANCELLED.value),
    S.PROCESSING.value: (S.SHIPPED.value, S.READY_FOR_PICKUP.value, S.CANCELLED.value),
    S.SHIPPED.value: (S.DELIVERED.value,),
    S.READY_FOR_PICKUP.value: (S.DELIVERED.value,),
}
# A customer may cancel only what nobody has started preparing.
CUSTOMER_TRANSITIONS: dict[str, tuple[str, ...]] = {S.PENDING.value: (S.CANCELLED.value,)}
# Payment states in which an order may be prepared: the money is in, or comes with the rider.
SETTLED = frozenset({PaymentStatus.PAY_ON_DELIVERY.value, PaymentStatus.PAID.value})
# Payment states in which a mobile-money order still owes its money.
OWING = frozenset({PaymentStatus.AWAITING_PAYMENT.value, PaymentStatus.FAILED.value})
# Revenue is money RECEIVED: a paid order (mobile money reported paid, or a cash order marked
# paid when it was delivered or collected: orders.status.change_status) that is not cancelled (a
# cancelled paid order's money is owed back) and whose money was not a test payment. Cash still
# with the rider, an awaited, failed, expired or refunded payment is none. services.reports sums
# it in SQL (revenue_condition) from these same values.
REVENUE_PAYMENT_STATES = (PaymentStatus.PAID.value,)


def is_test_payment(order: Order) -> bool:
    """Mobile money charged through the fake provider: no money moved. A test charge that failed
    before the shopper switched to cash leaves the cash order a real one (Order.payment_test
    stays set: "once a test, always marked" describes the charges, not the cash)."""
    return bool(order.payment_test) and order.payment_method == PaymentMethod.MOBILE_MONEY.value


def counts_as_revenue(order: Order) -> bool:
    """Whether the order's total is money received (see :data:`REVENUE_PAYMENT_STATES`)."""
    return (
        order.status != S.CANCELLED.value
        and order.payment_status in REVENUE_PAYMENT_STATES
        and not is_test_payment(order)
    )


def payment_problem(order: Order) -> str | None:
    """Why the customer cannot (re)start paying this order, or None when they can."""
    if order.payment_method != PaymentMethod.MOBILE_MONEY.value:
        return "This order is paid on delivery."
    if order.status != S.PENDING.value:
        return "This order can no longer be paid."
    if order.payment_status not in OWING:
        return "This order is already paid."
    if order.attention:
        return "This order's payment is being checked by our team."
    return None


TIME_UP = "The time to pay this order is up."


def payment_time_up(order: Order, now: datetime) -> bool:
    """The unpaid order's hold ran out (``payment_due_at``): no new charge starts and it is not
    switched to cash, for the stock goes back on sale (a charge already live may still finish:
    .expiry waits for it)."""
    due = order.payment_due_at
    return due is not None and (due if due.tzinfo else due.replace(tzinfo=UTC)) <= now


def owes_payment(order: Order) -> bool:
    """A mobile-money order whose money has not come in: awaited, or its last charge failed."""
    return order.payment_method == PaymentMethod.MOBILE_MONEY.value and order.payment_status in OWING


def is_payable(order: Order) -> bool:
    """A mobile-money order that is pending, still owes its money and is not flagged for an admin."""
    return payment_problem(order) is None


def cancel_problem(order: Order) -> str | None:
    """Why the customer cannot cancel this order, or None when they can (only while pending)."""
    if order.status == S.PENDING.value:
        return None
    if order.status == S.CANCELLED.value:
        return "This order is already cancelled."
    return "This order is being prepared and can no longer be cancelled."


def can_cancel(order: Order) -> bool:
    """The customer may cancel an order nobody has started preparing."""
    return cancel_problem(order) is None


def transition_problem(
    order: Order, to_status: str, transitions: dict[str, tuple[str, ...]] = ADMIN_TRANSITIONS
) -> str | None:
    """Why the order may not move to ``to_status`` under ``transitions``, or None when it may."""
    previous = order.status
    if to_status not in transitions.get(previous, ()):
        return f"Cannot change an order from {previous} to {to_status}."
    pickup = order.delivery_method == DeliveryMethod.PICKUP.value
    if to_status == S.SHIPPED.value and pickup:
        return "A pickup order is not shipped: mark it ready for pickup."
    if to_status == S.READY_FOR_PICKUP.value and not pickup:
        return "A home-delivery order is shipped, not collected."
    if to_status == S.PROCESSING.value and order.payment_status not in SETTLED:
        return "This order has not been paid yet."
    if to_status == S.PROCESSING.value and order.attention:
        return "This order is waiting for an admin to check its payment."
    return None


def allowed_statuses(order: Order, transitions: dict[str, tuple[str, ...]] = ADMIN_TRANSITIONS) -> list[str]:
    """The statuses the order may move to next (only those its delivery method and payment allow)."""
    return [to for to in transitions.get(order.status, ()) if transition_problem(order, to, transitions) is None]


def refund_due_on_cancel(order: Order) -> bool:
    """Cancelling this order leaves money to give back (paid, or paid the wrong amount)."""
    return order.payment_status == PaymentStatus.PAID.value or order.attention == Attention.AMOUNT_MISMATCH.value
