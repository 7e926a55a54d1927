"""DD_RETURN_DAYS (issue 33, item 4) and the credit notes' own counter prefix, checked by preflight."""

from __future__ import annotations

import pytest

from discount_deals.server import preflight
from discount_deals.config.settings import get_settings


@pytest.fixture
def environment(monkeypatch):
    def set_value(name: str, value: str):
        monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    yield set_value
    monkeypatch.undo()
    get_settings.cache_clear()


def test_returns_are_open_30_days_by_default():
    assert get_settings().returns.days == 30


@pytest.mark.parametrize("value, days", [("14", 14), (" 0 ", 0), ("365", 365), ("", 30)])
def test_the_return_window_is_a_number_of_days(environment, value, days):
    environment("DD_RETURN_DAYS", value)
    assert get_settings().returns.days == days


@pytest.mark.parametrize("name, value", [("DD_RETURN_DAYS", "-1"), ("DD_RETURN_DAYS", "thirty"),
                                         ("DD_RETURN_DAYS", "366"), ("DD_RECEIPT_PREFIX", "cn")])
def test_a_bad_value_is_one_clear_preflight_problem(environment, name, value):
    environment(name, value)
    with pytest.raises(ValueError, match=name):
        get_settings()
    problems = [problem for problem in preflight.plan_server(production=False, connect=False).problems
                if name in problem]
    assert len(problems) == 1, problems
