"""Small rules of the account and orders screens that need no browser."""

from __future__ import annotations

import pytest

from discount_deals.services import ServiceError
from discount_deals.state.account.auth import safe_redirect_target
from discount_deals.state.order_views import is_completed, items_text, status_label
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


# --- the way back (issue 21): login and register keep where the shopper was going --------------


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [
        ({"redirectTo": "/checkout"}, "/checkout"),
        ({"next": "/checkout"}, "/checkout"),
        ({"redirectTo": "/orders/abc", "next": "/cart"}, "/orders/abc"),
        ({"redirectTo": "https://evil.example/", "next": "/cart"}, "/cart"),
        ({"next": "//evil.example/checkout"}, ""),
        ({"next": "https://evil.example"}, ""),
        ({"redirectTo": "/register"}, ""),
        ({}, ""),
    ],
)
def test_the_way_back_is_a_same_site_path_from_redirect_to_or_next(parameters, expected):
    from discount_deals.state.account.auth import requested_target

    assert requested_target(parameters) == expected


def test_create_one_and_sign_in_carry_the_way_back():
    from discount_deals.state.account.auth import back_to_note, with_target

    assert with_target("/register", "/checkout") == "/register?redirectTo=/checkout"
    assert with_target("/login", "/products?brand=melcom&q=a b") == "/login?redirectTo=/products%3Fbrand%3Dmelcom%26q%3Da%20b"
    assert with_target("/register", "") == "/register"
    assert back_to_note("/checkout") == "You will go back to Checkout after signing in."
    assert back_to_note("") == ""


@pytest.mark.parametrize(
    ("target", "name"),
    [("/checkout", "Checkout"), ("/checkout?x=1", "Checkout"), ("/favorites/", "My Favorites"),
     ("/orders/1234", "your order"), ("/admin", "the Admin Dashboard"), ("/products/abc", "the product"),
     ("/", "the home page"), ("/somewhere", "where you were")],
)
def test_pages_are_named_not_routed(target, name):
    from discount_deals.routes import page_name

    assert page_name(target) == name


def test_the_save_then_place_script_is_valid_javascript():
    """'Place order' with the address form filled in runs this script in the browser: a syntax
    error there would silently do nothing."""
    import shutil
    import subprocess

    from discount_deals.state.shop.checkout_details import ADDRESS_FORM_ID, SAVE_THEN_PLACE

    code = SAVE_THEN_PLACE.args[0][1]._var_value
    assert ADDRESS_FORM_ID in code and "requestSubmit" in code
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    checked = subprocess.run([node, "-e", "new Function(process.argv[1])", code], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stderr
