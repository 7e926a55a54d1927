"""Which payment provider the settings name (``DD_PAYMENT_PROVIDER``: ``fake`` or ``paystack``)."""

from __future__ import annotations

from ...config.settings import get_settings
from .fake import FakeProvider
from .interface import PaymentProvider
from .paystack import PaystackProvider


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
