"""Every setting of the application, declared as pydantic-settings models and read here only.

Call :func:`get_settings` to read the app's settings; the result is cached. Tests that change
the environment call ``get_settings.cache_clear()`` afterwards. How the server is started
(workers, Redis, port, the public address, ...) is read by :func:`server_settings`, afresh and
unparsed: ``preflight.py`` checks it and ``launcher.py``/``__main__.py`` take it as an argument.
A value that does not parse is a :class:`SettingsError` naming every bad variable at once.
"""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, field_validator

from .currency import DEFAULT_CURRENCY, SYMBOLS, Currency, parse_currency
from .setting_values import (  # noqa: F401 (parse_origins, redact_url, ...: imported from here by others)
    LOOPBACK_HOSTS,
    normalize_database_url,
    parse_hosts,
    parse_origins,
    redact_url,
)
from .settings_base import GIVEN, EnvironmentSettings, SettingsError, env_name, read, replace  # noqa: F401
from .settings_checkout import PAYMENT_PROVIDERS, CheckoutSettings  # noqa: F401
from .settings_security import SecuritySettings
from .settings_messages import MessagingSettings, messaging_settings  # noqa: F401
from .settings_money import ReceiptSettings, ReturnSettings, TaxSettings
from .settings_server import (  # noqa: F401 (the server's settings, imported from here by others)
    APP_BUILD_ENV,
    FRONTEND_BUILD_ENV,
    ServerSettings,
    frontend_build_environment,
    server_settings,
)
from .settings_ui import UiSettings

PROJECT_DIR = Path(__file__).resolve().parents[2]
_CURRENCY_SETTINGS = ("currency_code", "deprecated_currency_code", "deprecated_payment_currency")


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


def _chosen_currency(data: dict[str, Any]) -> Currency:
    """``DD_CURRENCY``; the settings it replaced are read when it is not set (deprecated)."""
    code = next((data[name] for name in _CURRENCY_SETTINGS if data.get(name)), "")
    if not code:
        symbol = data.get("deprecated_currency_symbol", "")
        code = next((code for code, shown in SYMBOLS.items() if shown.strip() == symbol), DEFAULT_CURRENCY)
    return parse_currency(code)


def _sqlite_default(data: dict[str, Any]) -> str:
    return f"sqlite:///{data['var_dir'] / 'discount_deals.db'}"


def _on_sqlite(data: dict[str, Any]) -> bool:
    return data["database_url"].startswith("sqlite")


def _count(default: int, env: str, description: str) -> Any:
    """A whole number (no bounds: none were ever checked for these)."""
    return Field(default, validation_alias=env, description=description)


class Settings(EnvironmentSettings):
    """Runtime configuration. Built by :func:`get_settings` (the sections come from their own models)."""

    var_dir: Path = Field(PROJECT_DIR / "var", validation_alias="DD_VAR_DIR", json_schema_extra={"default": "`var/`"},
                          description="runtime data: SQLite file, generated secret, media")
    database_url: str = Field(default_factory=_sqlite_default, validation_alias="REFLEX_DB_URL",
                              json_schema_extra=GIVEN, description="REFLEX_DB_URL (ServerSettings), normalised")
    secret_file: Path = Field(default_factory=lambda data: data["var_dir"] / "secret_key",
                              validation_alias="DD_SECRET_FILE", json_schema_extra={"default": "`$DD_VAR_DIR/secret_key`"},
                              description="where the signing secret is generated and kept when `DD_SECRET_KEY` is unset")
    secret_key: str = Field("", repr=False, json_schema_extra=GIVEN, description="DD_SECRET_KEY or the secret file's")
    secret_from_environment: bool = Field(False, json_schema_extra=GIVEN, description="DD_SECRET_KEY was set")
    access_token_seconds: int = _count(15 * 60, "DD_ACCESS_TOKEN_SECONDS", "access token lifetime")
    refresh_token_seconds: int = _count(7 * 24 * 3600, "DD_REFRESH_TOKEN_SECONDS", "refresh token lifetime")
    media_dir: Path = Field(default_factory=lambda data: data["var_dir"] / "media", validation_alias="DD_MEDIA_DIR",
                            json_schema_extra={"default": "`$DD_VAR_DIR/media`"},
                            description="uploaded and generated pictures, served at `/api/media/` (shared by all instances)")
    media_url: ClassVar[str] = "/api/media"
    placeholder_image_url: str = Field("/placeholder.webp", validation_alias="DD_PLACEHOLDER_IMAGE_URL",
                                       description="the picture shown for a product without one")
    max_image_bytes: int = _count(5 * 1024 * 1024, "DD_MAX_IMAGE_BYTES", "largest uploaded picture, in bytes")
    max_image_pixels: int = _count(40_000_000, "DD_MAX_IMAGE_PIXELS", "largest uploaded picture, in pixels")
    profile_image_size: int = _count(512, "DD_PROFILE_IMAGE_SIZE", "side of a profile picture, in pixels")
    bulk_max_bytes: int = _count(10 * 1024 * 1024, "DD_BULK_MAX_BYTES",
                                 "largest bulk upload (a larger body is refused with 413 as it streams)")
    bulk_max_rows: int = _count(20_000, "DD_BULK_MAX_ROWS", "most rows of a bulk upload")
    page_size: int = _count(10, "DD_PAGE_SIZE", "storefront page size")
    max_page_size: int = _count(1000, "DD_MAX_PAGE_SIZE", "largest page an API client may ask for")
    # DD_CURRENCY: what prices are shown in and payments charged in (validated by _currency_code).
    currency_code: str = Field("", validation_alias="DD_CURRENCY", json_schema_extra={"default": "`USD`"}, description=(
        "ISO 4217 code of the shop's one currency: prices are shown with its symbol (`USD` → `$`, `GHS` → `GH₵`; "
        "SMS and the receipt PDF write the code, `GHS 12.35`), the provider charges it, `seed-demo` prices the "
        "demo catalogue in it. With `GHS`, set the delivery fee and threshold in cedis too"))
    deprecated_currency_code: str = Field("", validation_alias="DD_CURRENCY_CODE",
                                          description="deprecated: `DD_CURRENCY`, read when that is unset")
    deprecated_payment_currency: str = Field("", validation_alias="DD_PAYMENT_CURRENCY",
                                             description="deprecated: `DD_CURRENCY`, read when that is unset")
    deprecated_currency_symbol: str = Field("", validation_alias="DD_CURRENCY_SYMBOL", description=(
        "deprecated: `DD_CURRENCY` (a symbol of the table, `GH₵` → `GHS`), read when no code is set"))
    currency: Currency = Field(default_factory=_chosen_currency, json_schema_extra=GIVEN, description="the above, chosen")
    login_max_failures: int = _count(5, "DD_LOGIN_MAX_FAILURES",
                                     "failed logins per address within `DD_LOGIN_WINDOW_SECONDS` before a pause")
    login_window_seconds: int = _count(15 * 60, "DD_LOGIN_WINDOW_SECONDS", "the window of the login limits")
    # per account from any address (a rotating X-Forwarded-For)
    login_account_max_failures: int = _count(10, "DD_LOGIN_ACCOUNT_MAX_FAILURES", (
        "failed logins per account from any address within `DD_LOGIN_WINDOW_SECONDS` before logins pause for "
        "devices the shop does not know (the owner is told once; the owner's devices still get in)"))
    # How many reverse proxies in front of the app append to X-Forwarded-For (0: use the socket address).
    trusted_proxy_hops: int = _count(0, "DD_TRUSTED_PROXY_HOPS",
                                     "proxies in front whose `X-Forwarded-*` headers are trusted")
    log_level: str = Field("INFO", validation_alias="DD_LOG_LEVEL", description="the app's own log level")
    # Production: where the shop is reached (https://shop.example.com); decides every absolute URL.
    public_url: str = Field("", json_schema_extra=GIVEN, description="DD_PUBLIC_URL (ServerSettings)")
    redis_url: str = Field("", json_schema_extra=GIVEN, description="REFLEX_REDIS_URL (ServerSettings)")
    # Connections each worker process may hold (the API's thread pool is sized to match).
    db_pool_size: int = Field(default_factory=lambda data: 40 if _on_sqlite(data) else 10,
                              validation_alias="DD_DB_POOL_SIZE", json_schema_extra=GIVEN,
                              description="DD_DB_POOL_SIZE (ServerSettings), as a number")
    db_pool_timeout: float = Field(5.0, validation_alias="DD_DB_POOL_TIMEOUT",
                                   description="seconds a request waits for a database connection before a 503")
    # Threads the product listing and detail reads may use at once per worker. They hold the GIL
    # for most of their time (SQLite answers in-process, then the JSON is built): 32 shoppers in
    # 32 threads served half as many requests per second as the same shoppers taking turns in 2.
    read_threads: int = Field(default_factory=lambda data: 2 if _on_sqlite(data) else 4,
                              validation_alias="DD_READ_THREADS", json_schema_extra={"default": "SQLite 2; PostgreSQL 4"},
                              description=("threads product listings and pages may use at once per worker (more "
                                           "requests wait in the event loop without a thread)"))
    sqlite_busy_timeout_ms: int = _count(5_000, "DD_SQLITE_BUSY_TIMEOUT_MS",
                                         "SQLite: longest wait for the write lock (another process)")
    # SQLite: writing API requests queue in the event loop (no thread held); this long at most, then 503.
    write_wait_seconds: float = Field(5.0, validation_alias="DD_WRITE_WAIT_SECONDS", description=(
        "SQLite: longest wait of a writing API request for its turn before a 503"))
    write_queue_limit: int = _count(200, "DD_WRITE_QUEUE_LIMIT", (
        "SQLite: writing requests allowed to wait at once; more get a 503 at once"))
    # The sections, each read by a model of its own (get_settings): see their modules.
    checkout: CheckoutSettings = Field(None, repr=False, json_schema_extra=GIVEN, description="settings_checkout.py")
    security: SecuritySettings = Field(None, json_schema_extra=GIVEN, description="settings_security.py")
    messages: MessagingSettings = Field(None, json_schema_extra=GIVEN, description="settings_messages.py")
    ui: UiSettings = Field(None, json_schema_extra=GIVEN, description="settings_ui.py")
    tax: TaxSettings = Field(None, json_schema_extra=GIVEN, description="settings_money.py")
    receipts: ReceiptSettings = Field(None, json_schema_extra=GIVEN, description="settings_money.py")
    returns: ReturnSettings = Field(None, json_schema_extra=GIVEN, description="settings_money.py")

    @field_validator("var_dir", "media_dir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.resolve()

    @field_validator("database_url")
    @classmethod
    def _psycopg(cls, value: str) -> str:
        return normalize_database_url(value)

    @field_validator(*_CURRENCY_SETTINGS)
    @classmethod
    def _currency_code(cls, value: str, info: ValidationInfo) -> str:
        return parse_currency(value, env_name(cls, str(info.field_name))).code

    @field_validator("read_threads")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        return max(1, value)

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def trusted_hop(header: str | None, hops: int) -> str | None:
    """What the outermost of ``hops`` trusted proxies wrote in an ``X-Forwarded-*`` header (a
    comma-separated list each proxy appends to): the ``hops``-th value from the end, never one
    the client wrote itself; None without such a value."""
    if hops <= 0 or not header:
        return None
    chain = [part.strip() for part in header.split(",") if part.strip()]
    return chain[-hops] if len(chain) >= hops else None


def client_ip(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address for throttling: the socket peer, or behind ``trusted_proxy_hops``
    proxies the address the outermost trusted proxy saw (:func:`trusted_hop`)."""
    return (trusted_hop(forwarded_for, get_settings().trusted_proxy_hops) or peer or "unknown")[:64]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Read the environment once and return the settings (:class:`SettingsError`: every bad value)."""
    server = server_settings()  # the variables the server start shares with the app, read once
    problems: list[str] = []
    core = read(Settings, problems, database_url=server.database_url, public_url=server.public_url,
                redis_url=server.redis_url, db_pool_size=server.db_pool_size)
    secret = server.secret_key or (_load_or_create_secret(core.secret_file) if core is not None else "")
    sections = {
        "checkout": read(CheckoutSettings, problems, signing_secret=secret),
        "security": read(SecuritySettings, problems, public_url=server.public_url, cors_origins=server.cors_origins),
        "messages": read(MessagingSettings, problems, public_url=server.public_url),
        "ui": read(UiSettings, problems),
        "tax": read(TaxSettings, problems),
        "receipts": read(ReceiptSettings, problems),
        "returns": read(ReturnSettings, problems),
    }
    if core is None or problems:
        raise SettingsError(problems)
    return core.model_copy(update={"secret_key": secret, "secret_from_environment": bool(server.secret_key), **sections})
