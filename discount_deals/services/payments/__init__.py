"""Mobile-money payments behind one small provider interface.

- :mod:`.interface`: the provider seam (charge requests and reports, signed webhooks)
- :mod:`.fake`: the fake provider (development and tests): our own approve/decline page
- :mod:`.paystack`: any Paystack-compatible API over HTTPS
- :mod:`.providers`: the provider the settings name
- :mod:`.records`: payment rows (one per charge attempt of an order)
- :mod:`.report`: applying a provider's report (a webhook, a verification) once
- :mod:`.flow`: starting and checking charges around our transactions

Owns its transactions: ``flow.send_to_provider``, ``flow.begin_payment`` and
``flow.check_payment`` (no transaction stays open while the provider is called over the
network), and the fake provider's ``start_charge`` and ``verify`` (it plays a remote service
with records of its own). Everything else takes the caller's session.
"""

from .fake import FAKE_PAGE, FakeProvider
from .flow import begin_payment, check_payment, send_to_provider
from .interface import (
    EVENTS,
    FAILED,
    MISMATCH,
    PENDING,
    SUCCESS,
    BadSignature,
    ChargeReport,
    ChargeRequest,
    PaymentProvider,
    ProviderUnavailable,
    event_body,
    parse_signed_event,
    sign,
)
from .paystack import PaystackProvider
from .providers import get_provider
from .records import find_payment, new_reference, open_payment, payment_deadline, return_url
from .report import apply_report, handle_webhook

__all__ = [
    "EVENTS",
    "FAILED",
    "FAKE_PAGE",
    "MISMATCH",
    "PENDING",
    "SUCCESS",
    "BadSignature",
    "ChargeReport",
    "ChargeRequest",
    "FakeProvider",
    "PaymentProvider",
    "PaystackProvider",
    "ProviderUnavailable",
    "apply_report",
    "begin_payment",
    "check_payment",
    "event_body",
    "find_payment",
    "get_provider",
    "handle_webhook",
    "new_reference",
    "open_payment",
    "parse_signed_event",
    "payment_deadline",
    "return_url",
    "send_to_provider",
    "sign",
]
