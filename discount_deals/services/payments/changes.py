"""A way out of a failed mobile-money payment (issue 32): pay from another number or network,
or pay in cash on delivery (at pickup) instead.

Both take the caller's session and touch no provider: a new charge to the new number is started
by the face afterwards (:func:`.flow.begin_payment`, which owns its transactions). Neither is
allowed while a charge is live (waiting for a code or an approval): the shopper could approve
it meanwhile and pay twice.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session

from ...models import Order, PaymentMethod, PaymentStatus, User
from .. import Conflict, ValidationFailed
from ..orders import status as lifecycle
from ..error_codes import ErrorCode
from ..orders.rules import TIME_UP, payment_problem, payment_time_up
from ..permissions import require_user
from ..phones import NETWORKS, guess_network, normalise_mobile
from ..rows import owned
from .charges import CHARGE_IN_PROGRESS, check_new_charge, live_charge

NETWORK_INVALID = "Choose MTN MoMo, Telecel Cash or AirtelTigo Money."
ORDER_CHANGED = "This order's payment changed meanwhile. Please look at it again."


def _changeable(session: Session, user: User | None, order_id: str) -> tuple[User, Order]:
    """The user's unpaid mobile-money order with no live charge, locked for the change (a late
    payment's webhook waits, and then finds the order changed; or it came first, and the order
    is paid here)."""
    user = require_user(user)
    order = owned(session, Order, order_id, user, "Order not found.", for_update=True)
    problem = payment_problem(order) or (TIME_UP if payment_time_up(order, datetime.now(UTC)) else None)
    if problem:
        raise Conflict(problem, code=ErrorCode.NOT_PAYABLE)
    if live_charge(session, order, datetime.now(UTC)) is not None:
        raise Conflict(CHARGE_IN_PROGRESS, code=ErrorCode.CHARGE_IN_PROGRESS)
    return user, order


def change_payment_number(session: Session, user: User | None, order_id: str, phone: object,
                          network: object = None) -> Order:
    """Pay this order from another mobile-money number or network (the network guessed from the
    number when none is given). 400 ``phone_invalid`` / ``network_invalid``; 409 ``not_payable``
    or ``charge_in_progress``, 429 ``too_many_charges``;
    404 for others' orders."""
    number = normalise_mobile(phone)
    chosen = network if isinstance(network, str) and network else guess_network(number)
    if chosen not in NETWORKS:
        raise ValidationFailed(NETWORK_INVALID, fields={"network": [NETWORK_INVALID]}, code=ErrorCode.NETWORK_INVALID)
    user, order = _changeable(session, user, order_id)
    check_new_charge(session, order)  # 429 before anything changes when the order had its charges
    order.payment_phone, order.payment_network = number, chosen
    session.add(order)
    lifecycle.record_event(session, order, "payment", order.payment_status, from_value=order.payment_status,
                           actor=user, label=lifecycle.SHOP, note="Paying from another number")
    return order


def switch_to_cash(session: Session, user: User | None, order_id: str) -> Order:
    """Pay this order in cash on delivery (or at pickup) instead: it no longer waits for mobile
    money, so its payment deadline goes (the stock stays with the order, as for any cash order).
    409 ``not_payable`` or ``charge_in_progress``; 404 for others' orders."""
    user, order = _changeable(session, user, order_id)
    order.payment_method = PaymentMethod.CASH_ON_DELIVERY.value
    order.payment_due_at = None
    order.payment_step = None
    order.payment_prompt = ""
    session.add(order)
    if not lifecycle.set_payment_status(session, order, PaymentStatus.PAY_ON_DELIVERY.value, actor=user,
                                        note="Switched to cash"):
        raise Conflict(ORDER_CHANGED, code=ErrorCode.NOT_PAYABLE)  # the caller's rollback undoes the method
    return order
