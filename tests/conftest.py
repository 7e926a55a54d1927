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


# --- factories -----------------------------------------------------------------------------

_counter = {"n": 0}


def _next() -> int:
    _counter["n"] += 1
    return _counter["n"]


@pytest.fixture
def make_user(clean_db) -> Callable[..., models.User]:
    """Create a user (customer by default) with password ``secret123``; extra fields allowed."""
    from discount_deals.services.users import add_user

    def factory(role: str = "customer", password: str = "secret123", **fields) -> models.User:
        n = _next()
        fields.setdefault("email", f"user{n}@example.com")
        fields.setdefault("username", f"user{n}")
        fields.setdefault("first_name", f"First{n}")
        fields.setdefault("last_name", f"Last{n}")
        with session_scope() as db_session:
            return add_user(db_session, password=password, role=models.Role(role), **fields)

    return factory


def auth_headers(user: models.User) -> dict[str, str]:
    from discount_deals.services.auth import create_access_token

    return {"Authorization": f"Bearer {create_access_token(user)}"}


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
def make_category(clean_db) -> Callable[..., models.Category]:
    from discount_deals.services.catalog import slugify

    def factory(name: str | None = None, **fields) -> models.Category:
        name = name or f"Category {_next()}"
        with session_scope() as db_session:
            category = models.Category(name=name, slug=fields.pop("slug", slugify(name)), **fields)
            db_session.add(category)
        return category

    return factory


@pytest.fixture
def make_product(make_category) -> Callable[..., models.Product]:
    """Create a product; ``category`` may be a Category (a new one is made when omitted)."""
    from decimal import Decimal

    from discount_deals.services.catalog import refresh_derived

    def factory(name: str | None = None, price: str = "10.00", discount_price: str | None = None, **fields):
        category = fields.pop("category", None) or make_category()
        product = models.Product(
            name=name or f"Product {_next()}",
            price=Decimal(price),
            discount_price=Decimal(discount_price) if discount_price is not None else None,
            category_id=category.id,
            effective_price=Decimal(price),
            **{"stock": 10, "brand": "shoprite", **fields},
        )
        with session_scope() as db_session:
            db_session.add(refresh_derived(product))
        return product

    return factory


def sqlite_pragma(name: str):
    with get_engine().connect() as connection:
        return connection.execute(text(f"PRAGMA {name}")).scalar()
