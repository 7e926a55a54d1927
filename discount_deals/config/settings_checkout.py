"""Checkout (delivery fees, the payment provider: issue 14) and hardening (CORS, throttles, hosts: issue 13).

Part of :mod:`discount_deals.config.settings` (``Settings.checkout``, ``Settings.security``), which
re-exports both models.
"""

from __future__ import annotations

import hashlib
import hmac
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_settings import NoDecode

from .setting_values import parse_hosts, parse_origins
from .settings_base import GIVEN, CaseBlind, EnvironmentSettings, NoTrailingSlash

PAYMENT_PROVIDERS = ("fake", "paystack")
_AMOUNT = {"type": "amount", "problem": "{name} must be an amount of at least 0 with at most 2 decimals, "
                                       "such as 5.99, got {raw}"}
_HOSTS = {"type": "list (comma-separated)"}


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


class SecuritySettings(EnvironmentSettings):
    """Who may call the app from another origin, and the limits on hostile traffic.

    ``cors_origins`` (``DD_CORS_ORIGINS``, comma-separated ``scheme://host[:port]``) are the
    other origins whose pages may call ``/api`` and open the websocket, e.g. the original React
    client's; by default only pages of the app's own origin may. Registrations are limited per
    client address. Requests whose ``Host`` is not one of ``allowed_hosts`` get a 400 (DNS
    rebinding, links built on a forged host).
    """

    public_url: str = Field("", json_schema_extra=GIVEN, description="DD_PUBLIC_URL (ServerSettings)")
    cors_origins: tuple[str, ...] = Field((), validation_alias="DD_CORS_ORIGINS", json_schema_extra=GIVEN,
                                          description="DD_CORS_ORIGINS (ServerSettings), checked")
    register_max_attempts: int = Field(50, ge=1, validation_alias="DD_REGISTER_MAX_ATTEMPTS", description=(
        "well-formed registrations allowed per client address within `DD_REGISTER_WINDOW_SECONDS`"))
    register_window_seconds: int = Field(3600, ge=1, validation_alias="DD_REGISTER_WINDOW_SECONDS",
                                         description="the window of `DD_REGISTER_MAX_ATTEMPTS`")
    password_hashing: Annotated[Literal["owasp", "fast"], CaseBlind] = Field(
        "owasp", validation_alias="DD_PASSWORD_HASHING", description=(
            "`owasp`: argon2id at OWASP's minimum (19 MiB, t=2, p=1); `fast` (1 MiB, t=1) is for test suites only, "
            "as Django's test settings use a fast hasher, and is refused whenever the shop answers anything but "
            "this machine. A password hashed otherwise is hashed again at the next login"))
    # Host headers the site answers (web/hosts.py): loopback, DD_PUBLIC_URL's host, DD_ALLOWED_HOSTS.
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default_factory=lambda data: parse_hosts("", data["public_url"]), validation_alias="DD_ALLOWED_HOSTS",
        json_schema_extra={**_HOSTS, "default": "– (loopback and `DD_PUBLIC_URL`'s host)"}, description=(
            "other host names or addresses the shop answers, comma-separated (`192.168.1.20`, `shop.example.com`, "
            "`*.example.com`); any other `Host` gets a 400"))

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origins(cls, value: Any) -> Any:
        return parse_origins(value) if isinstance(value, str) else value

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: Any, info: ValidationInfo) -> Any:
        return parse_hosts(value, info.data.get("public_url", "")) if isinstance(value, str) else value
