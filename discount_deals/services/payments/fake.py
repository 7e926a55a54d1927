"""The fake provider (development and tests): our own approve/decline page standing in for one.

The page is ``/api/payments/fake/{reference}/``: the shopper approves or declines, and the page
then sends our webhook a signed event, exactly as a real provider would, and returns the
shopper to the order.

Owns its transactions: :meth:`FakeProvider.start_charge` and :meth:`FakeProvider.verify`. They
play a remote service, called by ``payments.flow`` between its transactions, so they keep the
provider's records (callback URL, the shopper's decision) in the payment row's
``provider_data["fake"]`` through transactions of their own, as a remote service would in its
own database. The page's two steps (:meth:`~FakeProvider.page`, :meth:`~FakeProvider.decide`)
are served by our API, so they take the route's session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from sqlmodel import Session

from ...db import session_scope, write_session
from ...models import Order
from ..phones import NETWORKS, display_phone
from ..pricing import minor_units
from .interface import FAILED, PENDING, SUCCESS, ChargeReport, ChargeRequest, event_body, parse_signed_event, sign
from .records import find_payment

FAKE_PAGE = "/api/payments/fake/{reference}/"


class FakeProvider:
    """Our own approve/decline page standing in for a provider (see the module docstring)."""

    name = "fake"

    def __init__(self, webhook_secret: str):
        self._secret = webhook_secret

    def start_charge(self, request: ChargeRequest) -> str:
        """Owns its transactions: the provider's record, written as a remote service would."""
        with write_session() as session:
            payment = find_payment(session, request.reference)
            payment.provider_data = {**payment.provider_data, "fake": {"callback_url": request.callback_url}}
            session.add(payment)
        return FAKE_PAGE.format(reference=quote(request.reference, safe=""))

    def verify(self, reference: str) -> ChargeReport:
        """Owns its transactions: reads the provider's record, as a remote service would."""
        with session_scope() as session:
            payment = find_payment(session, reference)
            record = payment.provider_data.get("fake") or {}
            status = record.get("result") or PENDING
            return ChargeReport(reference, status, minor_units(payment.amount))

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-signature",))

    def page(self, session: Session, reference: str) -> dict[str, Any]:
        """What the fake page shows (404 once the charge is unknown)."""
        payment = find_payment(session, reference)
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

    def decide(self, session: Session, reference: str, approve: bool) -> tuple[bytes, str, str]:
        """Record the shopper's decision (the first one stands); return the signed webhook to
        send and where to go next. The caller commits before sending the webhook."""
        payment = find_payment(session, reference)
        record = dict(payment.provider_data.get("fake") or {})
        record.setdefault("result", SUCCESS if approve else FAILED)
        payment.provider_data = {**payment.provider_data, "fake": record}
        session.add(payment)
        session.flush()
        raw = event_body(
            "charge.success" if record["result"] == SUCCESS else "charge.failed",
            payment.reference,
            minor_units(payment.amount),
        )
        return raw, sign(raw, self._secret), record.get("callback_url") or "/orders"
