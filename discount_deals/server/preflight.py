"""Configuration checked before anything runs (``serve``, ``check-config``; the database part for every CLI command).

Each problem is one line that says what is wrong and what to do; the caller prints them all and
exits with status 2, without a traceback. Nothing here writes to the database or reads the
environment: the values come from ``settings.server_settings()`` and ``settings.get_settings()``
(whose models' validation errors are listed here, every bad value at once).

What is checked: every setting parses; the database URL (``postgres://`` and ``postgresql://``
are mapped to psycopg 3; other databases are refused) and that it answers; the Redis URL and
that Redis answers; the signing secret in production with several workers or hosts; the worker
count; the connection budget (workers × pool × instances ≤ 80 % of PostgreSQL's
``max_connections``, the default pool is derived from it); the public URL; that a shop answering
anything but this machine (its listening address, public URL, allowed hosts, a proxy) does not
take payments through the fake provider nor keep texts in files (``DD_SMS_PROVIDER=file``); that
the payment provider can charge the shop's currency (``DD_CURRENCY``).
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..config.settings import (
    ServerSettings,
    Settings,
    SettingsError,
    get_settings,
    normalize_database_url,
    redact_url,
    server_settings,
)
from ..config.settings_messages import sender_problems

MAX_WORKERS = 32
MIN_SECRET_LENGTH = 32
CONNECTION_SHARE = 0.8  # of PostgreSQL's max_connections, for all app processes together
MAX_DEFAULT_POOL = 20
MIN_POOL = 2
CHECK_TIMEOUT_S = 5


@dataclass
class Plan:
    """What a server start will use, and what stands in its way."""

    database_url: str = ""
    database_kind: str = ""
    redis_url: str = ""
    workers: int = 1
    instances: int = 1
    pool_size: int = 0
    max_connections: int | None = None
    public_url: str = ""
    problems: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        lines = [f"Database: {redact_url(self.database_url)}"]
        lines.append(f"Redis: {redact_url(self.redis_url)}" if self.redis_url else "Redis: not configured (one worker)")
        budget = f", PostgreSQL max_connections {self.max_connections}" if self.max_connections else ""
        lines.append(f"Workers: {self.workers} (database pool {self.pool_size} per worker{budget})")
        lines.append(f"Public URL: {self.public_url}" if self.public_url else "Public URL: not set (URLs follow the request)")
        return lines


def whole_number(name: str, raw: str, problems: list[str], *, minimum: int, maximum: int | None = None) -> int | None:
    """``raw`` (the setting ``name`` as written) as a number in range, or None with a problem added
    when it is not; None without one when it is not set."""
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        problems.append(f"{name} must be a whole number, got {raw!r}")
        return None
    if value < minimum or (maximum is not None and value > maximum):
        span = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
        problems.append(f"{name} must be {span}, got {value}")
        return None
    return value


def check_database_url(raw: str) -> tuple[str, str, list[str]]:
    """(normalised URL, "sqlite" | "postgresql", problems) — the URL's form only, no connection."""
    url = normalize_database_url(raw)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return url, "", [
            f"REFLEX_DB_URL is not a database URL ({redact_url(raw)}): use sqlite:///path/to/file.db "
            "or postgresql://user:password@host:5432/dbname"
        ]
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend == "sqlite":
        if driver not in ("pysqlite", "sqlite"):
            return url, "", [f"REFLEX_DB_URL uses the SQLite driver {driver!r}, which is not supported: use sqlite:///path"]
        if not parsed.database or parsed.database == ":memory:":
            return url, "", ["REFLEX_DB_URL must name a SQLite file (sqlite:///path/to/file.db), not an in-memory database"]
        return url, "sqlite", []
    if backend == "postgresql":
        if driver != "psycopg":
            return url, "", [
                f"REFLEX_DB_URL asks for the PostgreSQL driver {driver!r}, which is not installed: "
                "write postgresql://... (psycopg 3 is used)"
            ]
        if not parsed.database:
            return url, "", ["REFLEX_DB_URL has no database name: postgresql://user:password@host:5432/dbname"]
        return url, "postgresql", []
    return url, "", [
        f"REFLEX_DB_URL names an unsupported database ({backend}): use SQLite (sqlite:///path/to/file.db) "
        "or PostgreSQL (postgresql://user:password@host:5432/dbname)"
    ]


def probe_database(url: str, kind: str) -> tuple[int | None, list[str]]:
    """Connect once (bounded wait). Returns PostgreSQL's max_connections (None for SQLite) and problems."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.pool import NullPool

    parsed = make_url(url)
    if kind == "sqlite":
        folder = Path(parsed.database).expanduser().resolve().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return None, [f"cannot create the folder {folder} for the SQLite database: {exc.strerror}"]
        if not os.access(folder, os.W_OK):
            return None, [f"the SQLite database folder {folder} is not writable"]
        return None, []
    where = f"{parsed.host or parsed.query.get('host') or 'local socket'}:{parsed.port or 5432}/{parsed.database}"
    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": CHECK_TIMEOUT_S})
    try:
        with engine.connect() as connection:
            max_connections = int(connection.execute(text("SHOW max_connections")).scalar_one())
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", exc) or exc).strip().splitlines()
        return None, [f"cannot connect to PostgreSQL at {where}: {reason[0] if reason else type(exc).__name__}"]
    finally:
        engine.dispose()
    return max_connections, []


def check_redis(url: str, *, connect: bool = True) -> list[str]:
    """The Redis URL parses and (``connect``) Redis answers a PING within a few seconds."""
    if not url:
        return []
    scheme = urlsplit(url).scheme
    if scheme not in ("redis", "rediss", "unix"):
        return [f"REFLEX_REDIS_URL must start with redis://, rediss:// or unix:// (got {redact_url(url)})"]
    import redis
    from redis.exceptions import RedisError

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S)
    except (ValueError, TypeError) as exc:
        return [f"REFLEX_REDIS_URL is not a valid Redis URL ({redact_url(url)}): {exc}"]
    if not connect:
        return []
    try:
        client.ping()
    except RedisError as exc:
        return [f"cannot reach Redis at {redact_url(url)}: {str(exc).strip() or type(exc).__name__}"]
    finally:
        client.close()
    return []


def check_public_url(raw: str) -> list[str]:
    if not raw:
        return []
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return [f"DD_PUBLIC_URL must be the shop's address such as https://shop.example.com (got {raw!r})"]
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return [f"DD_PUBLIC_URL must be an origin without path, query or credentials, such as https://shop.example.com (got {raw!r})"]
    return []


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 in brackets or not) is this machine only."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def reached_from_elsewhere(*, listen_host: str, public_url: str, allowed_hosts: tuple[str, ...] = (),
                           trusted_proxy_hops: int = 0) -> str:
    """Why the shop answers more than this machine, in words that finish "a shop ...", or "" when
    it answers loopback only: it listens on another address (``HOST``, ``--host``), is served at a
    public URL, answers other host names (``DD_ALLOWED_HOSTS``) or sits behind a proxy
    (``DD_TRUSTED_PROXY_HOPS``). Development tools that act without a login (the fake payment
    provider, the file SMS outbox) are refused for such a shop."""
    public = urlsplit(public_url).hostname if public_url else None
    if public and not is_loopback(public):
        return f"served at {public_url}"
    if listen_host and not is_loopback(listen_host):
        return f"listening on {listen_host} (HOST or --host; 127.0.0.1 is this machine only)"
    others = [host for host in allowed_hosts if not is_loopback(host)]
    if others:
        return f"answering {others[0]} (DD_ALLOWED_HOSTS)"
    if trusted_proxy_hops > 0:
        return f"behind a proxy (DD_TRUSTED_PROXY_HOPS={trusted_proxy_hops})"
    return ""


@dataclass(frozen=True)
class MachineOnly:
    """A setting's value that acts without a login or keeps secrets weak: fine on this machine,
    refused for a shop answering elsewhere (``reached_as``, from :func:`reached_from_elsewhere`)."""

    setting: str
    value: str
    harm: str  # what anyone who reaches the shop could do, or what would go wrong
    remedy: str


MACHINE_ONLY = (
    # The fake provider lets anyone approve any mobile-money payment on our test page.
    MachineOnly("DD_PAYMENT_PROVIDER", "fake", "anyone who reaches it could approve any payment",
                "Set DD_PAYMENT_PROVIDER=paystack with DD_PAYSTACK_SECRET_KEY, serve on this machine only "
                "(HOST=127.0.0.1), or DD_ALLOW_FAKE_PAYMENTS=1 for a demonstration"),
    # The file provider keeps texts (one-time codes included) on this machine instead of sending them.
    MachineOnly("DD_SMS_PROVIDER", "file", "texts would be written to DD_VAR_DIR/outbox/ instead of sent",
                "Set DD_SMS_PROVIDER=hubtel with DD_HUBTEL_CLIENT_ID and DD_HUBTEL_CLIENT_SECRET, or serve on "
                "this machine only (HOST=127.0.0.1)"),
    # ``fast`` password hashes are for test suites.
    MachineOnly("DD_PASSWORD_HASHING", "fast", "its password hashes would be cheap to crack",
                "Leave DD_PASSWORD_HASHING unset (owasp), or serve on this machine only (HOST=127.0.0.1)"),
)


def check_machine_only(values: dict[str, str], reached_as: str) -> list[str]:
    """One problem for each :data:`MACHINE_ONLY` value that ``values`` (setting name: value) holds
    for a shop answering elsewhere."""
    if not reached_as:
        return []
    return [f"{rule.setting} is '{rule.value}' for a shop {reached_as}: {rule.harm}. {rule.remedy}"
            for rule in MACHINE_ONLY if values.get(rule.setting) == rule.value]


def check_currency(provider: str, currency: str) -> list[str]:
    """The provider must be able to charge the shop's currency: Paystack charges Ghanaian mobile
    money in cedis only (the fake provider charges anything: no money moves)."""
    from ..services.payments.paystack import MOBILE_MONEY_CURRENCIES

    if provider != "paystack" or currency in MOBILE_MONEY_CURRENCIES:
        return []
    return [
        f"DD_CURRENCY is {currency}, which Paystack cannot charge for mobile money (MTN MoMo, Telecel Cash, "
        f"AirtelTigo Money): set DD_CURRENCY={MOBILE_MONEY_CURRENCIES[0]}"
    ]


def check_shared_secret(secret: str) -> list[str]:
    """Several workers or hosts must all sign tokens with one secret, given in the environment."""
    if not secret:
        return [
            "DD_SECRET_KEY must be set when several workers or hosts serve the shop (Redis, GRANIAN_WORKERS > 1 "
            "or DD_INSTANCES > 1): every host must sign tokens with the same secret, e.g. "
            "DD_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')"
        ]
    if len(secret) < MIN_SECRET_LENGTH:
        return [f"DD_SECRET_KEY is too short: use at least {MIN_SECRET_LENGTH} random characters"]
    return []


def default_workers(redis_url: str) -> int:
    """One worker without Redis (sessions live in the process); with Redis one per core, at most 4."""
    return 1 if not redis_url else max(1, min(os.cpu_count() or 1, 4))


def plan_server(
    *, production: bool, workers: int | None = None, connect: bool = True, server: ServerSettings | None = None,
    host: str | None = None,
) -> Plan:
    """Check the configuration for a server start. ``workers`` overrides ``GRANIAN_WORKERS`` and
    ``host`` (the address it listens on) ``HOST``; ``server`` is the environment as it is now
    unless given (:func:`settings.server_settings`).

    Problems are listed in a fixed order: the app's settings, the database URL, Redis, workers
    and instances, the public URL and payments, the secret, the connection pool."""
    server = server if server is not None else server_settings()
    plan = Plan()
    try:
        settings: Settings | None = get_settings()
    except SettingsError as exc:  # the models' validation errors: one sentence per bad value, all of them
        plan.problems += exc.problems
        settings = None
    except (ValueError, RuntimeError, OSError) as exc:  # the secret file
        plan.problems.append(str(exc))
        settings = None
    _plan_database_url(plan, server.database_url, settings)
    plan.redis_url = server.redis_url
    plan.problems += check_redis(plan.redis_url, connect=connect)
    _plan_processes(plan, server, workers)
    plan.public_url = server.public_url
    plan.problems += check_public_url(plan.public_url)
    if settings is not None:
        plan.problems += check_currency(settings.checkout.payment_provider, settings.currency.code)
        plan.problems += sender_problems(settings.messages)  # email and SMS (settings_messages.py)
    if settings is not None:  # development too: `make dev` on a LAN address is as exposed
        plan.problems += _development_tools_problems(settings, server, plan.public_url, host)
    if production and (plan.workers > 1 or plan.instances > 1 or plan.redis_url):
        plan.problems += check_shared_secret(server.secret_key)
    explicit_pool = whole_number("DD_DB_POOL_SIZE", server.db_pool_size, plan.problems, minimum=1, maximum=1000)
    if connect and plan.database_kind and not any(p.startswith("REFLEX_DB_URL") for p in plan.problems):
        plan.max_connections, db_problems = probe_database(plan.database_url, plan.database_kind)
        plan.problems += db_problems
    _plan_pool(plan, explicit_pool)
    return plan


def _development_tools_problems(settings: Settings, server: ServerSettings, public_url: str,
                                host: str | None) -> list[str]:
    """The fake payment provider, the file SMS outbox and fast password hashes, for a shop that
    answers beyond this machine."""
    reached_as = reached_from_elsewhere(
        listen_host=host if host is not None else server.host, public_url=public_url,
        allowed_hosts=settings.security.allowed_hosts, trusted_proxy_hops=settings.trusted_proxy_hops,
    )
    return check_machine_only({
        # DD_ALLOW_FAKE_PAYMENTS=1 lets a demonstration shop take the fake provider anywhere.
        "DD_PAYMENT_PROVIDER": "" if server.allow_fake_payments else settings.checkout.payment_provider,
        "DD_SMS_PROVIDER": settings.messages.sms_provider,
        "DD_PASSWORD_HASHING": settings.security.password_hashing,
    }, reached_as)


def _plan_database_url(plan: Plan, raw_url: str, settings: Settings | None) -> None:
    """The URL as written, checked; else the settings' default (the SQLite file under DD_VAR_DIR)."""
    if raw_url:
        plan.database_url, plan.database_kind, url_problems = check_database_url(raw_url)
        plan.problems += url_problems
    elif settings is not None:
        plan.database_url, plan.database_kind = settings.database_url, "sqlite"


def _plan_processes(plan: Plan, server: ServerSettings, workers: int | None) -> None:
    """Workers per instance (``--workers``, else ``GRANIAN_WORKERS``, else the default) and instances."""
    problems = plan.problems
    env_workers = whole_number("GRANIAN_WORKERS", server.workers, problems, minimum=1, maximum=MAX_WORKERS)
    plan.workers = workers or env_workers or default_workers(plan.redis_url)
    if not 1 <= plan.workers <= MAX_WORKERS:
        problems.append(f"the worker count must be from 1 to {MAX_WORKERS}, got {plan.workers}")
    if plan.workers > 1 and not plan.redis_url:
        problems.append(
            f"{plan.workers} workers need REFLEX_REDIS_URL: without Redis each worker keeps its own sessions "
            "(set REFLEX_REDIS_URL or use one worker)"
        )
    plan.instances = whole_number("DD_INSTANCES", server.instances, problems, minimum=1, maximum=1000) or 1


def _plan_pool(plan: Plan, explicit_pool: int | None) -> None:
    """Connections per worker: given, or shared out of PostgreSQL's budget; checked against it."""
    processes = plan.workers * plan.instances
    if plan.database_kind == "sqlite":
        plan.pool_size = explicit_pool or 40
        if plan.instances > 1:
            plan.problems.append("a SQLite file cannot be shared by several hosts (DD_INSTANCES > 1): use PostgreSQL")
    elif plan.max_connections:
        budget = int(plan.max_connections * CONNECTION_SHARE)
        if explicit_pool:
            plan.pool_size = explicit_pool
            if explicit_pool * processes > budget:
                plan.problems.append(
                    f"DD_DB_POOL_SIZE={explicit_pool} × {plan.workers} workers × {plan.instances} instances = "
                    f"{explicit_pool * processes} connections, over 80 % of PostgreSQL's max_connections "
                    f"({plan.max_connections}): lower DD_DB_POOL_SIZE or the workers"
                )
        else:
            plan.pool_size = min(MAX_DEFAULT_POOL, budget // processes)
            if plan.pool_size < MIN_POOL:
                plan.problems.append(
                    f"{plan.workers} workers × {plan.instances} instances leave fewer than {MIN_POOL} connections each "
                    f"within 80 % of PostgreSQL's max_connections ({plan.max_connections}): use fewer workers "
                    "or raise max_connections"
                )
    else:
        plan.pool_size = explicit_pool or 10
