"""The settings of email, SMS and the message queue (issue 22), read from the environment.

Part of :mod:`discount_deals.config.settings` (``Settings.messages``), kept in a module of its own so
that settings.py stays readable; nothing else reads these variables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

SMTP_TLS_MODES = ("none", "starttls", "tls")
SMS_PROVIDERS = ("log", "hubtel", "file")
DEFAULT_SMTP_PORTS = {"none": 25, "starttls": 587, "tls": 465}
HUBTEL_BASE_URL = "https://smsc.hubtel.com"
SHOP_NAME = "Discount Deals"
# An alphanumeric sender id may have at most 11 characters (GSM 03.40); networks drop longer ones.
MAX_SENDER_LENGTH = 11


@dataclass(frozen=True)
class MessagingSettings:
    """Where email and SMS go, and how the worker delivers them.

    Without ``smtp_host`` email is written to the log (development). ``sms_provider`` is ``log``
    (the default: texts go to the log, one-time codes hidden), ``hubtel``, or ``file``
    (development: each whole text in a file under ``DD_VAR_DIR/outbox/``).
    """

    smtp_host: str = ""
    smtp_port: int = 587
    smtp_user: str = ""
    smtp_password: str = field(default="", repr=False)
    smtp_tls: str = "starttls"
    mail_from: str = f"{SHOP_NAME} <no-reply@localhost>"
    sms_provider: str = "log"
    hubtel_base_url: str = HUBTEL_BASE_URL
    hubtel_client_id: str = ""
    hubtel_client_secret: str = field(default="", repr=False)
    sms_sender: str = "DiscntDeals"
    # Seconds one SMTP conversation or provider call may take.
    send_timeout_seconds: float = 10.0
    # Attempts before a message is dead, and the first retry's delay (doubled each time).
    max_attempts: int = 6
    retry_seconds: int = 30
    # How long a worker's claim on a message lasts (renewed while it works through a batch).
    lease_seconds: int = 60
    # Messages one worker claims at once (one SMTP connection serves them).
    batch_size: int = 50
    # Threads of the worker process, and whether `serve` starts the worker itself.
    worker_threads: int = 4
    start_worker: bool = True
    # Deal alerts that come within this many seconds of the first go out as one message.
    deal_batch_seconds: int = 600
    # A signed-in customer's cart untouched this long gets one reminder (0: no reminders).
    cart_reminder_minutes: int = 60
    shop_name: str = SHOP_NAME

    @property
    def email_to_log(self) -> bool:
        return not self.smtp_host


def _text(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def _number(name: str, default: int, minimum: int) -> int:
    raw = _text(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _mail_from(public_url: str) -> str:
    from urllib.parse import urlsplit

    host = urlsplit(public_url).hostname if public_url else None
    return f"{SHOP_NAME} <no-reply@{host or 'localhost'}>"


def messaging_settings(public_url: str) -> MessagingSettings:
    """Read the messaging settings (``public_url`` gives the default sender's domain)."""
    tls = _text("DD_SMTP_TLS", "starttls").lower()
    if tls not in SMTP_TLS_MODES:
        raise ValueError(f"DD_SMTP_TLS must be one of {', '.join(SMTP_TLS_MODES)}, got {tls!r}")
    provider = _text("DD_SMS_PROVIDER", "log").lower()
    if provider not in SMS_PROVIDERS:
        raise ValueError(f"DD_SMS_PROVIDER must be one of {', '.join(SMS_PROVIDERS)}, got {provider!r}")
    port = _number("DD_SMTP_PORT", DEFAULT_SMTP_PORTS[tls], 1)
    if port > 65535:
        raise ValueError(f"DD_SMTP_PORT must be a port (1 to 65535), got {port}")
    return MessagingSettings(
        smtp_host=_text("DD_SMTP_HOST"),
        smtp_port=port,
        smtp_user=_text("DD_SMTP_USER"),
        smtp_password=os.environ.get("DD_SMTP_PASSWORD", ""),
        smtp_tls=tls,
        mail_from=_text("DD_MAIL_FROM", _mail_from(public_url)),
        sms_provider=provider,
        hubtel_base_url=_text("DD_HUBTEL_BASE_URL", HUBTEL_BASE_URL).rstrip("/"),
        hubtel_client_id=_text("DD_HUBTEL_CLIENT_ID"),
        hubtel_client_secret=_text("DD_HUBTEL_CLIENT_SECRET"),
        sms_sender=_text("DD_SMS_SENDER", "DiscntDeals"),
        send_timeout_seconds=float(_number("DD_MESSAGE_TIMEOUT_SECONDS", 10, 1)),
        max_attempts=_number("DD_MESSAGE_MAX_ATTEMPTS", 6, 1),
        retry_seconds=_number("DD_MESSAGE_RETRY_SECONDS", 30, 1),
        lease_seconds=_number("DD_MESSAGE_LEASE_SECONDS", 60, 1),
        batch_size=_number("DD_MESSAGE_BATCH_SIZE", 50, 1),
        worker_threads=_number("DD_WORKER_THREADS", 4, 1),
        start_worker=_text("DD_START_WORKER", "1").lower() not in ("0", "false", "no", "off"),
        deal_batch_seconds=_number("DD_DEAL_ALERT_BATCH_SECONDS", 600, 0),
        cart_reminder_minutes=_number("DD_CART_REMINDER_MINUTES", 60, 0),
    )


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
