"""Fixtures of the API tests beyond the shared ones (tests/conftest.py)."""

from ..builders.messaging import mail_servers, messaging  # noqa: F401  (fixtures: the message tests)
