"""Paystack's mobile-money charge API over HTTPS (``DD_PAYSTACK_BASE_URL``), with the secret key.

* ``POST /charge`` with ``mobile_money: {phone, provider}`` (``mtn``, ``vod`` for Telecel Cash,
  ``atl`` for AirtelTigo Money) starts the charge; the answer's ``data.status`` says what it
  waits for: ``send_otp`` (Telecel: the shopper dials for a voucher and types it back),
  ``pay_offline`` (the shopper approves a prompt on the phone), ``pending``, or it is already
  ``success`` / ``failed``. ``data.display_text`` is what to tell the shopper.
* ``POST /charge/submit_otp`` with ``{otp, reference}`` hands over the code the shopper typed.
* ``POST /refund`` with ``{transaction: reference, amount}`` (minor units) gives money back.
* ``GET /charge/{reference}`` tells how a charge stands (the order page asks it at most every
  10 s: ``flow.POLL_SECONDS``).

A declined charge comes back as ``status: false`` with ``data.status: "failed"``: that is an
answer (the payment failed), not an unreachable provider. Webhooks are signed in
``X-Paystack-Signature``. It touches no database.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from ..phones import display_phone
from ..money import minor_units
from .interface import (
    FAILED,
    PAY_OFFLINE,
    PENDING,
    SEND_OTP,
    SUCCESS,
    ChargeReport,
    ChargeRequest,
    ProviderUnavailable,
    RefundReport,
    amount_minor,
    currency_code,
    parse_signed_event,
)

log = logging.getLogger("discount_deals.payments")

# Our network codes → Paystack's mobile-money providers in Ghana.
PROVIDER_CODES = {"mtn": "mtn", "telecel": "vod", "airteltigo": "atl"}
# What Paystack charges in, and what its Ghanaian mobile money charges in (preflight checks it).
CURRENCIES = ("GHS", "NGN", "ZAR", "KES", "USD")
MOBILE_MONEY_CURRENCIES = ("GHS",)
_STATUSES = {
    "success": SUCCESS,
    "failed": FAILED,
    "abandoned": FAILED,
    "reversed": FAILED,
    "timeout": FAILED,
    "send_otp": SEND_OTP,
    "pay_offline": PAY_OFFLINE,
}


def _national(phone: str) -> str:
    """``+233551234987`` → ``0551234987``, the form Paystack's mobile-money examples use."""
    return display_phone(phone).replace(" ", "")


class PaystackProvider:
    """Paystack's charge API (see the module docstring)."""

    name = "paystack"

    def __init__(self, base_url: str, secret_key: str, webhook_secret: str, timeout: float):
        self._base = base_url.rstrip("/")
        self._key = secret_key
        self._secret = webhook_secret
        self._timeout = timeout

    def _send(self, method: str, path: str, **kwargs) -> tuple[int, Any]:
        """The HTTP status and JSON body of a call (ProviderUnavailable when unreachable)."""
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "application/json"}
        try:
            with httpx.Client(timeout=self._timeout) as client:
                response = client.request(method, f"{self._base}{path}", headers=headers, **kwargs)
            return response.status_code, response.json()
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("paystack %s %s failed: %s", method, path, exc)
            raise ProviderUnavailable() from None

    def _call(self, method: str, path: str, **kwargs) -> dict[str, Any]:
        status_code, body = self._send(method, path, **kwargs)
        data = body.get("data") if isinstance(body, dict) else None
        if isinstance(data, dict) and data.get("status") in _STATUSES and status_code < 500:
            return data  # an answer about the charge, declined ones included
        if status_code >= 400 or not isinstance(body, dict) or not body.get("status"):
            message = body.get("message") if isinstance(body, dict) else None
            log.warning("paystack %s %s refused (%s): %s", method, path, status_code, message)
            raise ProviderUnavailable(
                f"The payment provider refused the payment: {message}" if message else ProviderUnavailable().detail
            )
        if not isinstance(data, dict):
            raise ProviderUnavailable()
        return data

    @staticmethod
    def _report(reference: str, data: dict[str, Any]) -> ChargeReport:
        status = _STATUSES.get(str(data.get("status") or ""), PENDING)
        try:
            amount = amount_minor(data.get("amount"))
        except ValueError:
            amount = None
        words = data.get("display_text") or (data.get("gateway_response") or data.get("message")
                                              if status == FAILED else "")
        return ChargeReport(reference, status, amount, currency=currency_code(data.get("currency")),
                            message=str(words or "")[:300])

    def start_charge(self, request: ChargeRequest) -> ChargeReport:
        data = self._call(
            "POST",
            "/charge",
            json={
                "email": request.email,
                "amount": minor_units(request.amount),
                "currency": request.currency,
                "reference": request.reference,
                "mobile_money": {"phone": _national(request.phone), "provider": PROVIDER_CODES[request.network]},
                "metadata": {"order_id": request.order_id},
            },
        )
        return self._report(request.reference, data)

    def submit_otp(self, reference: str, otp: str) -> ChargeReport:
        return self._report(reference, self._call("POST", "/charge/submit_otp", json={"otp": otp, "reference": reference}))

    def verify(self, reference: str) -> ChargeReport:
        return self._report(reference, self._call("GET", f"/charge/{quote(reference, safe='')}"))

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-paystack-signature", "x-signature"))

    def refund(self, reference: str, amount_minor: int) -> RefundReport:
        """``POST /refund`` ``{transaction, amount}``: Paystack queues it (``pending``: its
        ``refund.processed`` or ``refund.failed`` webhook follows) or refuses it (``status: false``
        and why, or a refund ``failed``)."""
        status_code, body = self._send("POST", "/refund", json={"transaction": reference, "amount": amount_minor})
        return self._refund_report(reference, status_code, body, amount_minor)

    def refund_status(self, refund_id: str, reference: str) -> RefundReport:
        """``GET /refund/{id}``: where a queued refund stands. Only Paystack's ``failed`` says it
        failed: an answer that is not the refund (a refused key, an unknown id, a rate limit, an
        odd body) tells nothing, and is :class:`ProviderUnavailable` (the refund stays queued)."""
        status_code, body = self._send("GET", f"/refund/{quote(refund_id, safe='')}")
        data = body.get("data") if isinstance(body, dict) else None
        if status_code >= 400 or not isinstance(data, dict) or not data.get("status"):
            log.warning("paystack refund %s could not be read (%s)", refund_id, status_code)
            raise ProviderUnavailable("The payment provider did not say how the refund stands. Please try again.")
        return self._refund_report(reference, status_code, body, None, refund_id)

    @staticmethod
    def _refund_report(reference: str, status_code: int, body: Any, amount_minor: int | None,
                       refund_id: str = "") -> RefundReport:
        data = body.get("data") if isinstance(body, dict) else None
        if status_code >= 500:
            raise ProviderUnavailable()
        if status_code >= 400 or not isinstance(body, dict) or not body.get("status") or not isinstance(data, dict):
            message = body.get("message") if isinstance(body, dict) else None
            log.warning("paystack refund of %s refused (%s): %s", reference, status_code, message)
            return RefundReport(reference, FAILED, amount_minor, message=str(message or "Refund refused.")[:300])
        state = str(data.get("status") or "pending")
        outcome = {"processed": SUCCESS, "failed": FAILED}.get(state, PENDING)
        return RefundReport(reference, outcome, amount_minor, refund_id=str(data.get("id") or refund_id)[:64],
                            provider_status=state[:32], message=str(body.get("message") or "")[:300])
