"""How the server is started (workers, Redis, port, the public address, ...), read afresh and as written.

Part of :mod:`discount_deals.config.settings`, which re-exports it: ``preflight.py`` checks these
values and ``launcher.py``/``__main__.py`` take them as an argument.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import Field, field_validator

from .settings_base import EnvironmentSettings, NoTrailingSlash

_OFF_WORDS = ("0", "false", "no", "off")


class ServerSettings(EnvironmentSettings):
    """How the server is started, as the operator wrote it (trimmed, not yet checked).

    Unlike :class:`~discount_deals.config.settings.Settings` it never fails and is not cached:
    preflight.py checks each value and names what is wrong in its own words, in the same run that
    reports the settings that do not parse. The numbers stay text for that reason ("" when not set).
    """

    database_url: str = Field("", validation_alias="REFLEX_DB_URL", description=(
        "database: `sqlite:///path` or `postgresql://user:pw@host:5432/db` (`postgres://` accepted); "
        "unset, the SQLite file `discount_deals.db` in `DD_VAR_DIR`"))
    redis_url: str = Field("", validation_alias="REFLEX_REDIS_URL", description=(
        "Redis for browser sessions; needed for more than one worker"))
    workers: str = Field("", validation_alias="GRANIAN_WORKERS", json_schema_extra={"type": "integer"}, description=(
        "worker processes per instance (`serve --workers N`); unset: 1, or the CPUs (at most 4) with Redis"))
    instances: str = Field("", validation_alias="DD_INSTANCES", json_schema_extra={"type": "integer"},
                           description="instances sharing the database (splits the connection budget); unset: 1")
    db_pool_size: str = Field("", validation_alias="DD_DB_POOL_SIZE", json_schema_extra={"type": "integer"},
                              description=("connections per worker; unset: SQLite 40, PostgreSQL 80 % of "
                                           "`max_connections` shared out (at most 20)"))
    public_url: Annotated[str, NoTrailingSlash] = Field("", validation_alias="DD_PUBLIC_URL", description=(
        "the shop's public origin, e.g. `https://shop.example.com`: absolute URLs, the browser's websocket"))
    secret_key: str = Field("", validation_alias="DD_SECRET_KEY", repr=False, description=(
        "token signing secret (unset: generated into `DD_SECRET_FILE`, one host only); "
        "required with Redis, several workers or instances"))
    allow_fake_payments: bool = Field(False, validation_alias="DD_ALLOW_FAKE_PAYMENTS", description=(
        "`1`: allow the fake provider for a shop that answers beyond this machine (a demonstration: every "
        "such payment is marked as a test, and the back office says payments are in test mode)"))
    host: str = Field("127.0.0.1", validation_alias="HOST", description=(
        "where `make run` listens (the default of `serve --host` and `check-config --host`); "
        "`0.0.0.0` serves the LAN"))
    port: str = Field("3000", validation_alias="PORT", json_schema_extra={"type": "integer"},
                      description="the port `make run` listens on (the default of `serve --port`)")
    shutdown_timeout: int = Field(30, validation_alias="DD_SHUTDOWN_TIMEOUT",
                                  description="seconds SIGTERM gives requests in flight (not a positive number: 30)")
    access_log: bool = Field(True, validation_alias="DD_ACCESS_LOG", description="one log line per request")
    cors_origins: str = Field("", validation_alias="DD_CORS_ORIGINS", description=(
        "comma-separated other origins whose pages may call `/api` with credentials and open the "
        "websocket (e.g. the original React client's); unset: same origin only"))

    # These never fail: a value that is no flag or number reads as the default, as it always has.

    @field_validator("allow_fake_payments", mode="before")
    @classmethod
    def _yes_only(cls, value: Any) -> Any:
        return str(value).lower() in ("1", "true", "yes") if isinstance(value, str) else value

    @field_validator("access_log", mode="before")
    @classmethod
    def _on_unless_off(cls, value: Any) -> Any:
        return str(value).lower() not in _OFF_WORDS if isinstance(value, str) else value

    @field_validator("shutdown_timeout", mode="before")
    @classmethod
    def _positive_or_default(cls, value: Any) -> Any:
        if isinstance(value, str):
            return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else 30
        return value


def server_settings() -> ServerSettings:
    """Read how the server is started, afresh on every call (cheap; the launcher hands values on
    to its workers through the environment, so a cached copy could be stale)."""
    return ServerSettings()


# Settings that change what the production frontend build gives the browser (Reflex reads its
# own from the environment; the launcher rebuilds when one changes).
FRONTEND_BUILD_ENV = ("REFLEX_API_URL", "REFLEX_DEPLOY_URL", "REFLEX_FRONTEND_PATH", "REFLEX_SSR", "REFLEX_TRANSPORT")
# Ours: the currency is in the pages' fixed texts (the price filter's options, the coupon form's hint).
APP_BUILD_ENV = ("DD_CURRENCY", "DD_CURRENCY_CODE", "DD_PAYMENT_CURRENCY", "DD_CURRENCY_SYMBOL")


def frontend_build_environment() -> tuple[tuple[str, str], ...]:
    """(name, value) of each of :data:`FRONTEND_BUILD_ENV` and :data:`APP_BUILD_ENV` as set now ("" when unset)."""
    return tuple((name, os.environ.get(name, "")) for name in FRONTEND_BUILD_ENV + APP_BUILD_ENV)
