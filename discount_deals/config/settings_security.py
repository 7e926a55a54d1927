"""Hardening: other origins (CORS), the host names served, password hashing and the throttles on
hostile traffic (issue 13).

Part of :mod:`discount_deals.config.settings` (``Settings.security``), which re-exports the model.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import NoDecode

from .setting_values import parse_hosts, parse_origins
from .settings_base import GIVEN, CaseBlind, EnvironmentSettings

_HOSTS = {"type": "list (comma-separated)"}


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
        "well-formed registrations allowed per client address, and new emails or usernames tried per "
        "account, within `DD_REGISTER_WINDOW_SECONDS`"))
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
