"""The fake provider (development and tests): it plays every answer of a mobile-money charge.

How a charge answers is chosen by the number, as with a provider's test numbers: the last four
digits of :data:`TEST_NUMBERS` play one state each; any other Telecel number asks for a
voucher (``send_otp``, as Telecel Cash does) and any other number waits for the shopper to
approve the prompt on the phone (``pay_offline``). The voucher that passes is
:data:`TEST_VOUCHER`; another code is asked for again, and the third wrong one declines the charge. The "phone" is our own page,
``/api/payments/fake/{reference}/``: approving or declining there sends our webhook a signed
event, exactly as a real provider would, and returns the shopper to the order.

Every charge through it is a test payment: no money moves (``Order.payment_test``).

Refunds (:meth:`FakeProvider.refund`) are accepted and ``processed`` at once, up to what the
charge took, except for a charge paid from a number ending in :data:`REFUND_REFUSED_DIGITS`
(e.g. 024 123 9999, which pays as any number does): its refunds are refused, as a provider
refuses a refund it cannot make.

Owns its transactions: :meth:`FakeProvider.start_charge`, :meth:`~FakeProvider.submit_otp` and
:meth:`~FakeProvider.verify`, :meth:`~FakeProvider.refund` and :meth:`~FakeProvider.refund_status`. They play a
remote service, called by ``payments.flow`` between
its transactions, so they keep the provider's records (callback URL, state, the shopper's
decision) in the payment row's ``provider_data["fake"]`` through transactions of their own, as
a remote service would in its own database. The page's two steps (:meth:`~FakeProvider.page`,
:meth:`~FakeProvider.decide`) are served by our API, so they take the route's session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from sqlmodel import Session

from ... import routes
from ...db import session_scope, write_session
from ...models import Order
from ..phones import display_phone, network_name
from ..money import Money
from ..money import minor_units
from .interface import (
    FAILED,
    PAY_OFFLINE,
    PENDING,
    SEND_OTP,
    SUCCESS,
    ChargeReport,
    ChargeRequest,
    RefundReport,
    event_body,
    parse_signed_event,
    sign,
)
from .records import find_payment

FAKE_PAGE = "/api/payments/fake/{reference}/"
TEST_VOUCHER = "123456"
# Test numbers: the last four digits choose the answer (e.g. 024 123 0000 is declined at once).
TEST_NUMBERS = {"0000": FAILED, "1111": PENDING, "2222": SUCCESS, "3333": SEND_OTP, "4444": PAY_OFFLINE}
MESSAGES = {
    SEND_OTP: f"Test payment: dial *110# for a voucher, or type the test voucher {TEST_VOUCHER}.",
    PAY_OFFLINE: "Test payment: approve the prompt on the test phone.",
    PENDING: "Test payment: the network has not answered yet.",
    FAILED: "Test payment declined.",
    SUCCESS: "",
}
WRONG_VOUCHER = "The voucher was not accepted."
WRONG_CODE = "That code was not accepted: check it and type it again."
CODE_TRIES = 3  # codes a charge takes before it is declined
REFUND_REFUSED_DIGITS = "9999"  # a charge paid from a number ending so cannot be refunded
REFUND_REFUSED = "Test refund refused: this test number cannot receive refunds."
REFUND_TOO_LARGE = "The refund is more than what is left of the payment."


def first_answer(phone: str, network: str) -> str:
    """How a charge to this number answers first (see the module docstring)."""
    chosen = TEST_NUMBERS.get(phone[-4:])
    if chosen:
        return chosen
    return SEND_OTP if network == "telecel" else PAY_OFFLINE


class FakeProvider:
    """Plays a mobile-money provider (see the module docstring)."""

    name = "fake"

    def __init__(self, webhook_secret: str):
        self._secret = webhook_secret

    def _record(self, reference: str, **changes: Any) -> dict[str, Any]:
        """Owns its transactions: the provider's own record of the charge (see the module docstring)."""
        with write_session() as session:
            payment = find_payment(session, reference, lock=True)
            record = {**(payment.provider_data.get("fake") or {}), **changes}
            payment.provider_data = {**payment.provider_data, "fake": record}
            session.add(payment)
            return {**record, "amount": minor_units(payment.amount)}

    @staticmethod
    def _report(reference: str, record: Mapping[str, Any], message: str | None = None) -> ChargeReport:
        status = record.get("result") or record.get("step") or PENDING
        words = MESSAGES.get(status, "") if message is None else message
        return ChargeReport(reference, status, record.get("amount"), message=words,
                            url=FAKE_PAGE.format(reference=quote(reference, safe="")))

    def start_charge(self, request: ChargeRequest) -> ChargeReport:
        """Owns its transactions: the provider's record, written as a remote service would."""
        answer = first_answer(request.phone, request.network)
        decided = {"result": answer} if answer in (SUCCESS, FAILED) else {}
        record = self._record(request.reference, callback_url=request.callback_url, step=answer, **decided)
        return self._report(request.reference, record)

    def submit_otp(self, reference: str, otp: str) -> ChargeReport:
        """Owns its transactions: the test voucher pays; another code is asked for again, up to
        :data:`CODE_TRIES` codes, then the charge is declined."""
        with session_scope() as session:
            record = find_payment(session, reference).provider_data.get("fake") or {}
        if record.get("result") or record.get("step") != SEND_OTP:
            return self.verify(reference)  # nothing waits for a code: the charge as it stands
        if otp == TEST_VOUCHER:
            return self._report(reference, self._record(reference, result=SUCCESS))
        # A mistyped code is typed again (as networks allow a few tries); the last try declines.
        misses = int(record.get("misses", 0)) + 1
        if misses >= CODE_TRIES:
            return self._report(reference, self._record(reference, misses=misses, result=FAILED), WRONG_VOUCHER)
        return self._report(reference, self._record(reference, misses=misses), WRONG_CODE)

    def verify(self, reference: str) -> ChargeReport:
        """Owns its transactions: reads the provider's record, as a remote service would."""
        with session_scope() as session:
            payment = find_payment(session, reference)
            record = {**(payment.provider_data.get("fake") or {}), "amount": minor_units(payment.amount)}
        return self._report(reference, record)

    def parse_webhook(self, raw: bytes, headers: Mapping[str, str]) -> ChargeReport | None:
        return parse_signed_event(raw, headers, self._secret, ("x-signature",))

    def refund(self, reference: str, amount_minor: int) -> RefundReport:
        """Owns its transactions: the provider's record of its refunds, kept as a remote service
        would (see the module docstring for which refunds it refuses)."""
        with write_session() as session:
            payment = find_payment(session, reference, lock=True)
            order = session.get(Order, payment.order_id)
            record = dict(payment.provider_data.get("fake") or {})
            refunded = sum(int(item.get("amount", 0)) for item in record.get("refunds", []))
            if (order.payment_phone or "").endswith(REFUND_REFUSED_DIGITS):
                return RefundReport(reference, FAILED, amount_minor, message=REFUND_REFUSED)
            if payment.status != SUCCESS or refunded + amount_minor > minor_units(payment.amount):
                return RefundReport(reference, FAILED, amount_minor, message=REFUND_TOO_LARGE)
            refund_id = f"fake-refund-{len(record.get('refunds', [])) + 1}-{reference}"[:64]
            record["refunds"] = [*record.get("refunds", []), {"id": refund_id, "amount": amount_minor}]
            payment.provider_data = {**payment.provider_data, "fake": record}
            session.add(payment)
        return RefundReport(reference, SUCCESS, amount_minor, refund_id=refund_id, provider_status="processed")

    def refund_status(self, refund_id: str, reference: str) -> RefundReport:
        """Owns its transactions: its refunds are processed at once; one it never made failed."""
        with session_scope() as session:
            record = find_payment(session, reference).provider_data.get("fake") or {}
        made = [item for item in record.get("refunds", []) if item.get("id") == refund_id]
        if not made:
            return RefundReport(reference, FAILED, None, refund_id=refund_id, provider_status="failed",
                                message="No such refund.")
        return RefundReport(reference, SUCCESS, int(made[0].get("amount", 0)), refund_id=refund_id,
                            provider_status="processed")

    def page(self, session: Session, reference: str) -> dict[str, Any]:
        """What the test phone shows (404 once the charge is unknown)."""
        payment = find_payment(session, reference)
        order = session.get(Order, payment.order_id)
        record = payment.provider_data.get("fake") or {}
        return {
            "reference": payment.reference,
            "amount": Money.of(payment.amount, payment.currency).text(),
            "network": network_name(order.payment_network, order.payment_network or ""),
            "phone": display_phone(order.payment_phone),
            "order": order.id[:8],
            "decided": record.get("result"),
            "callback_url": record.get("callback_url") or routes.ORDERS,
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
        return raw, sign(raw, self._secret), record.get("callback_url") or routes.ORDERS
