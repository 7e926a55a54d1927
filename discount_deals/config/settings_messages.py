"""The settings of email, SMS and the message queue (issue 22).

Part of :mod:`discount_deals.config.settings` (``Settings.messages``), kept in a module of its own so
that settings.py stays readable.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from .settings_base import GIVEN, CaseBlind, EnvironmentSettings, NoTrailingSlash, read

SMTP_TLS_MODES = ("none", "starttls", "tls")
SMS_PROVIDERS = ("log", "hubtel", "file")
DEFAULT_SMTP_PORTS = {"none": 25, "starttls": 587, "tls": 465}
HUBTEL_BASE_URL = "https://smsc.hubtel.com"
SHOP_NAME = "Discount Deals"
# An alphanumeric sender id may have at most 11 characters (GSM 03.40); networks drop longer ones.
MAX_SENDER_LENGTH = 11


def _mail_from(public_url: str) -> str:
    host = urlsplit(public_url).hostname if public_url else None
    return f"{SHOP_NAME} <no-reply@{host or 'localhost'}>"


def _count(default: int, env: str, description: str, minimum: int = 1) -> Any:
    return Field(default, ge=minimum, validation_alias=env, description=description)


class MessagingSettings(EnvironmentSettings):
    """Where email and SMS go, and how the worker delivers them.

    Without ``smtp_host`` email is written to the log (development). ``sms_provider`` is ``log``
    (the default: texts go to the log, one-time codes hidden), ``hubtel``, or ``file``
    (development: each whole text in a file under ``DD_VAR_DIR/outbox/``).
    """

    untrimmed = frozenset({"DD_SMTP_PASSWORD"})

    public_url: str = Field("", json_schema_extra=GIVEN, description="DD_PUBLIC_URL (ServerSettings): the sender's domain")
    smtp_host: str = Field("", validation_alias="DD_SMTP_HOST", description=(
        "the SMTP server email goes through; unset, email is written to the log (development)"))
    smtp_tls: Annotated[Literal["none", "starttls", "tls"], CaseBlind] = Field("starttls", validation_alias="DD_SMTP_TLS", description=(
        "`tls` is implicit TLS; a local SMTP sink (Mailpit, aiosmtpd) needs `none`"))
    smtp_port: int = Field(
        default_factory=lambda data: DEFAULT_SMTP_PORTS[data["smtp_tls"]], ge=1, le=65535,
        validation_alias="DD_SMTP_PORT", json_schema_extra={"default": "587 (`tls`: 465, `none`: 25)",
                                                            "problem": "{name} must be a port (1 to 65535), got {raw}"},
        description="the SMTP server's port")
    smtp_user: str = Field("", validation_alias="DD_SMTP_USER", description="SMTP login (with `DD_SMTP_PASSWORD`)")
    smtp_password: str = Field("", validation_alias="DD_SMTP_PASSWORD", repr=False,
                               description="SMTP password (required with `DD_SMTP_USER`)")
    mail_from: str = Field(
        default_factory=lambda data: _mail_from(data["public_url"]), validation_alias="DD_MAIL_FROM",
        json_schema_extra={"default": "`Discount Deals <no-reply@HOST of DD_PUBLIC_URL>`"},
        description="the sender of every email")
    sms_provider: Annotated[Literal["log", "hubtel", "file"], CaseBlind] = Field("log", validation_alias="DD_SMS_PROVIDER", description=(
        "`log` (texts go to the log, one-time codes hidden), `hubtel`, or `file` (development: each whole text, "
        "codes included, in a file of its own under `$DD_VAR_DIR/outbox/`, readable by the shop's user only; "
        "refused, like the fake payment provider, for a shop that answers anything but this machine)"))
    hubtel_base_url: Annotated[str, NoTrailingSlash] = Field(HUBTEL_BASE_URL, validation_alias="DD_HUBTEL_BASE_URL",
                                 description="Hubtel's SMS API (`/v1/messages/send`)")
    hubtel_client_id: str = Field("", validation_alias="DD_HUBTEL_CLIENT_ID",
                                  description="Hubtel API key id (required with `hubtel`)")
    hubtel_client_secret: str = Field("", validation_alias="DD_HUBTEL_CLIENT_SECRET", repr=False,
                                      description="Hubtel API key secret (required with `hubtel`)")
    sms_sender: str = Field("DiscntDeals", validation_alias="DD_SMS_SENDER", description=(
        "the SMS sender id: at most 11 letters, digits or spaces, registered with Hubtel"))
    send_timeout_seconds: float = Field(10.0, ge=1, validation_alias="DD_MESSAGE_TIMEOUT_SECONDS",
                                        description=(
        "longest wait for each step of an SMTP conversation (connecting, each answer) or for the SMS provider's answer"))
    max_attempts: int = _count(12, "DD_MESSAGE_MAX_ATTEMPTS", (
        "attempts before a message is dead (with `DD_MESSAGE_RETRY_SECONDS` 30: tries over about 17 hours)"))
    retry_seconds: int = _count(30, "DD_MESSAGE_RETRY_SECONDS",
                                "the first retry's delay, doubled after each failure (at most a day)")
    lease_seconds: int = _count(60, "DD_MESSAGE_LEASE_SECONDS", (
        "how long a worker's claim on a message lasts without news (then another worker takes it over); "
        "the worker renews it every third of this while it sends, however long a send takes"))
    batch_size: int = _count(50, "DD_MESSAGE_BATCH_SIZE", "messages a worker claims at once (one SMTP connection)")
    worker_threads: int = _count(4, "DD_WORKER_THREADS", (
        "threads of the message worker (each holds one SMTP connection or provider call at a time: "
        "raise it when the SMTP server is far away)"))
    worker_sweep_seconds: float = Field(5.0, validation_alias="DD_WORKER_SWEEP_SECONDS", description=(
        "how often the message worker looks for due messages"))
    start_worker: bool = Field(True, validation_alias="DD_START_WORKER", description=(
        "`serve` starts the message worker beside the server; 0 when it runs on its own (systemd, compose)"))
    deal_batch_seconds: int = _count(600, "DD_DEAL_ALERT_BATCH_SECONDS",
                                     "deal alerts within this window of the first become one message", minimum=0)
    cart_reminder_minutes: int = _count(60, "DD_CART_REMINDER_MINUTES", (
        "a signed-in customer's cart untouched this long gets one reminder (the sweep looks once a minute; "
        "none from 21:00 to 06:59 Accra time, at most one per cart in 3 days); `0` turns them off"), minimum=0)
    shop_name: str = Field(SHOP_NAME, json_schema_extra=GIVEN, description="the shop's name (not a setting)")



    @field_validator("start_worker", mode="before")
    @classmethod
    def _on_unless_off(cls, value: Any) -> Any:
        return value.lower() not in ("0", "false", "no", "off") if isinstance(value, str) else value

    @property
    def email_to_log(self) -> bool:
        return not self.smtp_host


def messaging_settings(public_url: str) -> MessagingSettings:
    """Read the messaging settings (``public_url`` gives the default sender's domain)."""
    return read(MessagingSettings, public_url=public_url)


def sender_problems(settings: MessagingSettings) -> list[str]:
    """What preflight reports about the messaging settings (empty when they will work)."""
    problems = []
    sender = settings.sms_sender
    if len(sender) > MAX_SENDER_LENGTH or not sender.replace(" ", "").isalnum():
        problems.append(
            f"DD_SMS_SENDER must be at most {MAX_SENDER_LENGTH} letters, digits or spaces, got {sender!r}"
        )
    if settings.sms_provider == "hubtel" and not (settings.hubtel_client_id and settings.hubtel_client_secret):
        problems.append("DD_HUBTEL_CLIENT_ID and DD_HUBTEL_CLIENT_SECRET are required when DD_SMS_PROVIDER=hubtel")
    if settings.smtp_user and not settings.smtp_password:
        problems.append("DD_SMTP_PASSWORD is required when DD_SMTP_USER is set")
    if "@" not in settings.mail_from:
        problems.append(f"DD_MAIL_FROM must be an email address, got {settings.mail_from!r}")
    return problems
