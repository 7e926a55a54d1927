"""Settings come from the environment; the signing secret is generated, never a constant."""

from pathlib import Path

import pytest

from discount_deals.config.settings import get_settings


@pytest.fixture
def fresh_settings(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("DD_VAR_DIR", str(tmp_path))
    monkeypatch.delenv("DD_SECRET_KEY", raising=False)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_secret_is_generated_once_and_stored_privately(fresh_settings: Path):
    first = get_settings().secret_key
    secret_file = fresh_settings / "secret_key"
    assert secret_file.read_text() == first
    assert len(first) >= 40
    assert secret_file.stat().st_mode & 0o077 == 0
    get_settings.cache_clear()
    assert get_settings().secret_key == first


def test_defaults(fresh_settings: Path, monkeypatch):
    monkeypatch.delenv("REFLEX_DB_URL", raising=False)
    settings = get_settings()
    assert settings.database_url == f"sqlite:///{fresh_settings / 'discount_deals.db'}"
    assert settings.page_size == 10
    assert settings.currency.symbol == "$"
    assert settings.access_token_seconds == 15 * 60
    assert settings.refresh_token_seconds == 7 * 24 * 3600


def test_environment_overrides(fresh_settings: Path, monkeypatch):
    monkeypatch.setenv("REFLEX_DB_URL", "postgresql+psycopg://u:p@127.0.0.1:5432/shop")
    monkeypatch.setenv("DD_SECRET_KEY", "from-the-environment")
    monkeypatch.setenv("DD_CURRENCY_SYMBOL", "GH₵")
    monkeypatch.setenv("DD_ACCESS_TOKEN_SECONDS", "30")
    settings = get_settings()
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert settings.secret_key == "from-the-environment"
    assert settings.currency.symbol == "GH₵"
    assert settings.access_token_seconds == 30
    assert not (fresh_settings / "secret_key").exists()
    assert "from-the-environment" not in repr(settings)


def test_bad_number_is_a_clear_error(fresh_settings: Path, monkeypatch):
    monkeypatch.setenv("DD_PAGE_SIZE", "ten")
    with pytest.raises(ValueError, match="DD_PAGE_SIZE must be an integer"):
        get_settings()


def test_client_ip_trusts_only_the_configured_proxies(fresh_settings: Path, monkeypatch):
    from discount_deals.config.settings import client_ip

    assert client_ip("10.0.0.9", "1.2.3.4") == "10.0.0.9"  # no proxy configured: the header is ignored
    monkeypatch.setenv("DD_TRUSTED_PROXY_HOPS", "1")
    get_settings.cache_clear()
    # The client may prepend anything; the proxy appends what it saw.
    assert client_ip("10.0.0.9", "6.6.6.6, 1.2.3.4") == "1.2.3.4"
    assert client_ip("10.0.0.9", "") == "10.0.0.9"


def test_server_settings_are_read_afresh_and_agree_with_the_app_settings(fresh_settings: Path, monkeypatch):
    """How the server starts is read on every call (the launcher hands values on through the
    environment); the variables it shares with the app's settings read the same."""
    from discount_deals.config.settings import server_settings

    for name in ("GRANIAN_WORKERS", "HOST", "PORT", "DD_SHUTDOWN_TIMEOUT", "DD_ACCESS_LOG", "DD_ALLOW_FAKE_PAYMENTS"):
        monkeypatch.delenv(name, raising=False)
    defaults = server_settings()
    assert (defaults.workers, defaults.host, defaults.port) == ("", "127.0.0.1", "3000")  # this machine only
    assert (defaults.shutdown_timeout, defaults.access_log, defaults.allow_fake_payments) == (30, True, False)

    monkeypatch.setenv("DD_PUBLIC_URL", " https://shop.example.com/ ")
    monkeypatch.setenv("REFLEX_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("GRANIAN_WORKERS", " 3 ")
    monkeypatch.setenv("DD_SHUTDOWN_TIMEOUT", "soon")  # not a number: the default, as before
    monkeypatch.setenv("DD_ACCESS_LOG", "off")
    monkeypatch.setenv("DD_ALLOW_FAKE_PAYMENTS", "yes")
    monkeypatch.setenv("DD_SECRET_KEY", "a-shared-secret-of-enough-length-0123456789")
    server = server_settings()  # no cache to clear
    assert (server.public_url, server.workers, server.shutdown_timeout) == ("https://shop.example.com", "3", 30)
    assert (server.access_log, server.allow_fake_payments) == (False, True)
    settings = get_settings()
    assert (settings.public_url, settings.redis_url) == (server.public_url, server.redis_url)
    assert settings.secret_key == server.secret_key and server.secret_key not in repr(server)
