"""Builders per domain that tests call to make rows and API objects, and to read rows back.

accounts (users, tokens, registration payloads, pictures), catalog (categories, products),
shop (addresses, coupons, carts), checkout (stores, orders placed over the API, order rows),
payments (signed webhooks, payment rows), messaging (the real SMTP/Hubtel servers, the outbox),
returns, reviews, rows (counts and re-reads of any table). Builders write through
``session_scope`` on the test database; pytest fixtures in tests/conftest.py wrap the ones most
tests want.
"""

from __future__ import annotations

import itertools

_numbers = itertools.count(1)


def unique_number() -> int:
    """A number no other row of this test session was given (for unique names and e-mails)."""
    return next(_numbers)
