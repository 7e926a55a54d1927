"""Fixtures of the API tests beyond the shared ones (tests/conftest.py)."""

from .messaging_helpers import mail_servers, messaging  # noqa: F401  (fixtures: the message tests)
