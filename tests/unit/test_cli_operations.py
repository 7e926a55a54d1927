"""Operator commands as real subprocesses: the database line, config errors, migrate, backup (issue 12)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from sqlmodel import func, select

from discount_deals.db import session_scope
from discount_deals.models import User
from discount_deals.config.settings import get_settings, redact_url

from ..conftest import ROOT


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "discount_deals", *args],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )


def test_every_command_names_its_database_with_the_password_hidden(clean_db):
    result = cli("has-products")
    assert f"Database: {redact_url(get_settings().database_url)}" in result.stdout.splitlines()[0]
    hidden = cli("has-products", REFLEX_DB_URL="postgres://shop:s3cret@127.0.0.1:1/shop")
    assert hidden.stdout.splitlines()[0] == "Database: postgresql+psycopg://shop:***@127.0.0.1:1/shop"
    assert "s3cret" not in hidden.stdout + hidden.stderr


def test_a_bad_database_url_is_one_line_and_status_2():
    for url in ("mysql://u:p@db/shop", "not a url"):
        result = cli("migrate", REFLEX_DB_URL=url)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1
        assert result.stderr.startswith("error: REFLEX_DB_URL")
        assert "Traceback" not in result.stderr


def test_check_config_lists_every_problem_then_exits_2(tmp_path):
    result = cli(
        "check-config",
        REFLEX_DB_URL=f"sqlite:///{tmp_path / 'shop.db'}",
        REFLEX_REDIS_URL="redis://127.0.0.1:1/0",
        GRANIAN_WORKERS="abc",
        DD_PUBLIC_URL="shop.example.com",
        DD_PAGE_SIZE="ten",
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith("error: ") for line in lines)
    text = result.stderr
    assert "DD_PAGE_SIZE must be an integer" in text
    assert "cannot reach Redis at redis://127.0.0.1:1/0" in text
    assert "GRANIAN_WORKERS must be a whole number" in text
    assert "DD_PUBLIC_URL must be the shop's address" in text
    assert "Traceback" not in text


def test_check_config_passes_for_the_embedded_default(tmp_path):
    # DD_ALLOWED_HOSTS as unset (the API tests set "testserver", which is not this machine).
    result = cli("check-config", REFLEX_DB_URL=f"sqlite:///{tmp_path / 'shop.db'}", DD_ALLOWED_HOSTS="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("Configuration OK.")
    assert "Workers: 1" in result.stdout


def test_migrate_says_up_to_date_only_when_it_was(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    first = cli("migrate", REFLEX_DB_URL=url)
    assert first.returncode == 0, first.stderr
    assert "Database created and migrated to revision" in first.stdout
    second = cli("migrate", REFLEX_DB_URL=url)
    assert "Database is up to date (revision" in second.stdout


def test_backup_copies_the_database_while_it_is_open(make_user, tmp_path):
    make_user(email="kept@example.com")
    target = tmp_path / "backup.db"
    result = cli("backup", str(target))
    assert result.returncode == 0, result.stderr
    assert target.stat().st_size > 0
    if get_settings().is_sqlite:
        with sqlite3.connect(target) as copy:
            assert copy.execute("SELECT email FROM user").fetchall() == [("kept@example.com",)]
    with session_scope() as session:
        assert session.exec(select(func.count()).select_from(User)).one() == 1  # the original is untouched
    again = cli("backup", str(target))
    assert again.returncode == 1
    assert "already exists" in again.stderr
