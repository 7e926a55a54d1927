"""Every setting of the application, read from the environment in one place (and only here).

Call :func:`get_settings` to read the app's settings; the result is cached. Tests that change
the environment call ``get_settings.cache_clear()`` afterwards. How the server is started
(workers, Redis, port, the public address, ...) is read by :func:`server_settings`, afresh and
unparsed: ``preflight.py`` checks it and ``launcher.py``/``__main__.py`` take it as an argument.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

from .currency import DEFAULT_CURRENCY, SYMBOLS, Currency, parse_currency
from .setting_values import (  # noqa: F401 (parse_origins, redact_url: imported from here by others)
    LOOPBACK_HOSTS,
    normalize_database_url,
    parse_hosts,
    parse_origins,
    redact_url,
)
from .settings_messages import MessagingSettings, messaging_settings
from .settings_money import ReceiptSettings, ReturnSettings, TaxSettings, receipt_settings, return_settings, tax_settings
from .settings_ui import UiSettings, ui_settings

PROJECT_DIR = Path(__file__).resolve().parents[2]


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def _env_int(name: str, default: int) -> int:
    return _parse_int(name, os.environ.get(name, ""), default)


def _parse_int(name: str, raw: str, default: int) -> int:
    raw = raw.strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


def _load_or_create_secret(path: Path) -> str:
    """Return the signing secret stored at ``path``, creating it on first use.

    Creation uses O_EXCL so that two workers starting together agree on one secret.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_text().strip()
        if secret:
            return secret
        raise RuntimeError(f"secret file {path} is empty; delete it to regenerate") from None
    with os.fdopen(fd, "w") as handle:
        secret = secrets.token_urlsafe(48)
        handle.write(secret)
    return secret


# --- checkout, delivery and payments (issue 14) ---------------------------------------------

PAYMENT_PROVIDERS = ("fake", "paystack")


@dataclass(frozen=True)
class CheckoutSettings:
    """Delivery fees and the payment provider.

    ``payment_provider`` is ``fake`` (a local approve/decline page: development and tests) or
    ``paystack`` (any Paystack-compatible API at ``paystack_base_url``). Webhooks are signed
    with ``webhook_secret`` (HMAC-SHA512); with Paystack it defaults to the secret key, as
    Paystack signs with that.
    """

    delivery_fee: Decimal
    free_delivery_over: Decimal
    payment_provider: str
    webhook_secret: str = field(repr=False)
    paystack_secret_key: str = field(repr=False)
    paystack_base_url: str
    # An unpaid mobile-money order gives its stock back after this many minutes.
    payment_timeout_minutes: int
    provider_timeout_seconds: float
    # How often the server looks for unpaid orders whose time is up.
    release_interval_seconds: int = 60


def _env_money(name: str, default: str) -> Decimal:
    raw = _env(name, default)
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{name} must be an amount such as 5.99, got {raw!r}") from None
    if not value.is_finite() or value < 0 or value != value.quantize(Decimal("0.01")):
        raise ValueError(f"{name} must be an amount of at least 0 with at most 2 decimals, got {raw!r}")
    return value


def _checkout_settings(secret_key: str) -> CheckoutSettings:
    provider = _env("DD_PAYMENT_PROVIDER", "fake").lower()
    if provider not in PAYMENT_PROVIDERS:
        raise ValueError(f"DD_PAYMENT_PROVIDER must be one of {', '.join(PAYMENT_PROVIDERS)}, got {provider!r}")
    paystack_key = os.environ.get("DD_PAYSTACK_SECRET_KEY", "").strip()
    if provider == "paystack" and not paystack_key:
        raise ValueError("DD_PAYSTACK_SECRET_KEY is required when DD_PAYMENT_PROVIDER=paystack")
    webhook_secret = os.environ.get("DD_PAYMENT_WEBHOOK_SECRET", "").strip()
    if not webhook_secret:
        # The fake provider signs its own webhooks: a secret derived from the app's key will do.
        webhook_secret = paystack_key if provider == "paystack" else hmac.new(
            secret_key.encode(), b"payment-webhook", hashlib.sha256
        ).hexdigest()
    timeout = _env_int("DD_PAYMENT_TIMEOUT_MINUTES", 30)
    if timeout < 1:
        raise ValueError("DD_PAYMENT_TIMEOUT_MINUTES must be at least 1")
    return CheckoutSettings(
        delivery_fee=_env_money("DD_DELIVERY_FEE", "5.99"),
        free_delivery_over=_env_money("DD_FREE_DELIVERY_OVER", "50.00"),
        payment_provider=provider,
        webhook_secret=webhook_secret,
        paystack_secret_key=paystack_key,
        paystack_base_url=_env("DD_PAYSTACK_BASE_URL", "https://api.paystack.co").rstrip("/"),
        payment_timeout_minutes=timeout,
        provider_timeout_seconds=float(_env_int("DD_PAYMENT_PROVIDER_TIMEOUT_SECONDS", 10)),
        release_interval_seconds=max(1, _env_int("DD_PAYMENT_RELEASE_INTERVAL_SECONDS", 60)),
    )


def _currency() -> Currency:
    """``DD_CURRENCY``; the settings it replaced are read when it is not set (deprecated)."""
    for name in ("DD_CURRENCY", "DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY"):
        if os.environ.get(name, "").strip():
            return parse_currency(os.environ[name], name)
    symbol = os.environ.get("DD_CURRENCY_SYMBOL", "").strip()
    code = next((code for code, shown in SYMBOLS.items() if shown.strip() == symbol), DEFAULT_CURRENCY)
    return parse_currency(code)


# --- hardening: CORS, throttles, request bodies (issue 13) ------------------------------------


@dataclass(frozen=True)
class SecuritySettings:
    """Who may call the app from another origin, and the limits on hostile traffic.

    ``cors_origins`` (``DD_CORS_ORIGINS``, comma-separated ``scheme://host[:port]``) are the
    other origins whose pages may call ``/api`` and open the websocket, e.g. the original React
    client's; by default only pages of the app's own origin may. Registrations are limited per
    client address (``DD_REGISTER_MAX_ATTEMPTS`` well-formed attempts per
    ``DD_REGISTER_WINDOW_SECONDS``). Requests whose ``Host`` is not one of ``allowed_hosts`` get
    a 400 (DNS rebinding, links built on a forged host).
    """

    cors_origins: tuple[str, ...] = ()
    register_max_attempts: int = 50
    register_window_seconds: int = 3600
    # Host headers the site answers (web/hosts.py): loopback, DD_PUBLIC_URL's host, DD_ALLOWED_HOSTS.
    allowed_hosts: tuple[str, ...] = ()


def _security_settings(server: ServerSettings) -> SecuritySettings:
    attempts = _env_int("DD_REGISTER_MAX_ATTEMPTS", 50)
    window = _env_int("DD_REGISTER_WINDOW_SECONDS", 3600)
    if attempts < 1 or window < 1:
        raise ValueError("DD_REGISTER_MAX_ATTEMPTS and DD_REGISTER_WINDOW_SECONDS must be at least 1")
    return SecuritySettings(
        cors_origins=parse_origins(server.cors_origins),
        register_max_attempts=attempts,
        register_window_seconds=window,
        allowed_hosts=parse_hosts(os.environ.get("DD_ALLOWED_HOSTS", ""), server.public_url),
    )


# --- starting the server: checked by preflight.py, used by launcher.py and __main__.py ------------


@dataclass(frozen=True)
class ServerSettings:
    """How the server is started, as the operator wrote it (stripped, not yet validated).

    Unlike :class:`Settings` it never fails and is not cached: preflight.py checks each value
    and names what is wrong in its own words, in the same run that reports a :class:`Settings`
    that does not parse. The numbers stay text for that reason ("" when not set).
    """

    database_url: str  # REFLEX_DB_URL ("": the SQLite file under DD_VAR_DIR)
    redis_url: str  # REFLEX_REDIS_URL
    workers: str  # GRANIAN_WORKERS
    instances: str  # DD_INSTANCES
    db_pool_size: str  # DD_DB_POOL_SIZE ("": derived from the connection budget)
    public_url: str  # DD_PUBLIC_URL, without a trailing slash
    secret_key: str = field(repr=False)  # DD_SECRET_KEY ("": generated into a file, one host only)
    allow_fake_payments: bool  # DD_ALLOW_FAKE_PAYMENTS: the fake provider on a public address
    host: str  # HOST, the default of ``serve --host``
    port: str  # PORT, the default of ``--port`` (checked by the command line)
    shutdown_timeout: int  # DD_SHUTDOWN_TIMEOUT: seconds SIGTERM gives requests in flight
    access_log: bool  # DD_ACCESS_LOG
    cors_origins: str = ""  # DD_CORS_ORIGINS as written (parse_origins checks it; rxconfig.py reads it)


def server_settings() -> ServerSettings:
    """Read how the server is started, afresh on every call (cheap; the launcher hands values on
    to its workers through the environment, so a cached copy could be stale)."""

    def text(name: str) -> str:
        return os.environ.get(name, "").strip()

    shutdown = text("DD_SHUTDOWN_TIMEOUT")
    return ServerSettings(
        database_url=text("REFLEX_DB_URL"),
        redis_url=text("REFLEX_REDIS_URL"),
        workers=text("GRANIAN_WORKERS"),
        instances=text("DD_INSTANCES"),
        db_pool_size=text("DD_DB_POOL_SIZE"),
        public_url=text("DD_PUBLIC_URL").rstrip("/"),
        secret_key=text("DD_SECRET_KEY"),
        allow_fake_payments=text("DD_ALLOW_FAKE_PAYMENTS").lower() in {"1", "true", "yes"},
        host=os.environ.get("HOST", "127.0.0.1"),  # this machine only unless HOST says otherwise
        port=os.environ.get("PORT", "3000"),
        shutdown_timeout=int(shutdown) if shutdown.isdigit() and int(shutdown) > 0 else 30,
        access_log=(text("DD_ACCESS_LOG") or "1").lower() not in ("0", "false", "no", "off"),
        cors_origins=text("DD_CORS_ORIGINS"),
    )


# Settings that change what the production frontend build gives the browser (Reflex reads its
# own from the environment; the launcher rebuilds when one changes).
FRONTEND_BUILD_ENV = ("REFLEX_API_URL", "REFLEX_DEPLOY_URL", "REFLEX_FRONTEND_PATH", "REFLEX_SSR", "REFLEX_TRANSPORT")
# Ours: the currency is in the pages' fixed texts (the price filter's options, the coupon form's hint).
APP_BUILD_ENV = ("DD_CURRENCY", "DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY", "DD_CURRENCY_SYMBOL")


def frontend_build_environment() -> tuple[tuple[str, str], ...]:
    """(name, value) of each of :data:`FRONTEND_BUILD_ENV` and :data:`APP_BUILD_ENV` as set now ("" when unset)."""
    return tuple((name, os.environ.get(name, "")) for name in FRONTEND_BUILD_ENV + APP_BUILD_ENV)


# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Runtime configuration. Built by :func:`get_settings`."""

    var_dir: Path
    database_url: str
    secret_key: str = field(repr=False)
    access_token_seconds: int
    refresh_token_seconds: int
    media_dir: Path
    media_url: str
    placeholder_image_url: str
    max_image_bytes: int
    max_image_pixels: int
    profile_image_size: int
    bulk_max_bytes: int
    bulk_max_rows: int
    page_size: int
    max_page_size: int
    currency: Currency  # DD_CURRENCY: what prices are shown in and payments charged in
    login_max_failures: int
    login_window_seconds: int
    login_account_max_failures: int  # per account from any address (a rotating X-Forwarded-For)
    # How many reverse proxies in front of the app append to X-Forwarded-For (0: use the socket address).
    trusted_proxy_hops: int
    log_level: str
    # Production: where the shop is reached (https://shop.example.com); decides every absolute URL.
    public_url: str
    redis_url: str
    secret_from_environment: bool
    # Connections each worker process may hold (the API's thread pool is sized to match).
    db_pool_size: int
    db_pool_timeout: float
    # Threads the product listing and detail reads may use at once per worker. They hold the GIL
    # for most of their time (SQLite answers in-process, then the JSON is built): 32 shoppers in
    # 32 threads served half as many requests per second as the same shoppers taking turns in 2.
    read_threads: int
    sqlite_busy_timeout_ms: int
    # SQLite: writing API requests queue in the event loop (no thread held); this long at most, then 503.
    write_wait_seconds: float
    write_queue_limit: int
    # Delivery fees, payment provider and timeouts (issue 14): see CheckoutSettings.
    checkout: CheckoutSettings = field(default=None, repr=False)  # type: ignore[assignment]
    # CORS allow-list and abuse limits (issue 13): see SecuritySettings.
    security: SecuritySettings = field(default_factory=SecuritySettings)
    # Email, SMS and the message queue (issue 22): settings_messages.py.
    messages: MessagingSettings = field(default_factory=MessagingSettings)
    # Tab states, the listing cache and /api/metrics (issue 23): settings_ui.py.
    ui: UiSettings = field(default_factory=UiSettings)
    # The taxes charged and whether prices include them (issue 33): settings_money.py.
    tax: TaxSettings = field(default_factory=TaxSettings)
    receipts: ReceiptSettings = field(default_factory=ReceiptSettings)  # numbering and the seller (settings_money.py)
    returns: ReturnSettings = field(default_factory=ReturnSettings)  # DD_RETURN_DAYS (settings_money.py)

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def client_ip(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address for throttling: the socket peer, or behind ``trusted_proxy_hops``
    proxies the address the outermost trusted proxy saw (never a value the client wrote itself)."""
    hops = get_settings().trusted_proxy_hops
    if hops > 0 and forwarded_for:
        chain = [part.strip() for part in forwarded_for.split(",") if part.strip()]
        if len(chain) >= hops:
            return chain[-hops][:64]
    return (peer or "unknown")[:64]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Read the environment once and return the settings."""
    server = server_settings()  # the variables the server start shares with the app, read once
    var_dir = Path(_env("DD_VAR_DIR", str(PROJECT_DIR / "var"))).resolve()
    database_url = normalize_database_url(server.database_url or f"sqlite:///{var_dir / 'discount_deals.db'}")
    is_sqlite = database_url.startswith("sqlite")
    secret = server.secret_key
    secret_from_environment = bool(secret)
    if not secret:
        secret = _load_or_create_secret(Path(_env("DD_SECRET_FILE", str(var_dir / "secret_key"))))
    return Settings(
        var_dir=var_dir,
        database_url=database_url,
        secret_key=secret,
        access_token_seconds=_env_int("DD_ACCESS_TOKEN_SECONDS", 15 * 60),
        refresh_token_seconds=_env_int("DD_REFRESH_TOKEN_SECONDS", 7 * 24 * 3600),
        media_dir=Path(_env("DD_MEDIA_DIR", str(var_dir / "media"))).resolve(),
        media_url="/api/media",
        placeholder_image_url=_env("DD_PLACEHOLDER_IMAGE_URL", "/placeholder.webp"),
        max_image_bytes=_env_int("DD_MAX_IMAGE_BYTES", 5 * 1024 * 1024),
        max_image_pixels=_env_int("DD_MAX_IMAGE_PIXELS", 40_000_000),
        profile_image_size=_env_int("DD_PROFILE_IMAGE_SIZE", 512),
        bulk_max_bytes=_env_int("DD_BULK_MAX_BYTES", 10 * 1024 * 1024),
        bulk_max_rows=_env_int("DD_BULK_MAX_ROWS", 20_000),
        page_size=_env_int("DD_PAGE_SIZE", 10),
        max_page_size=_env_int("DD_MAX_PAGE_SIZE", 1000),
        currency=_currency(),
        login_max_failures=_env_int("DD_LOGIN_MAX_FAILURES", 5),
        login_window_seconds=_env_int("DD_LOGIN_WINDOW_SECONDS", 15 * 60),
        login_account_max_failures=_env_int("DD_LOGIN_ACCOUNT_MAX_FAILURES", 10),
        trusted_proxy_hops=_env_int("DD_TRUSTED_PROXY_HOPS", 0),
        log_level=_env("DD_LOG_LEVEL", "INFO"),
        public_url=server.public_url,
        redis_url=server.redis_url,
        secret_from_environment=secret_from_environment,
        db_pool_size=_parse_int("DD_DB_POOL_SIZE", server.db_pool_size, 40 if is_sqlite else 10),
        db_pool_timeout=_env_float("DD_DB_POOL_TIMEOUT", 5.0),
        read_threads=max(1, _env_int("DD_READ_THREADS", 2 if is_sqlite else 4)),
        sqlite_busy_timeout_ms=_env_int("DD_SQLITE_BUSY_TIMEOUT_MS", 5_000),
        write_wait_seconds=_env_float("DD_WRITE_WAIT_SECONDS", 5.0),
        write_queue_limit=_env_int("DD_WRITE_QUEUE_LIMIT", 200),
        checkout=_checkout_settings(secret),
        security=_security_settings(server),
        messages=(messages := messaging_settings(server.public_url)),
        ui=ui_settings(),
        tax=tax_settings(),
        receipts=receipt_settings(messages.shop_name),
        returns=return_settings(),
    )


