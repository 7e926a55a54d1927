"""Test harness shared by every suite.

The whole test session runs against a real SQLite file in a temporary folder (or the
PostgreSQL database named by ``DD_TEST_DB_URL``), migrated with Alembic once per session.
Service and API tests start each test from empty tables; browser tests use their own
production server (see tests/e2e/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_VAR_DIR = Path(tempfile.mkdtemp(prefix="dd-tests-"))
TEST_SECRET = "test-secret-key-not-for-production-0123456789abcdef"

os.environ["DD_VAR_DIR"] = str(TEST_VAR_DIR)
os.environ["DD_SECRET_KEY"] = TEST_SECRET
# The ASGI test client's own host name (web/hosts.py answers only the hosts it is told).
os.environ["DD_ALLOWED_HOSTS"] = "testserver"
# Cheap password hashes (argon2id at 1 MiB, t=1): the suites create thousands of accounts, and
# OWASP's cost (about 40 ms a hash) was a fifth of the API tests' time. The tests of the hashing
# itself and the production smoke test (tests/prod) use the default.
os.environ.setdefault("DD_PASSWORD_HASHING", "fast")
if os.environ.get("DD_TEST_DB_URL"):
    os.environ["REFLEX_DB_URL"] = os.environ["DD_TEST_DB_URL"]
else:
    os.environ.pop("REFLEX_DB_URL", None)

from sqlalchemy import text  # noqa: E402
from sqlmodel import Session  # noqa: E402

from discount_deals import models  # noqa: E402
from discount_deals.db import dispose_engines, get_engine, session_scope  # noqa: E402
from discount_deals.server.migrations import upgrade_head  # noqa: E402
from discount_deals.config.settings import get_settings  # noqa: E402

from .builders.accounts import auth_headers, new_user  # noqa: E402
from .builders.catalog import new_category, new_product  # noqa: E402
from .builders.shop import new_shopper  # noqa: E402

get_settings.cache_clear()


@pytest.fixture(scope="session", autouse=True)
def _migrated_database() -> Iterator[None]:
    """Apply every migration to the session's empty database, and clean up at the end."""
    upgrade_head()
    yield
    dispose_engines()
    shutil.rmtree(TEST_VAR_DIR, ignore_errors=True)


def truncate_all() -> None:
    """Delete every row of every table (children first)."""
    with get_engine().begin() as connection:
        for table in reversed(models.metadata.sorted_tables):
            connection.execute(table.delete())


@pytest.fixture
def clean_db() -> None:
    truncate_all()


@pytest.fixture
def session(clean_db) -> Iterator[Session]:
    """A session on the emptied test database, committed at the end of the test."""
    with session_scope() as db_session:
        yield db_session


@pytest.fixture(scope="session")
def api_app():
    from discount_deals.web.site import create_app

    return create_app()


@pytest.fixture
def client(api_app, clean_db):
    """An HTTP client over the real ASGI app (the same app Reflex mounts), on emptied tables."""
    from fastapi.testclient import TestClient

    with TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def use_settings(monkeypatch) -> Iterator[Callable[..., None]]:
    """Environment settings for one test: ``use_settings(DD_CURRENCY="GHS")`` (None unsets one)
    clears the settings cache at once; after the test every variable is put back and the cache
    cleared again."""

    def use(**values: str | None) -> None:
        for name, value in values.items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    yield use
    monkeypatch.undo()
    get_settings.cache_clear()


# --- factories: fixtures over tests/builders/ (each empties the tables first) ---------------


@pytest.fixture
def make_user(clean_db) -> Callable[..., models.User]:
    """Create a user (customer by default) with password ``secret123``; extra fields allowed."""
    return new_user


@pytest.fixture
def customer(make_user) -> models.User:
    return make_user()


@pytest.fixture
def admin(make_user) -> models.User:
    return make_user(role="admin")


@pytest.fixture
def customer_headers(customer) -> dict[str, str]:
    return auth_headers(customer)


@pytest.fixture
def admin_headers(admin) -> dict[str, str]:
    return auth_headers(admin)


@pytest.fixture
def shopper(clean_db) -> models.User:
    """A customer with a default delivery address."""
    return new_shopper()


@pytest.fixture
def shopper_headers(shopper) -> dict[str, str]:
    return auth_headers(shopper)


@pytest.fixture
def make_category(clean_db) -> Callable[..., models.Category]:
    return new_category


@pytest.fixture
def make_product(make_category) -> Callable[..., models.Product]:
    """Create a product; ``category`` may be a Category (a new one is made when omitted)."""
    return new_product


def sqlite_pragma(name: str):
    with get_engine().connect() as connection:
        return connection.execute(text(f"PRAGMA {name}")).scalar()
