"""A Paystack-compatible provider over HTTPS (``DD_PAYSTACK_BASE_URL``).

``POST /transaction/initialize`` and ``GET /transaction/verify/{reference}`` with the secret
key; webhooks signed in ``X-Paystack-Signature``. It touches no database.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from ..pricing import minor_units
from .interface import FAILED, PENDING, SUCCESS, ChargeReport, ChargeRequest, ProviderUnavailable, amount_minor
from .interface import parse_signed_event

log = logging.getLogger("discount_deals.payments")


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
            amount = amount_minor(data.get("amount"))
        except ValueError:
            amount = None
        if status == "success":
            return ChargeReport(reference, SUCCESS, amount)
        if status in ("failed", "abandoned", "reversed"):
            return ChargeReport(reference, FAILED, amount)
        return ChargeReport(reference, PENDING, amount)

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-paystack-signature", "x-signature"))
