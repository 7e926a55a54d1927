"""Mobile-money payments behind one small provider interface.

A provider starts a charge (returning the page where the shopper approves it), verifies a
charge by reference, and parses its signed webhooks. Two exist:

* ``fake`` (development and tests): our own page (``/api/payments/fake/{reference}/``) where
  the shopper approves or declines; it then sends our webhook a signed event, exactly as a
  real provider would, and returns the shopper to the order.
* ``paystack``: any Paystack-compatible API (``DD_PAYSTACK_BASE_URL``): ``POST
  /transaction/initialize`` and ``GET /transaction/verify/{reference}`` over HTTPS with the
  secret key, webhooks signed in ``X-Paystack-Signature``.

Webhooks: ``X-Signature`` (or ``X-Paystack-Signature``) is the hex HMAC-SHA512 of the raw body
with the webhook secret; the body is ``{"event": "charge.success" | "charge.failed", "data":
{"reference", "amount"}}`` where ``amount`` is in minor units (pesewas), as Paystack sends it
(a decimal string such as ``"36.77"`` is read as cedis). :func:`apply_report` applies a
report once: a replayed event changes nothing, and a payment of another amount than the order's
total flags the order for an admin instead of marking it paid.

No database transaction is held while a provider is called over the network: the functions
that call one (:func:`send_to_provider`, :func:`begin_payment`, :func:`check_payment`) open
their own short transactions around the call, which is why they take no session.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol
from urllib.parse import quote

import httpx
from sqlmodel import Session, select

from .. import bounded_json
from ..db import session_scope, write_session
from ..models import Attention, Order, OrderStatus, Payment, PaymentMethod, PaymentStatus, User
from ..settings import get_settings
from . import Conflict, NotFound, ServiceError, ValidationFailed
from . import order_status as lifecycle
from .checkout import NETWORKS, display_phone
from .order_rules import payment_problem
from .permissions import require_user
from .pricing import format_money, from_minor_units, minor_units

log = logging.getLogger("discount_deals.payments")

SUCCESS, FAILED, PENDING, MISMATCH = "success", "failed", "pending", "mismatch"
EVENTS = {"charge.success": SUCCESS, "charge.failed": FAILED}
FAKE_PAGE = "/api/payments/fake/{reference}/"


class ProviderUnavailable(ServiceError):
    """The payment provider could not be reached or refused the request."""

    status = 502

    def __init__(self, detail: str = "The payment provider could not be reached. Please try again."):
        super().__init__(detail, code="provider_unavailable")


class BadSignature(ServiceError):
    status = 401

    def __init__(self, detail: str = "Invalid webhook signature."):
        super().__init__(detail, code="bad_signature")


@dataclass(frozen=True)
class ChargeRequest:
    reference: str
    amount: Decimal
    currency: str
    email: str
    phone: str
    network: str
    callback_url: str
    order_id: str


@dataclass(frozen=True)
class ChargeReport:
    """What a provider says about one charge: ``success``, ``failed`` or ``pending``."""

    reference: str
    status: str
    amount_minor: int | None = None


class PaymentProvider(Protocol):
    name: str

    def start_charge(self, request: ChargeRequest) -> str:
        """Register the charge; return the URL where the shopper completes it."""

    def verify(self, reference: str) -> ChargeReport:
        """Ask the provider how the charge stands."""

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        """Check the signature (BadSignature) and read the event; None for events we do not use."""


def sign(raw: bytes, secret: str) -> str:
    """The webhook signature: hex HMAC-SHA512 of the raw body."""
    return hmac.new(secret.encode(), raw, hashlib.sha512).hexdigest()


def _amount_minor(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("amount")
    if isinstance(value, int):
        from_minor_units(value)  # ValueError when too large to be money (10**40)
        return value
    if isinstance(value, str) and value.strip():
        try:
            amount = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError("amount") from None
        if amount.is_finite():
            return minor_units(amount)
    raise ValueError("amount")


def parse_signed_event(raw: bytes, headers: Mapping[str, str], secret: str, header_names: tuple[str, ...]):
    """A signed ``charge.*`` event as a ChargeReport (401 for a bad signature, 400 for a bad body)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    given = next((lowered[name] for name in header_names if lowered.get(name)), "")
    if not given or not hmac.compare_digest(given.strip().lower(), sign(raw, secret)):
        raise BadSignature()
    try:
        body = bounded_json.parse(raw)
        event = body["event"]
        data = body["data"]
        reference = data["reference"]
        if not isinstance(event, str) or not isinstance(reference, str) or not reference:
            raise ValueError("event")
    except (ValueError, KeyError, TypeError):
        raise ValidationFailed("Invalid webhook body.", code="webhook_invalid") from None
    if event not in EVENTS:
        return None
    try:
        amount = _amount_minor(data.get("amount"))
    except ValueError:
        raise ValidationFailed("Invalid webhook amount.", code="webhook_invalid") from None
    return ChargeReport(reference=reference, status=EVENTS[event], amount_minor=amount)


def event_body(event: str, reference: str, amount_minor: int) -> bytes:
    return json.dumps({"event": event, "data": {"reference": reference, "amount": amount_minor}}).encode()


# --- providers --------------------------------------------------------------------------------


class FakeProvider:
    """Our own approve/decline page standing in for a provider.

    It plays a remote service, so it keeps its records (callback URL, the shopper's decision)
    in the payment row's ``provider_data["fake"]`` through transactions of its own.
    """

    name = "fake"

    def __init__(self, webhook_secret: str):
        self._secret = webhook_secret

    def start_charge(self, request: ChargeRequest) -> str:
        with write_session() as session:
            payment = _payment(session, request.reference)
            payment.provider_data = {**payment.provider_data, "fake": {"callback_url": request.callback_url}}
            session.add(payment)
        return FAKE_PAGE.format(reference=quote(request.reference, safe=""))

    def verify(self, reference: str) -> ChargeReport:
        with session_scope() as session:
            payment = _payment(session, reference)
            record = payment.provider_data.get("fake") or {}
            status = record.get("result") or PENDING
            return ChargeReport(reference, status, minor_units(payment.amount))

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-signature",))

    def page(self, reference: str) -> dict[str, Any]:
        """What the fake page shows (404 once the charge is unknown)."""
        with session_scope() as session:
            payment = _payment(session, reference)
            order = session.get(Order, payment.order_id)
            record = payment.provider_data.get("fake") or {}
            return {
                "reference": payment.reference,
                "amount": f"{payment.currency} {payment.amount:.2f}",
                "network": NETWORKS.get(order.payment_network or "", (order.payment_network or "",))[0],
                "phone": display_phone(order.payment_phone),
                "order": order.id[:8],
                "decided": record.get("result"),
                "callback_url": record.get("callback_url") or "/orders",
            }

    def decide(self, reference: str, approve: bool) -> tuple[bytes, str, str]:
        """Record the shopper's decision; return the signed webhook to send and where to go next."""
        with write_session() as session:
            payment = _payment(session, reference)
            record = dict(payment.provider_data.get("fake") or {})
            record.setdefault("result", SUCCESS if approve else FAILED)
            payment.provider_data = {**payment.provider_data, "fake": record}
            session.add(payment)
            raw = event_body(
                "charge.success" if record["result"] == SUCCESS else "charge.failed",
                payment.reference,
                minor_units(payment.amount),
            )
        return raw, sign(raw, self._secret), record.get("callback_url") or "/orders"


class PaystackProvider:
    """A Paystack-compatible API over HTTPS (``/transaction/initialize``, ``/transaction/verify``)."""

    name = "paystack"

    def __init__(self, base_url: str, secret_key: str, webhook_secret: str, timeout: float):
        self._base = base_url.rstrip("/")
        self._key = secret_key
        self._secret = webhook_secret
        self._timeout = timeout

    def _call(self, method: str, path: str, **kwargs) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "application/json"}
        try:
            with httpx.Client(timeout=self._timeout) as client:
                response = client.request(method, f"{self._base}{path}", headers=headers, **kwargs)
            body = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("paystack %s %s failed: %s", method, path, exc)
            raise ProviderUnavailable() from None
        if response.status_code >= 400 or not isinstance(body, dict) or not body.get("status"):
            message = body.get("message") if isinstance(body, dict) else None
            log.warning("paystack %s %s refused (%s): %s", method, path, response.status_code, message)
            raise ProviderUnavailable(
                f"The payment provider refused the payment: {message}" if message else ProviderUnavailable().detail
            )
        data = body.get("data")
        if not isinstance(data, dict):
            raise ProviderUnavailable()
        return data

    def start_charge(self, request: ChargeRequest) -> str:
        data = self._call(
            "POST",
            "/transaction/initialize",
            json={
                "email": request.email,
                "amount": minor_units(request.amount),
                "currency": request.currency,
                "reference": request.reference,
                "callback_url": request.callback_url,
                "channels": ["mobile_money"],
                "metadata": {"order_id": request.order_id, "phone": request.phone, "network": request.network},
            },
        )
        url = data.get("authorization_url")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise ProviderUnavailable()
        return url

    def verify(self, reference: str) -> ChargeReport:
        data = self._call("GET", f"/transaction/verify/{quote(reference, safe='')}")
        status = data.get("status")
        try:
            amount = _amount_minor(data.get("amount"))
        except ValueError:
            amount = None
        if status == "success":
            return ChargeReport(reference, SUCCESS, amount)
        if status in ("failed", "abandoned", "reversed"):
            return ChargeReport(reference, FAILED, amount)
        return ChargeReport(reference, PENDING, amount)

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-paystack-signature", "x-signature"))


def get_provider() -> PaymentProvider:
    """The provider the settings name."""
    checkout = get_settings().checkout
    if checkout.payment_provider == "paystack":
        return PaystackProvider(
            checkout.paystack_base_url,
            checkout.paystack_secret_key,
            checkout.webhook_secret,
            checkout.provider_timeout_seconds,
        )
    return FakeProvider(checkout.webhook_secret)


# --- payment rows -------------------------------------------------------------------------------


def _payment(session: Session, reference: str, *, lock: bool = False) -> Payment:
    query = select(Payment).where(Payment.reference == reference)
    if lock:
        query = query.with_for_update()
    payment = session.exec(query).first() if isinstance(reference, str) and reference else None
    if payment is None:
        raise NotFound("Payment not found.", code="unknown_reference")
    return payment


def new_reference(order_id: str) -> str:
    return f"DD-{order_id[:8]}-{secrets.token_hex(6)}"


def payment_deadline(now: datetime | None = None) -> datetime:
    return (now or datetime.now(UTC)) + timedelta(minutes=get_settings().checkout.payment_timeout_minutes)


def open_payment(session: Session, order: Order) -> Payment:
    """A new charge attempt for the order's total (in the caller's transaction)."""
    checkout = get_settings().checkout
    payment = Payment(
        order_id=order.id,
        provider=checkout.payment_provider,
        reference=new_reference(order.id),
        amount=order.total,
        currency=checkout.currency,
    )
    session.add(payment)
    order.payment_reference = payment.reference
    order.payment_url = None
    session.add(order)
    session.flush()
    return payment


def return_url(site_origin: str, order_id: str) -> str:
    """Where the provider sends the shopper back: the order's page."""
    return f"{site_origin.rstrip('/')}/orders/{order_id}"


def send_to_provider(order_id: str, reference: str, *, site_origin: str) -> str | None:
    """Start the charge with the provider and keep its payment page on the order.

    Returns the page's URL, or None when the provider could not be reached (the order keeps
    waiting for payment: the shopper can try again until the order expires).
    """
    with session_scope() as session:
        order = session.get(Order, order_id)
        payment = _payment(session, reference)
        user = session.get(User, order.user_id)
        request = ChargeRequest(
            reference=payment.reference,
            amount=payment.amount,
            currency=payment.currency,
            email=user.email,
            phone=order.payment_phone or "",
            network=order.payment_network or "",
            callback_url=return_url(site_origin, order.id),
            order_id=order.id,
        )
    try:
        url = get_provider().start_charge(request)
    except ProviderUnavailable as exc:
        log.warning("payment %s for order %s could not start: %s", reference, order_id, exc.detail)
        return None
    with write_session() as session:
        order = session.get(Order, order_id)
        if order is not None and order.payment_reference == reference:
            order.payment_url = url
            session.add(order)
    return url


def begin_payment(user: User | None, order_id: str, *, site_origin: str) -> tuple[Order, str | None]:
    """Start a new charge for one of the user's unpaid mobile-money orders (after a decline or an
    abandoned payment page). 404 for others' orders, 409 (``not_payable``) when nothing is owed;
    502 when the provider cannot be reached."""
    user = require_user(user)
    with write_session() as session:
        order = session.get(Order, order_id) if isinstance(order_id, str) else None
        if order is None or order.user_id != user.id:
            raise NotFound("Order not found.")
        problem = payment_problem(order)
        if problem:
            raise Conflict(problem, code="not_payable")
        payment = open_payment(session, order)
        order.payment_due_at = max(order.payment_due_at or payment_deadline(), payment_deadline())
        session.add(order)
        lifecycle.set_payment_status(session, order, PaymentStatus.AWAITING_PAYMENT.value, actor=user,
                                     note="Payment started again")
        reference = payment.reference
    url = send_to_provider(order_id, reference, site_origin=site_origin)
    if url is None:
        raise ProviderUnavailable()
    with session_scope() as session:
        return session.get(Order, order_id), url


# --- applying what the provider says -----------------------------------------------------------


def apply_report(session: Session, report: ChargeReport) -> str:
    """Apply a provider's word on a charge, once.

    Returns ``paid``, ``failed``, ``mismatch`` (flagged for an admin), ``duplicate`` (already
    applied: nothing changes) or ``pending``. 404 (``unknown_reference``) for a reference we
    never issued.
    """
    payment = _payment(session, report.reference, lock=True)
    if report.status == PENDING:
        return PENDING
    if payment.status in (SUCCESS, MISMATCH) or payment.status == report.status:
        return "duplicate"
    order = session.exec(select(Order).where(Order.id == payment.order_id).with_for_update()).one()
    payment.provider_data = {**payment.provider_data, "reported_amount": report.amount_minor,
                             "reported_at": datetime.now(UTC).isoformat()}
    label = lifecycle.PROVIDER

    if report.status == FAILED:
        payment.status = FAILED
        session.add(payment)
        if (
            order.payment_reference == payment.reference
            and order.status == OrderStatus.PENDING.value
            and order.payment_status == PaymentStatus.AWAITING_PAYMENT.value
        ):
            lifecycle.set_payment_status(session, order, PaymentStatus.FAILED.value, label=label,
                                         note="The mobile money payment was declined")
        session.flush()
        return "failed"

    expected = minor_units(payment.amount)
    if report.amount_minor != expected or payment.amount != order.total:
        payment.status = MISMATCH
        session.add(payment)
        paid = from_minor_units(report.amount_minor) if report.amount_minor is not None else None
        lifecycle.flag(
            session, order, Attention.AMOUNT_MISMATCH.value,
            f"Payment {payment.reference} reported {payment.currency} {paid if paid is not None else '?'}; "
            f"the order total is {format_money(order.total, payment.currency + ' ')}.",
            label=label,
        )
        session.flush()
        return MISMATCH

    payment.status = SUCCESS
    session.add(payment)
    if order.payment_status == PaymentStatus.PAID.value:
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       f"Paid twice: payment {payment.reference} came after the order was paid.", label=label)
    elif order.status == OrderStatus.CANCELLED.value:
        lifecycle.set_payment_status(session, order, PaymentStatus.PAID.value, label=label,
                                     note=f"Payment {payment.reference} received")
        lifecycle.flag(session, order, Attention.REFUND_DUE.value,
                       "Paid after the order was cancelled: refund the customer.", label=label)
    else:
        lifecycle.set_payment_status(session, order, PaymentStatus.PAID.value, label=label,
                                     note=f"Payment {payment.reference} received")
        order.payment_reference = payment.reference
        session.add(order)
    session.flush()
    return "paid"


def handle_webhook(session: Session, raw: bytes, headers: Mapping[str, str]) -> str:
    """Check and apply one webhook (401 for a bad signature: nothing changes)."""
    report = get_provider().parse_webhook(raw, headers)
    if report is None:
        return "ignored"
    try:
        return apply_report(session, report)
    except NotFound:
        log.warning("webhook for unknown payment reference %r ignored", report.reference)
        return "unknown"


def check_payment(user: User | None, order_id: str) -> Order:
    """Ask the provider about the order's current charge and apply the answer (the shopper is
    back from the payment page, maybe before the webhook). 404 for others' orders."""
    user = require_user(user)
    with session_scope() as session:
        order = session.get(Order, order_id) if isinstance(order_id, str) else None
        if order is None or order.user_id != user.id:
            raise NotFound("Order not found.")
        reference = order.payment_reference
        waiting = (
            order.payment_method == PaymentMethod.MOBILE_MONEY.value
            and order.payment_status in (PaymentStatus.AWAITING_PAYMENT.value, PaymentStatus.FAILED.value)
        )
    if waiting and reference:
        try:
            report = get_provider().verify(reference)
        except (ProviderUnavailable, NotFound):
            report = None
        if report is not None and report.status != PENDING:
            with write_session() as session:
                apply_report(session, report)
    with session_scope() as session:
        return session.get(Order, order_id)
