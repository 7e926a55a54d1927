"""The payment provider seam: what a provider is asked and what it answers, and signed webhooks.

A provider starts a mobile-money charge, takes the code a shopper types back (``submit_otp``),
tells how a charge stands (``verify``), parses its signed webhooks and gives money back
(``refund``: a :class:`RefundReport`). Each answer is a
:class:`ChargeReport` in Paystack's words for a charge: ``send_otp`` (the shopper types a code
or voucher back: Telecel Cash), ``pay_offline`` (the shopper approves a prompt on the phone),
``pending`` (the network has not answered yet), ``success`` or ``failed``. Webhooks: ``X-Signature`` (or
``X-Paystack-Signature``) is the hex HMAC-SHA512 of the raw body with the webhook secret; the
body is ``{"event": "charge.success" | "charge.failed", "data": {"reference", "amount", "currency"}}``
where ``amount`` is in minor units (pesewas), as Paystack sends it (a decimal string such as
``"36.77"`` is read as cedis), and ``currency`` (optional) is the ISO code the charge was made in.
A refund's final word comes as ``refund.processed`` or ``refund.failed`` with ``{"transaction_reference"
(the charge), "id" or "refund_reference" (the refund), "amount", "status"}``: a :class:`RefundReport`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from ... import bounded_json
from ...models import PaymentAttemptStatus
from .. import ServiceError, ValidationFailed
from ..error_codes import ErrorCode
from ..money import from_minor_units, minor_units

# A charge's outcomes are Payment.status's values (PaymentAttemptStatus); its waiting steps are the order's.
SUCCESS, FAILED, PENDING, MISMATCH = (PaymentAttemptStatus.SUCCESS, PaymentAttemptStatus.FAILED,
                                      PaymentAttemptStatus.PENDING, PaymentAttemptStatus.MISMATCH)
SEND_OTP, PAY_OFFLINE = "send_otp", "pay_offline"
# A charge in one of these waits for the shopper or their network; the order shows which.
WAITING = (SEND_OTP, PAY_OFFLINE, PENDING)
EVENTS = {"charge.success": SUCCESS, "charge.failed": FAILED}
REFUND_EVENTS = {"refund.processed": SUCCESS, "refund.failed": FAILED}
UNKNOWN_CURRENCY = "?"  # a provider named a currency by something that is not an ISO 4217 code


class ProviderUnavailable(ServiceError):
    """The payment provider could not be reached or refused the request."""

    status = 502

    def __init__(self, detail: str = "The payment provider could not be reached. Please try again."):
        super().__init__(detail, code=ErrorCode.PROVIDER_UNAVAILABLE)


class BadSignature(ServiceError):
    status = 401

    def __init__(self, detail: str = "Invalid webhook signature."):
        super().__init__(detail, code=ErrorCode.BAD_SIGNATURE)


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
    """What a provider says about one charge: ``success``, ``failed`` or one of :data:`WAITING`."""

    reference: str
    status: str
    amount_minor: int | None = None
    # The currency the provider says it charged in (ISO code), when it says one.
    currency: str | None = None
    # The provider's words to the shopper ("Please dial *110# to generate a voucher code...").
    message: str = ""
    # A page where the shopper completes the charge (the fake provider's test phone), if any.
    url: str | None = None


@dataclass(frozen=True)
class RefundReport:
    """What a provider says about a refund: ``success`` (the money went back: Paystack's
    ``processed``), ``pending`` (accepted and queued: its final word comes later, by webhook or
    :meth:`PaymentProvider.refund_status`) or ``failed``; ``provider_status`` is its own word."""

    reference: str  # the charge refunded
    status: str
    amount_minor: int | None = None
    refund_id: str = ""  # the provider's id of the refund
    provider_status: str = ""
    message: str = ""  # why it was refused, in the provider's words


class PaymentProvider(Protocol):
    name: str

    def start_charge(self, request: ChargeRequest) -> ChargeReport:
        """Ask the network to charge the shopper's mobile money; say what the charge waits for."""

    def submit_otp(self, reference: str, otp: str) -> ChargeReport:
        """Hand the provider the code the shopper typed (a ``send_otp`` charge)."""

    def verify(self, reference: str) -> ChargeReport:
        """Ask the provider how the charge stands."""

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        """Check the signature (BadSignature) and read the event; None for events we do not use."""

    def refund(self, reference: str, amount_minor: int) -> RefundReport:
        """Give back ``amount_minor`` of the charge ``reference`` to the number it came from."""

    def refund_status(self, refund_id: str, reference: str) -> RefundReport:
        """Ask how a refund (of the charge ``reference``) that was ``pending`` stands now."""


def sign(raw: bytes, secret: str) -> str:
    """The webhook signature: hex HMAC-SHA512 of the raw body."""
    return hmac.new(secret.encode(), raw, hashlib.sha512).hexdigest()


def amount_minor(value: Any) -> int:
    """An amount as a provider sends it, in minor units: an integer, or decimal text in cedis."""
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
    """A signed ``charge.*`` event as a ChargeReport, a ``refund.*`` one as a RefundReport, None for
    another event (401 for a bad signature, 400 for a bad body)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    given = next((lowered[name] for name in header_names if lowered.get(name)), "")
    if not given or not hmac.compare_digest(given.strip().lower(), sign(raw, secret)):
        raise BadSignature()
    try:
        body = bounded_json.parse(raw)
        event, data = body["event"], body["data"]
        if not isinstance(event, str) or not isinstance(data, dict):
            raise ValueError("event")
        if event in REFUND_EVENTS:
            return _refund_event(event, data)
        if event.startswith("refund."):  # refund.pending, refund.processing: no final word yet
            return None
        reference = data["reference"]
        if not isinstance(reference, str) or not reference:
            raise ValueError("event")
    except (ValueError, KeyError, TypeError):
        raise ValidationFailed("Invalid webhook body.", code=ErrorCode.WEBHOOK_INVALID) from None
    if event not in EVENTS:
        return None
    try:
        amount = amount_minor(data.get("amount"))
    except ValueError:
        raise ValidationFailed("Invalid webhook amount.", code=ErrorCode.WEBHOOK_INVALID) from None
    return ChargeReport(reference=reference, status=EVENTS[event], amount_minor=amount,
                        currency=currency_code(data.get("currency")))


def _text(value: Any) -> str:
    return str(value).strip()[:64] if isinstance(value, str | int) and not isinstance(value, bool) else ""


def _refund_event(event: str, data: dict[str, Any]) -> RefundReport:
    """A ``refund.*`` event's data: the charge it refunds and the refund's id (ValueError without both)."""
    transaction = data.get("transaction")
    reference = _text(data.get("transaction_reference")) or (
        _text(transaction.get("reference")) if isinstance(transaction, dict) else "")
    refund_id = _text(data.get("id")) or _text(data.get("refund_reference"))
    if not reference and not refund_id:
        raise ValueError("refund")
    status = str(data.get("status") or event.split(".", 1)[1])[:32]
    try:
        amount = amount_minor(data["amount"]) if data.get("amount") is not None else None
    except ValueError:
        amount = None
    return RefundReport(reference, REFUND_EVENTS[event], amount, refund_id=refund_id, provider_status=status,
                        message=str(data.get("reason") or data.get("message") or "")[:300])


def currency_code(value: Any) -> str | None:
    """The currency a provider names (``"ghs"`` is GHS); ``None`` when it names none. A value that
    is not a code becomes ``"?"``, so it differs from the payment's and the order is flagged."""
    if value is None or value == "":
        return None
    code = str(value).strip().upper()
    return code if len(code) == 3 and code.isascii() and code.isalpha() else UNKNOWN_CURRENCY


def event_body(event: str, reference: str, amount: int) -> bytes:
    """The JSON body of a ``charge.*`` event (``amount`` in minor units)."""
    return json.dumps({"event": event, "data": {"reference": reference, "amount": amount}}).encode()
