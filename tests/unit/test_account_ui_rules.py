"""Small rules of the account and orders screens that need no browser."""

from __future__ import annotations

import pytest

from discount_deals.services import ServiceError
from discount_deals.state.account.auth import safe_redirect_target
from discount_deals.state.account.order_views import is_completed, items_text, status_label
from discount_deals.state.actions import error_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/profile", "/profile"),
        ("/orders/abc", "/orders/abc"),
        ("/products?brand=melcom", "/products?brand=melcom"),
        ("", ""),
        (None, ""),
        ("profile", ""),
        ("https://evil.example/", ""),
        ("//evil.example/", ""),
        ("/\\evil.example", ""),
        ("/\nx", ""),
        ("/login", ""),
        ("/login?redirectTo=/x", ""),
        ("/register/", ""),
    ],
)
def test_only_same_site_paths_are_followed_after_login(raw, expected):
    assert safe_redirect_target(raw) == expected


@pytest.mark.parametrize(
    ("status", "label", "completed"),
    [
        (None, "Pending", False),
        ("", "Pending", False),
        ("pending", "Pending", False),
        ("processing", "Processing", False),
        ("COMPLETED", "Completed", True),
        ("completed", "Completed", True),
        ("cancelled", "Cancelled", False),
    ],
)
def test_order_status_badge_and_filter(status, label, completed):
    assert status_label(status) == label
    assert is_completed(status) is completed


def test_item_count_text():
    assert [items_text(n) for n in (0, 1, 2)] == ["0 items", "1 item", "2 items"]


def test_service_errors_as_one_line():
    assert error_text(ServiceError("Boom")) == "Boom"
    failed = ServiceError(
        "x", fields={"email": ["A user with this email already exists."], "profile.website": ["Enter a valid URL."]}
    )
    assert error_text(failed) == "email: A user with this email already exists.; profile.website: Enter a valid URL."
