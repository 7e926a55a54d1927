"""Issue 35 item 5: the account phone is parsed once when written and stored E.164; its readers
take it as stored (no parsing), and revision 35p converts the numbers stored before."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

from discount_deals.db import create_db_engine
from discount_deals.server.migrations import alembic_config
from discount_deals.services import phones

from .test_migrations import _insert, _upgrade

GHANAIAN_SPELLINGS = ["0241234567", "024 123 4567", "+233241234567", "233241234567", "+233 24 123 4567",
                      "(024) 123-4567"]


@pytest.mark.parametrize("typed", GHANAIAN_SPELLINGS)
def test_every_usual_spelling_of_a_ghanaian_number_is_one_e164(typed):
    assert phones.parse_account_phone(typed) == "+233241234567"


@pytest.mark.parametrize("typed, stored", [("030 221 2345", "+233302212345"), ("+44 7911 123456", "+447911123456"),
                                           ("+1 202 555 0143", "+12025550143"), ("0044 7911 123456", "+447911123456")])
def test_a_landline_and_other_countries_numbers_are_stored_e164(typed, stored):
    assert phones.parse_account_phone(typed) == stored


@pytest.mark.parametrize("typed", ["call me", "1234567", "0000000000", "+233 024 123 4567", "2330241234567",
                                   "+44 7700 900123", "", "   ", None, 241234567, "0" * 41])
def test_what_is_not_a_valid_number_is_refused(typed):
    assert phones.parse_account_phone(typed) is None


def test_readers_classify_the_stored_form_without_parsing():
    assert phones.ghanaian_number("+233302212345") == "+233302212345"
    assert phones.mobile_number("+233302212345") is None  # a landline: no texts
    assert phones.mobile_number("+233241234567") == "+233241234567"
    for stored in ("0241234567", "024 123 4567", "+447911123456", "", None, "+23324123456x"):
        assert phones.ghanaian_number(stored) is None and phones.mobile_number(stored) is None


def test_the_mobile_prefixes_pick_exactly_the_numbers_libphonenumber_calls_mobile():
    """mobile_number trusts the prefix of a number parsed when written: over every valid Ghanaian
    number (a sample per two-digit prefix) it agrees with libphonenumber's own parse_mobile."""
    rng = random.Random(35)
    checked = 0
    for prefix in range(10, 100):
        for _ in range(40):
            stored = phones.parse_phone(f"+233{prefix}{rng.randrange(10**7):07d}")
            if stored is not None:
                checked += 1
                assert phones.mobile_number(stored) == phones.parse_mobile(stored), stored
    assert checked > 500  # every mobile range and the landlines among them


def test_the_api_shows_a_ghanaian_number_the_way_it_is_typed():
    assert phones.account_phone_text("+233241234567") == "0241234567"
    assert phones.account_phone_text("+447911123456") == "+447911123456"
    assert phones.account_phone_text("call me maybe") == "call me maybe"  # an old one the migration left
    assert phones.account_phone_text("") == phones.account_phone_text(None) == ""


# --- revision 35p_account_phones_e164 -------------------------------------------------------------------

STORED_BEFORE = {
    "u-plain": ("0241234567", "+233241234567"),
    "u-spaced": ("024 123 4567", "+233241234567"),
    "u-e164": ("+233241234567", "+233241234567"),
    "u-no-plus": ("233241234567", "+233241234567"),
    "u-landline": ("030 221 2345", "+233302212345"),
    "u-abroad": ("+44 7911 123456", "+447911123456"),
    "u-junk": ("1234567", "1234567"),
    "u-trunk-zero": ("+233 024 123 4567", "+233 024 123 4567"),
    "u-none": ("", ""),
}


def test_the_migration_converts_what_it_can_and_reports_the_rest(tmp_path: Path, caplog):
    url = f"sqlite:///{tmp_path / 'phones.db'}"
    _upgrade(url, "34r_product_reviews")
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            for user_id, (before, _after) in STORED_BEFORE.items():
                _insert(connection, "user", id=user_id, email=f"{user_id}@example.com", username=user_id,
                        phonenumber=before)
        with caplog.at_level(logging.INFO, logger="alembic"):
            _upgrade(url)
        with engine.connect() as connection:
            stored = dict(connection.execute(text('SELECT id, phonenumber FROM "user"')).all())
            indexes = {index["name"] for index in inspect(connection).get_indexes("user")}
    finally:
        engine.dispose()
    assert stored == {user_id: after for user_id, (_before, after) in STORED_BEFORE.items()}
    assert "ix_user_phonenumber" in indexes
    lines = [r.getMessage() for r in caplog.records if r.name == "alembic.35p_account_phones_e164"]
    assert sorted(line for line in lines if line.startswith("user ")) == [
        "user u-junk: phone number '1234567' is not a valid number; left as it is",
        "user u-trunk-zero: phone number '+233 024 123 4567' is not a valid number; left as it is",
    ]
    assert lines[-1] == "account phones: 6 of 8 stored as E.164, 2 left as they were"


def test_the_migration_goes_down_keeping_the_numbers(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'phones-down.db'}"
    _upgrade(url)
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            _insert(connection, "user", id="u1", email="u1@example.com", username="u1", phonenumber="+233241234567")
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "34r_product_reviews")
        with engine.connect() as connection:
            assert "ix_user_phonenumber" not in {i["name"] for i in inspect(connection).get_indexes("user")}
            assert connection.execute(text('SELECT phonenumber FROM "user"')).scalar_one() == "+233241234567"
    finally:
        engine.dispose()
