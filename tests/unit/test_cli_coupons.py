"""``python -m discount_deals create-coupon``, run as a real subprocess against the test database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals.db import session_scope
from discount_deals.models import Coupon

from .test_cli import cli


def coupons() -> list[Coupon]:
    with session_scope() as session:
        return list(session.exec(select(Coupon).order_by(Coupon.code)).all())


def test_a_percent_coupon(clean_db):
    result = cli("create-coupon", "save10", "--percent", "10")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "Coupon SAVE10 created: 10% off."  # after the "Database:" line
    [coupon] = coupons()
    assert (coupon.code, coupon.kind, coupon.value, coupon.active, coupon.expires_at) == (
        "SAVE10", "percent", Decimal("10.00"), True, None,
    )


def test_a_fixed_amount_with_an_expiry_day_and_inactive(clean_db):
    last_day = (datetime.now(UTC) + timedelta(days=30)).date()
    result = cli("create-coupon", "FIVE-OFF", "--amount", "5", "--expires", last_day.isoformat(), "--inactive")
    assert result.returncode == 0, result.stderr
    assert "5.00 off" in result.stdout and last_day.isoformat() in result.stdout and "inactive" in result.stdout
    [coupon] = coupons()
    assert (coupon.kind, coupon.value, coupon.active) == ("fixed", Decimal("5.00"), False)
    # Valid through the whole of its last day (UTC).
    assert coupon.expires_at == datetime(last_day.year, last_day.month, last_day.day, tzinfo=UTC) + timedelta(days=1)


@pytest.mark.parametrize(
    "args, message",
    [
        (("OK",), "one of the arguments --percent --amount is required"),
        (("OK", "--percent", "5", "--amount", "5"), "not allowed with"),
        (("OK", "--percent", "0"), "Percentage must be above 0 and at most 100."),
        (("OK", "--percent", "101"), "Percentage must be above 0 and at most 100."),
        (("OK", "--percent", "lots"), "Percentage must be a number."),
        (("OK", "--amount", "-2"), "Amount must be above 0."),
        (("OK", "--amount", "0.001"), "Amount may have at most 2 decimal places."),
        (("OK", "--amount", "5", "--expires", "2020-01-01"), "Expiry date is in the past."),
        (("OK", "--amount", "5", "--expires", "31/12/2030"), "use YYYY-MM-DD"),
        (("BAD CODE!", "--amount", "5"), "Coupon code must be 1 to 64 letters, digits, '-' or '_'."),
    ],
)
def test_bad_input_is_one_line_and_creates_nothing(clean_db, args, message):
    result = cli("create-coupon", *args)
    assert result.returncode != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert coupons() == []


def test_a_code_is_unique_regardless_of_case(clean_db):
    assert cli("create-coupon", "WELCOME", "--percent", "5").returncode == 0
    again = cli("create-coupon", "welcome", "--amount", "3")
    assert again.returncode == 1
    assert again.stderr.strip() == "error: Coupon WELCOME already exists."
    assert [c.kind for c in coupons()] == ["percent"]
