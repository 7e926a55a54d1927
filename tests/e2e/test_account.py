"""Accounts in Chromium against the production server: register, login, session, profile, addresses
(SPEC §2 Login/Register/Profile, §4 Auth and Session, §5, §8)."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from playwright.sync_api import Page, expect

from discount_deals.models import RefreshFamily
from discount_deals.services import auth as auth_service

from ..conftest import TEST_SECRET
from .account_helpers import SESSION_KEYS, login_form, storage, toast
from .conftest import sign_in, unique

# --- register ------------------------------------------------------------------------------------

REQUIRED = [
    "First name is required",
    "Last name is required",
    "Username is required",
    "Email is required",
    "Password is required",
    "Phone number is required",
    "Date of birth is required",
    "Gender is required",
]


def test_register_shows_every_validation_message(page: Page):
    page.goto("/register")
    expect(page.get_by_role("heading", name="Create Account")).to_be_visible()
    expect(page.get_by_text("Join us to start saving on amazing deals")).to_be_visible()
    gender = page.get_by_label("Gender")
    assert gender.locator("option:not([disabled])").evaluate_all("os => os.map(o => [o.value, o.text])") == [
        ["male", "Male"],
        ["female", "Female"],
        ["other", "Other"],
    ]
    expect(page.get_by_label("Date of Birth")).to_have_attribute("type", "date")
    page.get_by_role("button", name="Create Account").click()
    for message in REQUIRED:
        expect(page.get_by_text(message, exact=True)).to_be_visible()

    # Whitespace-only text is empty, except for the password (spaces are a password).
    for label in ("First Name", "Last Name", "Username", "Phone Number"):
        page.get_by_label(label).fill("   ")
    page.get_by_label("Email").fill("not-an-email")
    page.get_by_label("Password").fill("12345")
    page.get_by_role("button", name="Create Account").click()
    for message in (
        "First name is required",
        "Last name is required",
        "Username is required",
        "Phone number is required",
    ):
        expect(page.get_by_text(message, exact=True)).to_be_visible()
    expect(page.get_by_text("Please enter a valid email", exact=True)).to_be_visible()
    expect(page.get_by_text("Password must be at least 6 characters", exact=True)).to_be_visible()
    expect(page.get_by_text("Email is required", exact=True)).to_have_count(0)

    page.get_by_label("Password").fill("      ")
    page.get_by_label("Email").fill("ama@example.com")
    page.get_by_label("First Name").fill("Ama")
    page.get_by_role("button", name="Create Account").click()
    expect(page.get_by_text("First name is required", exact=True)).to_have_count(0)
    expect(page.get_by_text("Please enter a valid email", exact=True)).to_have_count(0)
    expect(page.get_by_text(re.compile("^Password (is|must)"))).to_have_count(0)
    expect(page.get_by_text("Last name is required", exact=True)).to_be_visible()


def test_register_duplicate_email_fails_with_the_server_message(page: Page, live_user):
    existing, _ = live_user()
    page.goto("/register")
    page.get_by_label("First Name").fill("Kofi")
    page.get_by_label("Last Name").fill("Boateng")
    page.get_by_label("Username").fill(unique("kofi").replace(" ", "").replace("-", ""))
    page.get_by_label("Email").fill(existing.email.upper())
    page.get_by_label("Password").fill("akwaaba-deals-7")  # not a common password (issue 32)
    page.get_by_label("Phone Number").fill("+233 24 000 0000")
    page.get_by_label("Date of Birth").fill("1990-05-01")
    page.get_by_label("Gender").select_option("male")
    page.get_by_role("button", name="Create Account").click()
    expect(toast(page, "Registration failed")).to_be_visible()
    expect(toast(page, "A user with this email already exists.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/register"))


# --- login -----------------------------------------------------------------------------------------


def test_login_requires_both_fields(page: Page):
    page.goto("/login")
    expect(page.get_by_role("heading", name="Welcome Back")).to_be_visible()
    expect(page.get_by_text("Sign in to your account to continue shopping")).to_be_visible()
    expect(page.get_by_role("link", name="Create one")).to_have_attribute("href", "/register")
    page.get_by_label("Email").fill("someone@example.com")
    page.get_by_role("button", name="Login", exact=True).click()
    expect(page.get_by_text("Please fill in all fields")).to_be_visible()


def test_wrong_password_says_login_failed(page: Page, live_user, live_server):
    user, _ = live_user()
    page.goto("/login")
    login_form(page, user.email, "not-the-password")
    expect(toast(page, "Login failed")).to_be_visible()
    expect(toast(page, "Invalid credentials")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/login"))
    expect(page.get_by_role("button", name="Login", exact=True)).to_be_enabled()
    assert not storage(page, "accessToken")


def _recorded_failures(live_server, email: str) -> int:
    """Login attempts counted for ``email`` (from any address): each is counted as it starts."""
    from sqlmodel import col, select

    from discount_deals.models import AuthThrottle

    with live_server.session() as session:
        rows = session.exec(
            select(AuthThrottle.hits).where(AuthThrottle.scope == "login", col(AuthThrottle.key).startswith(f"{email}|"))
        ).all()
    return sum(rows)


def test_repeated_failures_are_throttled_per_browser(page: Page, live_user, live_server):
    user, password = live_user()
    page.goto("/login")
    for attempt in range(1, 6):
        login_form(page, user.email, "wrong-password")
        # Logging in is a background event: a submit while one is pending is ignored, so each
        # attempt must have been answered (and recorded) before the next.
        deadline = time.monotonic() + 30
        while _recorded_failures(live_server, user.email) < attempt:
            assert time.monotonic() < deadline, f"attempt {attempt} was not recorded"
            time.sleep(0.1)
        expect(page.get_by_role("button", name="Login", exact=True)).to_be_enabled()
    expect(page.locator("[data-sonner-toast]").filter(has_text="Invalid credentials")).not_to_have_count(0)
    login_form(page, user.email, password)  # even the right password waits now
    expect(
        toast(page, re.compile(r"Too many failed login attempts\. Please try again in \d+ minutes?\."))
    ).to_be_visible()
    assert not storage(page, "accessToken")


@pytest.mark.parametrize("path", ["/profile", "/orders", "/favorites"])
def test_protected_pages_send_guests_to_login_and_back(page: Page, live_user, path: str):
    user, password = live_user()
    page.goto(path)
    expect(page).to_have_url(re.compile(rf"/login\?redirectTo={path}$"))
    expect(page.get_by_text(f"Sign in to access {path}", exact=True)).to_be_visible()
    login_form(page, user.email, password)
    expect(toast(page, "Welcome back!")).to_be_visible()
    expect(toast(page, "You have been successfully logged in")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"{path}$"))
    heading = {"/profile": "My Profile", "/orders": "My Orders", "/favorites": "No favorites yet"}[path]
    expect(page.get_by_role("heading", name=heading)).to_be_visible()


def test_back_from_a_signed_out_link_and_after_signing_in_leaves_the_login_form(page: Page, live_user):
    # Probe 78: a protected link opened signed out (an order shared on WhatsApp) sent the browser
    # to /login as a new entry: Back opened the page again, which sent it to /login again, so Back
    # never left. After signing in, Back showed the login form to a signed-in shopper.
    user, password = live_user()
    page.goto("/products")
    expect(page.get_by_role("heading", name="All Products")).to_be_visible()
    page.goto("/orders")
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/orders$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/products$"))
    page.go_forward()
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/orders$"))
    login_form(page, user.email, password)
    expect(page.get_by_role("heading", name="My Orders")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(re.compile(r"/products$"))
    expect(page.get_by_role("heading", name="Welcome Back")).to_have_count(0)


def test_a_back_office_link_opened_signed_out_comes_back_to_its_tab(page: Page, live_user):
    # Probe 78: /admin?tab=users opened signed out came back to /admin (the Overview) after login.
    admin, password = live_user(role="admin")
    page.goto("/admin?tab=users")
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/admin%3Ftab%3Dusers$"))
    expect(page.get_by_text("Sign in to access /admin", exact=True)).to_be_visible()
    login_form(page, admin.email, password)
    expect(page).to_have_url(re.compile(r"/admin\?tab=users$"))
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()


@pytest.mark.parametrize("target", ["https://evil.example/steal", "//evil.example/steal", "/\\evil.example"])
def test_login_never_redirects_off_site(page: Page, live_user, target: str):
    user, password = live_user()
    page.goto(f"/login?redirectTo={target}")
    expect(page.get_by_text("Sign in to your account to continue shopping")).to_be_visible()
    login_form(page, user.email, password)
    expect(toast(page, "Welcome back!")).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://127\.0\.0\.1:\d+/$"))


def test_header_and_account_menu_for_a_logged_in_customer_and_admin(page: Page, new_context, live_user):
    customer, _ = live_user(first_name="Efua", last_name="Owusu")
    sign_in(page, customer)
    page.goto("/")
    expect(page.get_by_text("Hi, Efua", exact=True)).to_be_visible()
    page.get_by_role("button", name="Account menu").click()
    menu = page.locator("#account-menu")
    expect(menu.get_by_text("Efua Owusu", exact=True)).to_be_visible()
    expect(menu.get_by_text(customer.email, exact=True)).to_be_visible()
    expect(menu.get_by_role("link", name="Profile")).to_have_attribute("href", "/profile")
    expect(menu.get_by_role("link", name="Orders")).to_have_attribute("href", "/orders")
    expect(menu.get_by_role("button", name="Log out")).to_be_visible()
    expect(menu.get_by_role("link", name="Admin Dashboard")).to_have_count(0)

    admin, _ = live_user(role="admin", first_name="Yaw")
    page = new_context().new_page()  # a browser of its own: no session to replace
    sign_in(page, admin)
    page.goto("/")
    expect(page.get_by_text("Hi, Yaw", exact=True)).to_be_visible()
    page.get_by_role("button", name="Account menu").click()
    expect(page.locator("#account-menu").get_by_role("link", name="Admin Dashboard")).to_be_visible()


def test_the_account_entries_are_in_the_page_once_in_the_menu_that_is_open(page: Page, live_user):
    """A closed menu's copy of "Log out" made any search of the page by its text find two (a screen
    reader's find, a test's ``get_by_text``): the mobile menu renders its entries only while open."""
    customer, _ = live_user()
    sign_in(page, customer)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    for entry in ("Profile", "Log out"):
        expect(page.get_by_text(entry, exact=True)).to_have_count(1)
    page.get_by_role("button", name="Open menu").click()
    menu = page.get_by_role("dialog", name="Menu")
    expect(menu.get_by_text("Log out", exact=True)).to_be_visible()
    expect(page.get_by_text("Log out", exact=True)).to_have_count(1)
    page.keyboard.press("Escape")  # closed without its own button: the header's menu takes the entries back
    expect(menu).to_be_hidden()
    page.get_by_role("button", name="Account menu").click()
    expect(page.locator("#account-menu").get_by_text("Profile", exact=True)).to_be_visible()
    page.get_by_text("Log out", exact=True).click()
    expect(page.get_by_role("button", name="Account menu")).to_be_visible()
    page.get_by_role("button", name="Account menu").click()
    expect(page.locator("#account-menu").get_by_role("link", name="Login")).to_be_visible()


# --- session ---------------------------------------------------------------------------------------


def _expired_access_token(user) -> str:
    past = datetime.now(UTC) - timedelta(minutes=30)
    claims = {
        "sub": user.id,
        "type": "access",
        "jti": uuid.uuid4().hex,
        "iat": past,
        "exp": past + timedelta(minutes=15),
    }
    return jwt.encode(claims, TEST_SECRET, algorithm="HS256")


def test_expired_access_token_is_refreshed_transparently(page: Page, shopper, live_server):
    user, _ = shopper(first_name="Akosua")
    expired = _expired_access_token(user)
    refresh = auth_service.issue_tokens(user).refresh
    page.goto("/no-such-page-for-storage")
    page.evaluate(
        "([a, r]) => { localStorage.setItem('accessToken', a); localStorage.setItem('refreshToken', r); }",
        [expired, refresh],
    )
    page.goto("/profile")
    expect(page.get_by_role("heading", name="My Profile")).to_be_visible()
    expect(page.get_by_label("First Name")).to_have_value("Akosua")
    page.wait_for_function("old => localStorage.getItem('accessToken') !== old", arg=expired)
    fresh = storage(page, "accessToken")
    with live_server.session() as session:
        assert auth_service.user_for_access_token(session, fresh).id == user.id
    # The refresh token was rotated: the browser keeps the next one of the same family.
    rotated = storage(page, "refreshToken")
    claims = [jwt.decode(t, TEST_SECRET, algorithms=["HS256"]) for t in (refresh, rotated)]
    assert claims[1]["fam"] == claims[0]["fam"] and claims[1]["gen"] > claims[0]["gen"]


def test_refresh_failure_sends_to_login_and_clears_tokens_and_cart(page: Page, live_product):
    item = live_product()
    page.goto("/no-such-page-for-storage")
    cart = {"state": {"cart": [{"product": {"id": item.id, "name": item.name}, "quantity": 1}]}, "version": 0}
    page.evaluate(
        "c => { localStorage.setItem('accessToken', 'not-a-token'); localStorage.setItem('refreshToken', 'nor-this');"
        " localStorage.setItem('cart-storage', c); }",
        json.dumps(cart),
    )
    page.goto("/orders")
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/orders$"))
    expect(page.get_by_role("heading", name="Welcome Back")).to_be_visible()
    page.wait_for_function("() => !localStorage.getItem('accessToken') && !localStorage.getItem('cart-storage')")
    assert not storage(page, "refreshToken")
    expect(page.get_by_role("link", name=re.compile(r"^Cart")).locator("span[aria-hidden='true']")).to_have_count(0)


def test_logout_clears_cart_and_removes_the_keys(page: Page, live_user, live_product, live_server):
    user, _ = live_user()
    item = live_product(price="4.00")
    sign_in(page, user)
    refresh = storage(page, "refreshToken")
    page.goto(f"/products?search={item.name}")
    page.locator("main article").filter(has_text=item.name).get_by_role("button", name=f"Add to Cart: {item.name}").click()
    expect(toast(page, "Added to cart!")).to_be_visible()
    cart_link = page.get_by_role("link", name=re.compile(r"^Cart"))
    expect(cart_link).to_contain_text("1")
    page.goto("/orders")  # fills orders-storage
    expect(page.get_by_text("No orders yet")).to_be_visible()
    page.wait_for_function("() => localStorage.getItem('orders-storage')")

    page.get_by_role("button", name="Account menu").click()
    page.get_by_role("button", name="Log out").click()
    expect(toast(page, "Logged out")).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://127\.0\.0\.1:\d+/$"))
    page.wait_for_function("keys => keys.every(k => localStorage.getItem(k) === null)", arg=list(SESSION_KEYS))
    expect(cart_link.locator("span[aria-hidden='true']")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"^Hi, "))).to_have_count(0)
    with live_server.session() as session:
        family = jwt.decode(refresh, TEST_SECRET, algorithms=["HS256"])["fam"]
        assert session.get(RefreshFamily, family).revoked_at is not None
    page.reload()
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()
    assert all(storage(page, key) is None for key in ("accessToken", "refreshToken", "user"))


def test_guest_favourites_merge_into_the_user_list_on_login(page: Page, live_user, live_product):
    user, password = live_user()
    item = live_product()
    page.goto(f"/products?search={item.name}")
    page.get_by_role("button", name=f"Add {item.name} to favorites").click()
    expect(toast(page, "Added to favorites")).to_be_visible()
    page.goto("/login?redirectTo=/favorites")
    login_form(page, user.email, password)
    expect(page).to_have_url(re.compile(r"/favorites$"))
    expect(page.get_by_role("heading", name="My Favorites")).to_be_visible()
    expect(page.locator("main article").filter(has_text=item.name)).to_have_count(1)
    lists = json.loads(storage(page, "favorites-storage"))["state"]["favoritesByUser"]
    assert lists["guest"] == []
    assert [e["product"]["id"] for e in lists[user.id]] == [item.id]


# --- profile and addresses ----------------------------------------------------------------------------


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 80, 20)).save(out, format="PNG")
    return out.getvalue()


def test_profile_photo_upload_and_refusal(page: Page, live_user):
    user, _ = live_user(first_name="Nana")
    sign_in(page, user)
    page.goto("/profile")
    expect(page.get_by_role("img", name="Profile photo placeholder")).to_have_text("N")
    upload = page.locator("#avatar-upload input[type=file]")
    upload.set_input_files(files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hello"}])
    expect(toast(page, "Please choose an image file (PNG, JPEG, GIF or WebP) of at most 5 MB.")).to_be_visible()
    upload.set_input_files(files=[{"name": "fake.png", "mimeType": "image/png", "buffer": b"this is not an image"}])
    expect(toast(page, "Update failed")).to_be_visible()
    expect(toast(page, "Upload a valid image.")).to_be_visible()
    upload.set_input_files(files=[{"name": "me.png", "mimeType": "image/png", "buffer": _png()}])
    expect(toast(page, "Profile updated")).to_be_visible()
    photo = page.get_by_role("img", name="Profile photo", exact=True)
    expect(photo).to_have_attribute("src", re.compile(r"^/api/media/profiles/[0-9a-f]+\.webp$"))
    # The picture may still be downloading when its src is set: wait for it, then check its size.
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=photo.element_handle())
    assert page.evaluate("img => img.naturalWidth", photo.element_handle()) == 64


def test_profile_update_failure_shows_the_server_error(page: Page, live_user, shopper):
    other, _ = live_user()
    user, password = shopper()
    sign_in(page, user)
    page.goto("/profile")
    page.get_by_label("Email").fill(other.email)
    # Whether an email is taken is told only with the password (it says whether someone has an account).
    page.get_by_label("Current password").fill(password)
    page.get_by_role("button", name="Save Changes").click()
    expect(toast(page, "Update failed")).to_be_visible()
    expect(toast(page, "email: A user with this email already exists.")).to_be_visible()


# --- issue 32: the owner's device, and a new email or phone -----------------------------------------


def test_a_login_leaves_a_device_token_that_outlives_logout(page: Page, live_user):
    user, password = live_user()
    page.goto("/login")
    login_form(page, user.email, password)
    expect(toast(page, "Welcome back!")).to_be_visible()
    page.wait_for_function("() => localStorage.getItem('deviceToken')")
    device = storage(page, "deviceToken")
    assert jwt.decode(device, TEST_SECRET, algorithms=["HS256"])["type"] == "device"
    # The toast comes just before the way home: a menu opened on the login page closes with it.
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()
    page.get_by_role("button", name="Account menu").click()
    page.get_by_role("button", name="Log out").click()
    expect(toast(page, "Logged out")).to_be_visible()
    page.wait_for_function("() => localStorage.getItem('accessToken') === null")
    assert storage(page, "deviceToken") == device


def test_profile_email_change_needs_the_current_password(page: Page, shopper):
    user, password = shopper()
    sign_in(page, user)
    page.goto("/profile")
    page.get_by_label("Email").fill(f"moved{unique('x').replace(' ', '').replace('-', '')}@example.com")
    page.get_by_role("button", name="Save Changes").click()
    expect(toast(page, "Update failed")).to_be_visible()
    expect(toast(page, "Enter your current password to change your email or phone number.")).to_be_visible()
    page.get_by_label("Current password").fill(password)
    page.get_by_role("button", name="Save Changes").click()
    expect(toast(page, "Profile updated")).to_be_visible()


def test_the_undo_page_asks_first_and_refuses_a_bad_link(page: Page):
    page.goto("/undo-change?token=junk")
    expect(page.get_by_role("heading", name="Undo a change to your account")).to_be_visible()
    page.get_by_role("button", name="Undo the change").click()
    expect(page.get_by_role("status").filter(has_text="This undo link is invalid or has expired.")).to_be_visible()
