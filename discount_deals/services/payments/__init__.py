"""Mobile-money payments behind one small provider interface.

- :mod:`.interface`: the provider seam (charge requests and reports, signed webhooks)
- :mod:`.fake`: the fake provider (development and tests): plays every answer of a charge
- :mod:`.paystack`: Paystack's mobile-money charge API over HTTPS
- :mod:`.providers`: the provider the settings name
- :mod:`.records`: payment rows (one per charge attempt of an order)
- :mod:`.charges`: one live charge per order, a few per half hour
- :mod:`.report`: applying a provider's report (a webhook, a verification) once
- :mod:`.flow`: starting charges, handing over codes and checking charges around our transactions

Owns its transactions: ``flow.send_to_provider``, ``flow.begin_payment``, ``flow.submit_otp``
and ``flow.check_payment`` (no transaction stays open while the provider is called over the
network), and the fake provider's ``start_charge``, ``submit_otp`` and ``verify`` (it plays a
remote service with records of its own). Everything else takes the caller's session.
"""

from .charges import CHARGE_LIFETIME, CHARGE_WINDOW, CHARGES_PER_WINDOW, TooManyCharges, check_new_charge
from .fake import FAKE_PAGE, TEST_VOUCHER, FakeProvider
from .flow import POLL_SECONDS, begin_payment, check_payment, send_to_provider, submit_otp
from .interface import (
    EVENTS,
    FAILED,
    MISMATCH,
    PAY_OFFLINE,
    PENDING,
    SEND_OTP,
    SUCCESS,
    WAITING,
    BadSignature,
    ChargeReport,
    ChargeRequest,
    PaymentProvider,
    ProviderUnavailable,
    RefundReport,
    event_body,
    parse_signed_event,
    sign,
)
from .paystack import PaystackProvider
from .providers import get_provider
from .records import find_payment, new_reference, open_payment, payment_deadline, return_url
from .report import apply_report, handle_webhook

__all__ = [
    "CHARGES_PER_WINDOW",
    "CHARGE_LIFETIME",
    "CHARGE_WINDOW",
    "EVENTS",
    "FAILED",
    "FAKE_PAGE",
    "MISMATCH",
    "PAY_OFFLINE",
    "PENDING",
    "POLL_SECONDS",
    "SEND_OTP",
    "SUCCESS",
    "TEST_VOUCHER",
    "WAITING",
    "BadSignature",
    "ChargeReport",
    "ChargeRequest",
    "FakeProvider",
    "PaymentProvider",
    "PaystackProvider",
    "ProviderUnavailable",
    "RefundReport",
    "TooManyCharges",
    "apply_report",
    "begin_payment",
    "check_new_charge",
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
    "submit_otp",
]
