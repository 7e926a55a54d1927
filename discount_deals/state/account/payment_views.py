"""How the order page's payment step reads: what the current mobile-money charge waits for, the
words for each outcome, and when the page keeps asking the provider.

Steps (``Order.payment_step``, services.payments): ``send_otp`` (type the code or voucher),
``pay_offline`` (approve the prompt on the phone), ``pending`` (the network has not answered);
then ``paid``, ``failed`` (try again) or ``expired`` (the order was cancelled when its time ran
out). The page polls while the charge waits on the phone or the network, every
``payments.POLL_SECONDS`` at most, in a background event that holds no lock while it waits.
"""

from __future__ import annotations

import math

from ...models import DeliveryMethod, Order, OrderStatus, PaymentMethod, PaymentStatus
from ...services import ServiceError, payments
from ...services.error_codes import ErrorCode
from ...services.orders.rules import is_payable
from ...services.orders.status import EXPIRED_STEP
from ...config.settings import get_settings
from ..actions import Toast

WATCHED = (payments.PAY_OFFLINE, payments.PENDING)


def watch_limit() -> int:
    """Polls a page makes at most: until an unpaid order's time is up, and a minute more."""
    return math.ceil(get_settings().checkout.payment_timeout_minutes * 60 / payments.POLL_SECONDS) + 6


def payment_started(order: Order) -> bool:
    """A mobile-money charge the provider took (it waits for the shopper, or already answered)."""
    return order.payment_method == PaymentMethod.MOBILE_MONEY.value and bool(
        order.payment_step or order.payment_status != PaymentStatus.AWAITING_PAYMENT.value
    )


def payment_stage(order: Order) -> str:
    """The step the page shows: "" (cash), send_otp, pay_offline, pending, start (not started:
    the provider could not be reached), paid, failed, expired, checking (flagged for our team)."""
    if order.payment_method != PaymentMethod.MOBILE_MONEY.value:
        return ""
    if order.payment_status in (PaymentStatus.PAID.value, PaymentStatus.REFUNDED.value):
        return "paid"
    if order.status == OrderStatus.CANCELLED.value:
        # Cancelled by the timer once its time was up, or by someone before: nothing to pay then.
        return "expired" if order.payment_step == EXPIRED_STEP else ""
    if order.attention:
        return "checking"
    if order.payment_status == PaymentStatus.FAILED.value:
        return "failed"
    if is_payable(order):
        return order.payment_step or "start"
    return ""


def payment_outcome(order: Order | None) -> Toast | None:
    """What the shopper reads once the provider has answered (nothing when the order is gone)."""
    if order is None:
        return None
    if order.payment_status == PaymentStatus.PAID.value:
        return "Payment successful", "Your order has been placed."
    if order.payment_status == PaymentStatus.FAILED.value:
        return ("Payment failed",
                "The mobile money payment was not completed. You can try again or cancel the order.", "error")
    if order.attention:
        return "Payment being checked", "Our team is checking this payment.", "warning"
    if order.payment_step == payments.SEND_OTP:
        return "Enter the code", "Type the code from your phone to pay.", "info"
    return ("Waiting for your payment",
            "Approve the prompt on your phone: we check every 10 seconds.", "info")


def pay_refused(exc: ServiceError, title: str = "Payment not started") -> Toast:
    """What the shopper reads when "Pay" / "Try again" starts no charge (by the refusal's code);
    ``title``: what the tap meant to do ("Pay cash on delivery instead" starts no charge either)."""
    if exc.code == ErrorCode.CHARGE_IN_PROGRESS:
        return "Payment already started", exc.detail, "info"
    if exc.code == ErrorCode.TOO_MANY_CHARGES:
        return "Please wait", exc.detail, "warning"
    return title, exc.detail or None, "error"


CODE_REFUSED = "That code was not accepted: check it and type it again."


def cash_chosen(order: Order) -> Toast:
    """What the shopper reads after switching a failed mobile-money order to cash (issue 32)."""
    if order.delivery_method == DeliveryMethod.PICKUP:
        return "Pay at pickup", "You pay when you collect your order."
    return "Cash on delivery", "You pay in cash when your order is delivered."
