"""Fixtures of the API tests beyond the shared ones (tests/conftest.py)."""

import pytest

from ..builders.messaging import mail_servers, messaging  # noqa: F401  (fixtures: the message tests)
from ..support.paystack import serve


@pytest.fixture
def paystack(monkeypatch):
    """A Paystack-shaped server on a free port, with the settings that send the shop's payments
    (and refunds) to it."""
    yield from serve(monkeypatch)
