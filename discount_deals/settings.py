"""Every setting of the application, read from the environment in one place.

Call :func:`get_settings` to read them; the result is cached. Tests that change the
environment call ``get_settings.cache_clear()`` afterwards.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


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
    currency_symbol: str
    currency_code: str  # ISO 4217, for machine-readable prices (schema.org offers)
    login_max_failures: int
    login_window_seconds: int
    # How many reverse proxies in front of the app append to X-Forwarded-For (0: use the socket address).
    trusted_proxy_hops: int
    log_level: str

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
    var_dir = Path(_env("DD_VAR_DIR", str(PROJECT_DIR / "var"))).resolve()
    database_url = _env("REFLEX_DB_URL", f"sqlite:///{var_dir / 'discount_deals.db'}")
    secret = os.environ.get("DD_SECRET_KEY", "").strip()
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
        currency_symbol=_env("DD_CURRENCY_SYMBOL", "$"),
        currency_code=_env("DD_CURRENCY_CODE", "USD").upper(),
        login_max_failures=_env_int("DD_LOGIN_MAX_FAILURES", 5),
        login_window_seconds=_env_int("DD_LOGIN_WINDOW_SECONDS", 15 * 60),
        trusted_proxy_hops=_env_int("DD_TRUSTED_PROXY_HOPS", 0),
        log_level=_env("DD_LOG_LEVEL", "INFO"),
    )


