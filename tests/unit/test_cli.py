"""The command line, run as a real subprocess against the test database."""

import os
import subprocess
import sys
from collections import Counter

from sqlmodel import func, select

from discount_deals.db import session_scope
from discount_deals.models import Category, Product, User
from discount_deals.services.auth.tokens import verify_password

from ..conftest import ROOT


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "discount_deals", *args],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=120,
    )


def test_create_admin_creates_an_argon2_admin(clean_db):
    result = cli("create-admin", "A@B.co", "--password", "akwaaba-admin-7")
    assert result.returncode == 0, result.stderr
    assert "created" in result.stdout
    with session_scope() as session:
        user = session.exec(select(User).where(User.email == "a@b.co")).one()
        assert user.role == "admin"
        assert user.password_hash.startswith("$argon2id$")
        assert verify_password("akwaaba-admin-7", user.password_hash)


def test_create_admin_promotes_an_existing_user(make_user):
    user = make_user(email="shopper@example.com")
    result = cli("create-admin", "shopper@example.com", "--password", "newpass1")
    assert result.returncode == 0, result.stderr
    assert "promoted" in result.stdout
    with session_scope() as session:
        stored = session.get(User, user.id)
        assert stored.role == "admin"
        assert verify_password("newpass1", stored.password_hash)


def test_create_admin_bad_input_changes_nothing(clean_db):
    for args, message in (
        (("not-an-email", "--password", "akwaaba-admin-7"), "Please enter a valid email"),
        (("x@y.co", "--password", "12345"), "Password must be at least 6 characters"),
    ):
        result = cli("create-admin", *args)
        assert result.returncode != 0
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    with session_scope() as session:
        assert session.exec(select(func.count()).select_from(User)).one() == 0


def test_unknown_command_fails():
    assert cli("no-such-command").returncode != 0


def test_seed_demo_is_idempotent_and_realistic(clean_db):
    first = cli("seed-demo")
    assert first.returncode == 0, first.stderr
    second = cli("seed-demo")
    assert second.returncode == 0
    assert "0 categories and 0 products added" in second.stdout
    with session_scope() as session:
        products = session.exec(select(Product)).all()
        categories = session.exec(select(Category)).all()
    assert len(products) >= 120
    assert len(categories) >= 8
    brands = Counter(p.brand for p in products)
    assert brands["shoprite"] + brands["melcom"] > 0.8 * len(products)
    assert len(brands) > 2
    assert sum(p.is_featured for p in products) >= 8
    assert any(p.stock == 0 for p in products)
    assert any(p.discount_price is None for p in products)
    assert max(p.discount_percent for p in products) == 70
    assert all(p.tags for p in products)
    assert all(0 <= p.rating <= 5 for p in products)
    # Pictures are local files served by the app, never internet URLs.
    from discount_deals.config.settings import get_settings

    for product in products[:5]:
        assert product.image_url.startswith("/api/media/")
        assert (get_settings().media_dir / product.image_url.removeprefix("/api/media/")).is_file()


def test_the_demo_sells_featured_products_discounted_and_in_stock(clean_db):
    """Issue 34 item 7: no featured product at full price or sold out (the original client showed
    "-100 %" for Milo); the only products without a discount or stock are the few kept to show one."""
    from discount_deals.services.demo_catalogue import FEATURED, FULL_PRICE, SOLD_OUT

    assert cli("seed-demo").returncode == 0
    with session_scope() as session:
        products = session.exec(select(Product)).all()
    featured = [p for p in products if p.is_featured]
    assert {p.name for p in featured} == FEATURED
    assert all(p.discount_price is not None and p.discount_price < p.price and p.stock > 0 for p in featured)
    assert {p.name for p in products if p.discount_price is None} == FULL_PRICE
    assert {p.name for p in products if p.stock == 0} == SOLD_OUT
    assert not (FULL_PRICE | SOLD_OUT) & FEATURED


def test_has_products_reports_an_empty_catalogue(clean_db):
    assert cli("has-products").returncode == 3
