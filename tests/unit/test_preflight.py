"""Configuration checked before migrate or build: one clear line per problem (issue 12, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from discount_deals.server import preflight
from discount_deals.config.settings import get_settings, normalize_database_url, redact_url


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("postgres://u:p@db:5432/shop", "postgresql+psycopg://u:p@db:5432/shop"),
        ("postgresql://u:p@db/shop", "postgresql+psycopg://u:p@db/shop"),
        ("postgresql+psycopg://u@db/shop", "postgresql+psycopg://u@db/shop"),
        ("sqlite:////srv/dd.db", "sqlite:////srv/dd.db"),
    ],
)
def test_postgres_urls_map_to_psycopg3(raw, expected):
    assert normalize_database_url(raw) == expected
    url, kind, problems = preflight.check_database_url(raw)
    assert (url, problems) == (expected, [])
    assert kind in ("sqlite", "postgresql")


@pytest.mark.parametrize(
    "raw, says",
    [
        ("not a url", "REFLEX_DB_URL is not a database URL"),
        ("mysql://u:p@db/shop", "unsupported database (mysql)"),
        ("postgresql+psycopg2://u@db/shop", "driver 'psycopg2', which is not installed"),
        ("sqlite://", "must name a SQLite file"),
        ("postgresql://u@db", "has no database name"),
    ],
)
def test_bad_database_urls_are_one_clear_line(raw, says):
    _url, _kind, problems = preflight.check_database_url(raw)
    assert len(problems) == 1
    assert says in problems[0]
    assert "\n" not in problems[0]


def test_passwords_are_hidden():
    assert redact_url("postgresql+psycopg://shop:s3cret@db:5432/shop") == "postgresql+psycopg://shop:***@db:5432/shop"
    assert redact_url("redis://:s3cret@cache:6379/0") == "redis://:***@cache:6379/0"
    assert redact_url("sqlite:////srv/dd.db") == "sqlite:////srv/dd.db"


@pytest.mark.parametrize(
    "raw, ok",
    [
        ("https://shop.example.com", True),
        ("http://127.0.0.1:8080", True),
        ("shop.example.com", False),
        ("https://shop.example.com/store", False),
        ("ftp://shop.example.com", False),
    ],
)
def test_public_url_must_be_an_origin(raw, ok):
    assert (preflight.check_public_url(raw) == []) is ok


def test_redis_url_scheme_is_checked_without_connecting():
    assert preflight.check_redis("redis://127.0.0.1:6379/0", connect=False) == []
    assert "must start with redis://" in preflight.check_redis("http://127.0.0.1:6379", connect=False)[0]


@pytest.fixture
def environment(monkeypatch):
    for name in ("REFLEX_REDIS_URL", "GRANIAN_WORKERS", "DD_INSTANCES", "DD_DB_POOL_SIZE", "DD_PUBLIC_URL",
                 "HOST", "DD_ALLOWED_HOSTS", "DD_TRUSTED_PROXY_HOPS", "DD_ALLOW_FAKE_PAYMENTS", "DD_PAYMENT_PROVIDER",
                 "DD_PASSWORD_HASHING"):
        monkeypatch.delenv(name, raising=False)

    def use(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    yield use
    get_settings.cache_clear()


def test_several_workers_need_redis(environment):
    environment(GRANIAN_WORKERS="3")
    plan = preflight.plan_server(production=False, connect=False)
    assert any("3 workers need REFLEX_REDIS_URL" in p for p in plan.problems)


def test_bad_worker_count(environment):
    environment(GRANIAN_WORKERS="lots")
    plan = preflight.plan_server(production=False, connect=False)
    assert "GRANIAN_WORKERS must be a whole number, got 'lots'" in plan.problems


def test_production_with_redis_needs_a_shared_secret(environment, monkeypatch):
    environment(REFLEX_REDIS_URL="redis://127.0.0.1:6379/0")
    monkeypatch.delenv("DD_SECRET_KEY")
    plan = preflight.plan_server(production=True, connect=False)
    assert any(p.startswith("DD_SECRET_KEY must be set") for p in plan.problems)
    assert not preflight.plan_server(production=False, connect=False).problems  # development: fine
    monkeypatch.setenv("DD_SECRET_KEY", "short")
    assert any("too short" in p for p in preflight.plan_server(production=True, connect=False).problems)


def test_one_worker_without_redis_is_the_default(environment):
    plan = preflight.plan_server(production=True, connect=False)
    assert plan.workers == 1
    assert plan.problems == []


def test_pool_defaults_to_the_connection_budget(environment, monkeypatch):
    environment(REFLEX_REDIS_URL="redis://127.0.0.1:6379/0", GRANIAN_WORKERS="5", DD_INSTANCES="2",
                REFLEX_DB_URL="postgresql://u@db/shop")
    # PostgreSQL with the default max_connections and a Redis that answers.
    monkeypatch.setattr(preflight, "probe_database", lambda url, kind: (100, []))
    monkeypatch.setattr(preflight, "check_redis", lambda url, connect=True: [])
    plan = preflight.plan_server(production=False)
    assert plan.problems == []
    assert plan.pool_size == 8  # 80 % of 100 connections over 5 workers × 2 instances
    environment(DD_DB_POOL_SIZE="30")
    plan = preflight.plan_server(production=False)
    assert any("30 × 5 workers × 2 instances = 300 connections" in p for p in plan.problems)


def test_sqlite_cannot_serve_several_hosts(environment):
    environment(DD_INSTANCES="2")
    plan = preflight.plan_server(production=False, connect=False)
    if get_settings().is_sqlite:
        assert any("cannot be shared by several hosts" in p for p in plan.problems)


def test_a_public_shop_refuses_the_fake_payment_provider(environment, monkeypatch):
    for name in ("DD_PAYMENT_PROVIDER", "DD_ALLOW_FAKE_PAYMENTS"):
        monkeypatch.delenv(name, raising=False)
    environment(DD_PUBLIC_URL="https://shop.example.com")
    problems = preflight.plan_server(production=True, connect=False).problems
    assert any(p.startswith("DD_PAYMENT_PROVIDER is 'fake' for a shop served at https://shop.example.com") for p in problems)
    assert preflight.plan_server(production=False, connect=False).problems == problems  # `make dev` is as exposed
    environment(DD_PUBLIC_URL="https://127.0.0.1:8443")  # this machine only (the smoke test)
    assert not preflight.plan_server(production=True, connect=False).problems
    environment(DD_PUBLIC_URL="https://shop.example.com", DD_ALLOW_FAKE_PAYMENTS="1")
    assert not preflight.plan_server(production=True, connect=False).problems
    environment(DD_ALLOW_FAKE_PAYMENTS="", DD_PAYMENT_PROVIDER="paystack", DD_PAYSTACK_SECRET_KEY="sk_test_x",
                DD_CURRENCY="GHS")
    assert not preflight.plan_server(production=True, connect=False).problems


@pytest.mark.parametrize(("provider", "currency", "refused"),
                         [("paystack", "USD", True), ("paystack", "NGN", True), ("paystack", "GHS", False),
                          ("fake", "USD", False), ("fake", "EUR", False)])
def test_the_provider_must_charge_the_shops_currency(environment, provider, currency, refused):
    environment(DD_PAYMENT_PROVIDER=provider, DD_PAYSTACK_SECRET_KEY="sk_test_x", DD_CURRENCY=currency)
    problems = preflight.plan_server(production=False, connect=False).problems
    assert any(p.startswith(f"DD_CURRENCY is {currency}, which Paystack cannot charge") for p in problems) == refused


def test_the_plan_is_made_from_the_server_settings_it_is_given(environment):
    """preflight reads no environment itself: given settings win over the environment's."""
    from discount_deals.config.settings import replace, server_settings

    environment()
    given = replace(server_settings(), workers="3", instances="2", public_url="https://shop.example.com/x")
    plan = preflight.plan_server(production=False, connect=False, server=given)
    assert (plan.workers, plan.instances, plan.public_url) == (3, 2, "https://shop.example.com/x")
    assert any("3 workers need REFLEX_REDIS_URL" in p for p in plan.problems)
    assert any(p.startswith("DD_PUBLIC_URL must be an origin") for p in plan.problems)
    assert preflight.plan_server(production=False, connect=False).problems == []  # the environment: fine


def _fake_refused(plan: preflight.Plan) -> bool:
    return any(p.startswith("DD_PAYMENT_PROVIDER is 'fake'") for p in plan.problems)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_the_fake_provider_is_fine_on_this_machine_only(environment, host):
    """No settings at all: `make run` listens on 127.0.0.1 (HOST), and so does the default of serve."""
    environment()
    assert not _fake_refused(preflight.plan_server(production=True, connect=False))
    assert not _fake_refused(preflight.plan_server(production=True, connect=False, host=host))


@pytest.mark.parametrize(("setting", "says"), [
    ({"HOST": "0.0.0.0"}, "for a shop listening on 0.0.0.0"),
    ({"HOST": "192.168.1.20"}, "for a shop listening on 192.168.1.20"),
    ({"HOST": "::"}, "for a shop listening on ::"),
    ({"DD_TRUSTED_PROXY_HOPS": "1"}, "for a shop behind a proxy (DD_TRUSTED_PROXY_HOPS=1)"),
    ({"DD_ALLOWED_HOSTS": "192.168.1.20"}, "for a shop answering 192.168.1.20 (DD_ALLOWED_HOSTS)"),
    ({"DD_PUBLIC_URL": "http://192.168.1.20:3000"}, "for a shop served at http://192.168.1.20:3000"),
])
def test_the_fake_provider_is_refused_when_the_shop_answers_beyond_this_machine(environment, setting, says):
    """Issue 32 item 6: each of these let anyone approve any payment, unauthenticated."""
    environment(**setting)
    for production in (True, False):
        problems = preflight.plan_server(production=production, connect=False).problems
        assert any(p.startswith(f"DD_PAYMENT_PROVIDER is 'fake' {says}") for p in problems), problems
    environment(DD_ALLOW_FAKE_PAYMENTS="1")  # a demonstration, said so
    assert not _fake_refused(preflight.plan_server(production=True, connect=False))
    environment(DD_ALLOW_FAKE_PAYMENTS="", DD_PAYMENT_PROVIDER="paystack", DD_PAYSTACK_SECRET_KEY="sk_test_x",
                DD_CURRENCY="GHS")
    assert not _fake_refused(preflight.plan_server(production=True, connect=False))


@pytest.mark.parametrize(("setting", "says"), [
    ({"HOST": "0.0.0.0"}, "for a shop listening on 0.0.0.0 (HOST or --host; 127.0.0.1 is this machine only)"),
    ({"DD_TRUSTED_PROXY_HOPS": "1"}, "for a shop behind a proxy (DD_TRUSTED_PROXY_HOPS=1)"),
    ({"DD_PUBLIC_URL": "https://shop.example.com"}, "for a shop served at https://shop.example.com"),
])
def test_fast_password_hashes_are_for_this_machine_only(environment, setting, says):
    """The test suites' cheap hashes (DD_PASSWORD_HASHING=fast) are never those of a shop others reach."""
    environment(DD_PASSWORD_HASHING="fast", DD_ALLOW_FAKE_PAYMENTS="1")
    assert preflight.plan_server(production=True, connect=False).problems == []  # this machine: fine
    environment(**setting)
    for production in (True, False):
        problems = preflight.plan_server(production=production, connect=False).problems
        assert problems == [f"DD_PASSWORD_HASHING is 'fast' {says}: its password hashes would be cheap to crack. "
                            "Leave DD_PASSWORD_HASHING unset (owasp), or serve on this machine only "
                            "(HOST=127.0.0.1)"]
    environment(DD_PASSWORD_HASHING="OWASP")
    assert preflight.plan_server(production=True, connect=False).problems == []


def test_the_serve_address_decides_not_the_environment(environment):
    """serve --host and check-config --host win over HOST: the browser tests' and benches' servers
    (--host 127.0.0.1, DD_PUBLIC_URL=http://127.0.0.1:PORT) keep the fake provider."""
    environment(HOST="0.0.0.0", DD_PUBLIC_URL="http://127.0.0.1:8123")
    assert not _fake_refused(preflight.plan_server(production=True, connect=False, host="127.0.0.1"))
    environment(HOST="127.0.0.1")
    assert _fake_refused(preflight.plan_server(production=True, connect=False, host="0.0.0.0"))


def test_check_config_refuses_the_fake_provider_on_the_lan(environment):
    from discount_deals.__main__ import build_parser

    environment()
    args = build_parser().parse_args(["check-config", "--host", "0.0.0.0"])
    with pytest.raises(Exception, match="DD_PAYMENT_PROVIDER is 'fake' for a shop listening on 0.0.0.0"):
        args.run(args)
    args = build_parser().parse_args(["check-config"])
    assert args.host == "127.0.0.1"


def test_make_run_listens_on_this_machine_unless_host_says_otherwise():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "\nHOST ?= 127.0.0.1\n" in makefile
    assert "check-config --host $(HOST)" in makefile


@pytest.mark.parametrize("raw, says", [("-5", "DD_CART_REMINDER_MINUTES must be at least 0, got -5"),
                                       ("an hour", "DD_CART_REMINDER_MINUTES must be an integer, got 'an hour'")])
def test_a_bad_cart_reminder_delay_is_one_clear_line(environment, raw, says):
    environment(DD_CART_REMINDER_MINUTES=raw)
    assert says in preflight.plan_server(production=False, connect=False).problems


def test_cart_reminders_wait_an_hour_unless_told_and_zero_turns_them_off(environment):
    assert get_settings().messages.cart_reminder_minutes == 60
    environment(DD_CART_REMINDER_MINUTES="0")
    assert get_settings().messages.cart_reminder_minutes == 0
    assert preflight.plan_server(production=False, connect=False).problems == []
