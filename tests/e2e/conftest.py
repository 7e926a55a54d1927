"""Browser tests: one production server per test run, driven by Playwright in Debian Chromium.

The server (``python -m discount_deals serve``, the production launcher ``make run`` uses) gets
its own folder for its SQLite database and media, migrates and seeds the demo catalogue itself,
and shares the test session's signing secret so tests can mint tokens and prepare data directly
in its database (``live_db``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlmodel import Session

from discount_deals.db import create_db_engine

from ..conftest import ROOT
from ..support import servers
from ..support.browser import chromium_launch_args
from ..support.mail import SmtpServer
from ..support.slow_network import PROFILES, SlowNetwork

pytestmark = pytest.mark.e2e

STARTUP_TIMEOUT_S = 15 * 60
TEST_WRITE_WAIT_MS = 30_000


def _patient_writer(dbapi_connection, _record) -> None:
    dbapi_connection.execute(f"PRAGMA busy_timeout={TEST_WRITE_WAIT_MS}")


@dataclass
class LiveServer:
    url: str  # the shop's public address: the phone network in front of it (see live_server)
    var_dir: Path
    database_url: str
    log_path: Path
    process_group: int = 0  # the launcher's (it starts a session: its PID), workers included
    direct_url: str = ""  # the server itself, with no network in between

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session on the server's own database, committed at the end of the block.

        It takes the write lock at its first statement (``BEGIN IMMEDIATE``) and waits up to
        :data:`TEST_WRITE_WAIT_MS` for it: the test process shares the file with a whole server
        (pages, API, the message worker's sweep every second) on a 2-core machine. A deferred
        transaction that read first and wrote second failed at once ("database is locked") when
        the server had committed in between, since SQLite cannot upgrade a stale WAL snapshot
        and does not wait for it (CI, test_mobile_money, 2026-11-26).
        """
        base = create_db_engine(self.database_url)
        event.listen(base, "connect", _patient_writer)
        engine = base.execution_options(sqlite_begin="IMMEDIATE") if base.dialect.name == "sqlite" else base
        try:
            with Session(engine, expire_on_commit=False) as db_session:
                yield db_session
                db_session.commit()
        finally:
            base.dispose()


def _server_env(var_dir: Path, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REFLEX_DB_URL", None)
    # The API tests' "testserver" host: the live server answers this machine only, as the fake
    # payment provider requires (preflight.reached_from_elsewhere).
    env.pop("DD_ALLOWED_HOSTS", None)
    env.update(
        DD_VAR_DIR=str(var_dir),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        REFLEX_CHECK_LATEST_VERSION="false",
        PYTHONUNBUFFERED="1",
        # The original React client's origin, allowed to call the API (tests/e2e/test_security.py).
        DD_CORS_ORIGINS="http://client.example",
        # The shop's WhatsApp: "Chat with us on WhatsApp" shows (tests/e2e/test_whatsapp.py).
        DD_WHATSAPP_NUMBER="024 123 9999",
    )
    env.setdefault("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/")
    return env


@pytest.fixture(scope="session")
def live_mail() -> Iterator[SmtpServer]:
    """The SMTP server the live server's message worker sends to (tests read its mailbox)."""
    with SmtpServer() as smtp:
        yield smtp


@pytest.fixture(scope="session")
def phone_network() -> Iterator[SlowNetwork]:
    """The network between the browser and the shop: a proxy of ours (tests/support/slow_network),
    with no delay unless a test asks for one (``slow_network``). The shop is built for its
    address, so the pages, the API and the websocket all cross it."""
    with SlowNetwork(servers.free_port(), PROFILES["loopback"]) as network:
        yield network


@pytest.fixture
def slow_network(phone_network: SlowNetwork) -> Iterator[SlowNetwork]:
    """``phone_network`` for one test, which may change its profile; back to no delay after it."""
    yield phone_network
    phone_network.use(PROFILES["loopback"])
    phone_network.go_online()
    phone_network.release()  # a test that failed while the answers were held must not hold the next one's


@pytest.fixture(scope="session")
def live_server(live_mail: SmtpServer, phone_network: SlowNetwork) -> Iterator[LiveServer]:
    var_dir = Path(tempfile.mkdtemp(prefix="dd-live-"))
    port = phone_network.upstream[1]
    env = _server_env(var_dir, port)
    env.update(live_mail.environment(), DD_WORKER_SWEEP_SECONDS="1", DD_PUBLIC_URL=phone_network.url)
    # The log lives with the server's data while it runs (something in a browser run, seen during
    # the dev-server test, removes test-results/ meanwhile) and is copied to test-results/ after.
    log_path = var_dir / "live-server.log"
    log = log_path.open("w")
    process = servers.launch(
        [
            sys.executable, "-m", "discount_deals", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--seed-demo-if-empty",
        ],
        env=env,
        log=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        servers.wait_until_serving(
            process, lambda: servers.answers_ok(f"{url}/ping") and servers.answers_ok(f"{url}/"),
            timeout=STARTUP_TIMEOUT_S, pause=1, exited=lambda code: f"the server exited with {code}; see {log_path}",
            late=f"the server did not start within {STARTUP_TIMEOUT_S} s; see {log_path}")
        yield LiveServer(url=phone_network.url, var_dir=var_dir,
                         database_url=f"sqlite:///{var_dir / 'discount_deals.db'}", log_path=log_path,
                         process_group=process.pid, direct_url=url)
    finally:
        servers.stop_process_group(process)
        log.close()
        results = ROOT / "test-results"
        results.mkdir(exist_ok=True)
        shutil.copy(log_path, results / "live-server.log")
        shutil.rmtree(var_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def base_url(live_server: LiveServer) -> str:
    return live_server.url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return chromium_launch_args(browser_type_launch_args)


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900}}


# --- data in the server's database ----------------------------------------------------------

_seq = {"n": 0}


def unique(prefix: str) -> str:
    _seq["n"] += 1
    return f"{prefix} {os.getpid()}-{_seq['n']}"


@pytest.fixture(scope="session")
def e2e_category(live_server: LiveServer):
    """A category of its own for products the browser tests create (kept out of the demo brands)."""
    from discount_deals.models import Category

    with live_server.session() as session:
        category = Category(name="E2E Test Items", slug="e2e-test-items", description="Made by the browser tests")
        session.add(category)
    return category


@pytest.fixture
def live_product(live_server: LiveServer, e2e_category):
    """Create a product in the server's database: live_product(price="25.00", stock=5, ...)."""
    from decimal import Decimal

    from discount_deals.models import Product
    from discount_deals.services.catalog import refresh_derived

    def factory(name: str | None = None, price: str = "10.00", discount_price: str | None = None, **fields):
        product = Product(
            name=name or unique("E2E Product"),
            description=fields.pop("description", "A product made by a browser test"),
            price=Decimal(price),
            discount_price=Decimal(discount_price) if discount_price else None,
            effective_price=Decimal(price),
            category_id=e2e_category.id,
            image_url="/placeholder.webp",
            **{"stock": 10, "brand": "e2etest", "rating": 4.0, **fields},
        )
        with live_server.session() as session:
            session.add(refresh_derived(product))
        return product

    return factory


@pytest.fixture
def live_user(live_server: LiveServer):
    """Create a user in the server's database: live_user(role="customer") -> (user, password)."""
    from discount_deals.models import Role
    from discount_deals.services.users import add_user

    def factory(role: str = "customer", password: str = "secret123", **fields):
        name = unique("shopper").replace(" ", "").replace("-", "")
        fields.setdefault("email", f"{name}@example.com")
        fields.setdefault("username", name)
        fields.setdefault("first_name", "Ama")
        fields.setdefault("last_name", "Mensah")
        fields.setdefault("phonenumber", "024 555 0100")  # checkout prefills the rider's number from it
        with live_server.session() as session:
            user = add_user(session, password=password, role=Role(role), **fields)
        return user, password

    return factory


@pytest.fixture
def shopper(live_user):
    """live_user with every field the profile form requires (phone number, date of birth, gender)."""
    from datetime import date

    def factory(**fields):
        fields.setdefault("phonenumber", "+233 24 123 4567")
        fields.setdefault("date_of_birth", date(1992, 3, 14))
        fields.setdefault("gender", "female")
        return live_user(**fields)

    return factory


def sign_in(page, user) -> None:
    """Put a fresh token pair in the browser's storage, as a completed login would."""
    from discount_deals.services.auth.tokens import issue_tokens

    tokens = issue_tokens(user)
    page.goto("/no-such-page-for-storage")
    page.evaluate(
        "([a, r]) => { localStorage.setItem('accessToken', a); localStorage.setItem('refreshToken', r); }",
        [tokens.access, tokens.refresh],
    )
