"""Checkout: delivery fees and the payment provider (issue 14).

Part of :mod:`discount_deals.config.settings` (``Settings.checkout``), which re-exports the model.
"""

from __future__ import annotations

import hashlib
import hmac
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from .settings_base import GIVEN, CaseBlind, EnvironmentSettings, NoTrailingSlash

PAYMENT_PROVIDERS = ("fake", "paystack")
_AMOUNT = {"type": "amount", "problem": "{name} must be an amount of at least 0 with at most 2 decimals, "
                                       "such as 5.99, got {raw}"}


def _webhook_secret(data: dict[str, Any]) -> str:
    """With Paystack its secret key (Paystack signs with it); the fake provider signs its own
    webhooks, so a secret derived from the app's key will do."""
    if data["payment_provider"] == "paystack":
        return data["paystack_secret_key"]
    return hmac.new(data["signing_secret"].encode(), b"payment-webhook", hashlib.sha256).hexdigest()


class CheckoutSettings(EnvironmentSettings):
    """Delivery fees and the payment provider.

    ``payment_provider`` is ``fake`` (a local approve/decline page: development and tests) or
    ``paystack`` (any Paystack-compatible API at ``paystack_base_url``). Webhooks are signed
    with ``webhook_secret`` (HMAC-SHA512).
    """

    delivery_fee: Decimal = Field(Decimal("5.99"), ge=0, decimal_places=2, validation_alias="DD_DELIVERY_FEE",
                                  json_schema_extra=_AMOUNT, description="the home delivery fee")
    free_delivery_over: Decimal = Field(Decimal("50.00"), ge=0, decimal_places=2, json_schema_extra=_AMOUNT,
                                        validation_alias="DD_FREE_DELIVERY_OVER",
                                        description="delivery is free when the subtotal is over this")
    payment_provider: Annotated[Literal["fake", "paystack"], CaseBlind] = Field("fake", validation_alias="DD_PAYMENT_PROVIDER", description=(
        "`paystack` for real mobile-money payments (with `DD_PAYSTACK_SECRET_KEY` and `DD_CURRENCY=GHS`: "
        "Paystack charges Ghanaian mobile money in cedis only); `fake` plays every answer of a charge (no money "
        "moves) and is refused whenever the shop answers anything but this machine, unless `DD_ALLOW_FAKE_PAYMENTS=1`"))
    paystack_secret_key: str = Field("", validation_alias="DD_PAYSTACK_SECRET_KEY", repr=False,
                                     description="Paystack's secret key (required with `paystack`)")
    signing_secret: str = Field("", repr=False, json_schema_extra=GIVEN, description="DD_SECRET_KEY, as settings.py found it")
    webhook_secret: str = Field(default_factory=_webhook_secret, validation_alias="DD_PAYMENT_WEBHOOK_SECRET",
                                repr=False, json_schema_extra={"default": "the Paystack key (fake: derived from the secret key)"},
                                description="HMAC-SHA512 key of webhook signatures")
    paystack_base_url: Annotated[str, NoTrailingSlash] = Field("https://api.paystack.co", validation_alias="DD_PAYSTACK_BASE_URL",
                                   description="any Paystack-compatible API")
    # An unpaid mobile-money order gives its stock back after this many minutes.
    payment_timeout_minutes: int = Field(30, ge=1, validation_alias="DD_PAYMENT_TIMEOUT_MINUTES", description=(
        "an unpaid mobile-money order is cancelled and its stock released after this"))
    provider_timeout_seconds: float = Field(10.0, validation_alias="DD_PAYMENT_PROVIDER_TIMEOUT_SECONDS",
                                            description="HTTP timeout for calls to the provider")
    # How often the server looks for unpaid orders whose time is up (at least 1).
    release_interval_seconds: int = Field(60, validation_alias="DD_PAYMENT_RELEASE_INTERVAL_SECONDS",
                                          description="how often the server looks for such orders (at least 1)")



    @field_validator("release_interval_seconds")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        return max(1, value)

    @model_validator(mode="after")
    def _paystack_needs_its_key(self) -> CheckoutSettings:
        if self.payment_provider == "paystack" and not self.paystack_secret_key:
            raise ValueError("DD_PAYSTACK_SECRET_KEY is required when DD_PAYMENT_PROVIDER=paystack")
        return self
