"""The shopper's journey and orders in Chromium against the production server: register, profile,
addresses, guest cart merged at login, checkout, order details and the orders list
(SPEC §2 Profile/Orders/Order details/After checkout, §4 Checkout, §8)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import Order, Product, User
from discount_deals.services import cart as cart_service

from .account_helpers import add_address, insert_order, login_form, storage, toast
from ..conftest import ROOT
from .conftest import sign_in, unique

SCREENSHOTS = ROOT / "test-results" / "screenshots"

ADDRESS_REQUIRED = "You cannot proceed to checkout without an address. Please set your address in your profile."


def cards(page: Page):
    return page.get_by_role("list", name="Orders").get_by_role("listitem")


def addresses(page: Page):
    return page.get_by_role("list", name="Saved addresses").get_by_role("listitem")


def add_to_cart(page: Page, name: str) -> None:
    page.goto(f"/products?search={name}")
    page.locator("main article").filter(has_text=name).get_by_role("button", name=f"Add to Cart: {name}").click()
    expect(toast(page, f"{name} has been added to your cart.")).to_be_visible()


def fill_address(page: Page, line1: str, city: str = "Accra", country: str = "Ghana", **optional) -> None:
    page.get_by_label("Line 1").fill(line1)
    page.get_by_label("City").fill(city)
    page.get_by_label("Country").fill(country)
    for label, value in optional.items():
        page.get_by_label(label.replace("_", " ")).fill(value)


def test_register_profile_addresses_guest_cart_checkout_and_orders(page: Page, live_server, live_product):
    cocoa = live_product(name=unique("Journey Cocoa"), price="30.00", discount_price="20.00", stock=5)
    rice = live_product(name=unique("Journey Rice"), price="15.00", stock=5)
    handle = unique("abena").replace(" ", "").replace("-", "")
    email = f"{handle}@example.com"

    # Register, then log in.
    page.goto("/register")
    page.get_by_label("First Name").fill("Abena")
    page.get_by_label("Last Name").fill("Asante")
    page.get_by_label("Username").fill(handle)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("deals-2026")
    page.get_by_label("Phone Number").fill("+233 20 555 0101")
    page.get_by_label("Date of Birth").fill("1994-07-21")
    page.get_by_label("Gender").select_option("female")
    page.get_by_role("button", name="Create Account").click()
    # Signed in at once and sent on (issue 32; SPEC §8's second branch): no second login.
    expect(toast(page, "Account created!")).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://127\.0\.0\.1:\d+/$"))
    expect(page.get_by_text("Hi, Abena", exact=True)).to_be_visible()

    # Profile: the registered values, then an edit.
    page.get_by_role("button", name="Account menu").click()
    page.locator("#account-menu").get_by_role("link", name="Profile").click()
    expect(page.get_by_role("heading", name="My Profile")).to_be_visible()
    expect(page.get_by_role("img", name="Profile photo placeholder")).to_have_text("A")
    expect(page.get_by_label("Username")).to_have_value(handle)
    expect(page.get_by_label("Email")).to_have_value(email)
    expect(page.get_by_label("Date of Birth")).to_have_value("1994-07-21")
    expect(page.get_by_label("Gender")).to_have_value("female")
    expect(page.get_by_text("male | female | other")).to_be_visible()
    page.get_by_label("First Name").fill("Abenaa")
    page.get_by_label("Bio").fill("I love a good deal.")
    page.get_by_label("Website").fill("https://abena.example.com")
    page.get_by_role("button", name="Save Changes").click()
    expect(toast(page, "Profile updated")).to_be_visible()
    expect(toast(page, "Your profile has been updated successfully.")).to_be_visible()
    expect(page.get_by_text("Hi, Abenaa", exact=True)).to_be_visible()
    page.reload()
    expect(page.get_by_label("First Name")).to_have_value("Abenaa")
    expect(page.get_by_label("Bio")).to_have_value("I love a good deal.")
    expect(page.get_by_label("Website")).to_have_value("https://abena.example.com")

    # Addresses: two added, the second made default, both deleted.
    page.get_by_role("tab", name="Addresses").click()
    expect(page.get_by_role("tab", name="Addresses")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_text("No saved addresses yet.")).to_be_visible()
    fill_address(page, "12 Ring Road")
    page.get_by_role("button", name="Add Address").click()
    expect(toast(page, "Address added")).to_be_visible()
    expect(addresses(page)).to_have_count(1)
    expect(page.get_by_label("Line 1")).to_have_value("")  # the form is emptied
    fill_address(page, "4 Liberation Avenue", city="Kumasi", Line_2="Flat 3", State="Ashanti", Postal_Code="AK-039")
    page.get_by_role("button", name="Add Address").click()
    expect(addresses(page)).to_have_count(2)
    first = addresses(page).filter(has_text="12 Ring Road")
    second = addresses(page).filter(has_text="4 Liberation Avenue")
    expect(first.get_by_text("Default", exact=True)).to_be_visible()  # the first address is the default
    expect(second).to_contain_text("Flat 3")
    expect(second).to_contain_text("Kumasi, Ashanti AK-039")
    expect(second).to_contain_text("Ghana")
    second.get_by_role("button", name="Set Default").click()
    expect(toast(page, "Default address set")).to_be_visible()
    expect(second.get_by_text("Default", exact=True)).to_be_visible()
    expect(second.get_by_role("button", name="Set Default")).to_have_count(0)
    expect(first.get_by_role("button", name="Set Default")).to_be_visible()
    page.get_by_role("button", name="Delete address 12 Ring Road").click()
    expect(toast(page, "Address deleted")).to_be_visible()
    expect(addresses(page)).to_have_count(1)
    page.get_by_role("button", name="Delete address 4 Liberation Avenue").click()
    expect(page.get_by_text("No saved addresses yet.")).to_be_visible()

    # Log out, fill a guest cart, log in again: the cart moves to the server.
    page.get_by_role("button", name="Account menu").click()
    page.get_by_role("button", name="Log out").click()
    expect(toast(page, "Logged out")).to_be_visible()
    add_to_cart(page, cocoa.name)
    add_to_cart(page, cocoa.name)
    add_to_cart(page, rice.name)
    expect(page.get_by_role("link", name=re.compile(r"^Cart"))).to_contain_text("3")
    page.goto("/login?redirectTo=/cart")
    expect(page.get_by_text("Sign in to access /cart", exact=True)).to_be_visible()
    login_form(page, email, "deals-2026")
    expect(page).to_have_url(re.compile(r"/cart$"))
    expect(page.get_by_role("list", name="Cart items").get_by_role("listitem")).to_have_count(2)
    expect(page.get_by_role("link", name=re.compile(r"^Cart"))).to_contain_text("3")
    assert not storage(page, "cart-storage")
    with live_server.session() as session:
        user = session.exec(select(User).where(User.email == email)).one()
        assert user.first_name == "Abenaa"
        lines = {line.product.id: line.quantity for line in cart_service.cart_lines(session, user)}
    assert lines == {cocoa.id: 2, rice.id: 1}

    # Checkout without an address, then with one saved in the profile.
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(page).to_have_url(re.compile(r"/checkout$"))
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Address Required")).to_be_visible()
    expect(toast(page, ADDRESS_REQUIRED)).to_be_visible()  # SPEC §8; the form is on the page: no detour
    with live_server.session() as session:
        assert session.exec(select(Order).where(Order.user_id == user.id)).all() == []
    page.goto("/profile")
    page.get_by_role("tab", name="Addresses").click()
    fill_address(page, "7 Independence Avenue")
    page.get_by_role("button", name="Add Address").click()
    expect(toast(page, "Address added")).to_be_visible()
    page.goto("/cart")
    expect(page.locator("dl")).to_contain_text("Subtotal$55.00")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(page.get_by_role("list", name="Saved addresses")).to_contain_text("7 Independence Avenue")
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Order placed")).to_be_visible()
    expect(toast(page, "Your order has been placed. You pay when it is delivered.")).to_be_visible()
    page.wait_for_url(re.compile(r"/orders/[0-9a-f-]{36}$"))
    order_id = page.url.rsplit("/", 1)[-1]

    # The order page: subtotal 55.00, free shipping (over 50), tax 8 % = 4.40, total 59.40.
    expect(page.get_by_role("heading", name=f"Order #{order_id[:8]}")).to_be_visible()
    expect(page.get_by_text("Pending", exact=True)).to_be_visible()
    items = page.get_by_role("list", name="Order items").get_by_role("listitem")
    expect(items).to_have_count(2)
    expect(items.filter(has_text=cocoa.name)).to_contain_text("Qty: 2")
    expect(items.filter(has_text=cocoa.name)).to_contain_text("$40.00")
    expect(items.filter(has_text=rice.name)).to_contain_text("Qty: 1")
    expect(items.filter(has_text=rice.name)).to_contain_text("$15.00")
    totals = page.locator("dl[aria-label='Order total']")
    expect(totals).to_contain_text("Subtotal$55.00")
    expect(totals).to_contain_text("ShippingFree")
    expect(totals).to_contain_text("Tax$4.40")
    expect(totals).to_contain_text("Total$59.40")
    with live_server.session() as session:
        (order,) = session.exec(select(Order).where(Order.user_id == user.id)).all()
        assert (
            order.id == order_id
            and order.total == Decimal("59.40")
            and order.address["line1"] == "7 Independence Avenue"
        )
        assert not cart_service.cart_lines(session, user)
        assert session.get(Product, cocoa.id).stock == 3
    page.goto("/cart")
    expect(page.get_by_text("Your cart is empty")).to_be_visible()

    # The orders list and its filters.
    with live_server.session() as session:
        done = insert_order(session, user, status="completed", total="9.99", lines=(("Old thing", 1, "9.99"),))
    page.goto("/orders")
    expect(page.get_by_role("heading", name="My Orders")).to_be_visible()
    expect(cards(page)).to_have_count(2)
    placed = cards(page).filter(has_text=f"Order #{order_id[:8]}")
    expect(placed).to_contain_text("Pending")
    expect(placed).to_contain_text("3 items")
    expect(placed).to_contain_text("$59.40")
    expect(placed.get_by_role("link", name="View Details")).to_have_attribute("href", f"/orders/{order_id}")
    page.get_by_role("button", name="Pending", exact=True).click()
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_contain_text(f"Order #{order_id[:8]}")
    page.get_by_role("button", name="Completed", exact=True).click()
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_contain_text(f"Order #{done.id[:8]}")
    expect(cards(page)).to_contain_text("Completed")
    expect(cards(page)).to_contain_text("1 item")
    expect(cards(page)).to_contain_text("$9.99")
    page.get_by_role("button", name="All", exact=True).click()
    expect(cards(page)).to_have_count(2)
    cards(page).filter(has_text=f"Order #{done.id[:8]}").get_by_role("link", name="View Details").click()
    expect(page.get_by_role("heading", name=f"Order #{done.id[:8]}")).to_be_visible()
    page.get_by_role("link", name="Back to Orders").click()
    expect(page).to_have_url(re.compile(r"/orders$"))


def test_pending_filter_is_every_status_but_completed(page: Page, live_user, live_server):
    user, _ = live_user()
    with live_server.session() as session:
        made = {
            status: insert_order(session, user, status=status)
            for status in ("pending", "processing", "cancelled", "completed")
        }
    sign_in(page, user)
    page.goto("/orders")
    expect(cards(page)).to_have_count(4)
    for status in made:
        expect(cards(page).filter(has_text=status.capitalize())).to_have_count(1)
    page.get_by_role("button", name="Pending", exact=True).click()
    expect(page.get_by_role("button", name="Pending", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(cards(page)).to_have_count(3)
    expect(cards(page).filter(has_text="Completed")).to_have_count(0)
    page.get_by_role("button", name="Completed", exact=True).click()
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_contain_text(f"Order #{made['completed'].id[:8]}")


def test_each_order_shows_its_payment_state_beside_its_status(page: Page, live_user, live_server):
    """Issue 33 item 5: a second badge says the payment state (not "Pending" for every order), and
    a payment through the fake provider is marked "Test payment"; the order page says it too."""
    user, _ = live_user()
    momo = {"payment_method": "mobile_money"}
    with live_server.session() as session:
        shown = [
            (insert_order(session, user, status="processing", payment_status="paid", payment_test=True, **momo),
             "Processing", "Paid", True),
            (insert_order(session, user, payment_status="awaiting_payment", **momo), "Pending", "Awaiting payment",
             False),
            (insert_order(session, user, payment_status="failed", **momo), "Pending", "Payment failed", False),
            (insert_order(session, user), "Pending", "Pay on delivery", False),
            (insert_order(session, user, status="cancelled", payment_status="refunded", **momo), "Cancelled",
             "Refunded", False),
        ]
    sign_in(page, user)
    page.goto("/orders")
    expect(cards(page)).to_have_count(len(shown))
    for order, status, payment, test in shown:
        card = cards(page).filter(has_text=f"Order #{order.id[:8]}")
        expect(card.get_by_text(status, exact=True)).to_be_visible()
        expect(card.get_by_text(payment, exact=True)).to_be_visible()
        expect(card.get_by_text("Test payment", exact=True)).to_have_count(1 if test else 0)
    expect(cards(page).filter(has_text="Test payment")).to_have_count(1)

    paid = shown[0][0]
    cards(page).filter(has_text=f"Order #{paid.id[:8]}").get_by_role("link", name="View Details").click()
    expect(page.get_by_role("heading", name=f"Order #{paid.id[:8]}")).to_be_visible()
    main = page.locator("#main")
    expect(main.get_by_text("Processing", exact=True)).to_be_visible()
    expect(main.get_by_text("Paid", exact=True)).to_be_visible()
    expect(main.get_by_text("Test payment", exact=True)).to_be_visible()


def test_no_orders_yet(page: Page, live_user):
    user, _ = live_user()
    sign_in(page, user)
    page.goto("/orders")
    expect(page.get_by_text("No orders yet")).to_be_visible()
    expect(page.get_by_text("When you place an order, it will show up here.")).to_be_visible()
    expect(page.get_by_role("link", name="Start Shopping")).to_have_attribute("href", "/products")


def test_another_users_order_shows_the_error_state(page: Page, new_context, live_user, live_server):
    owner, _ = live_user()
    stranger, _ = live_user()
    with live_server.session() as session:
        order = insert_order(session, owner, lines=(("Private thing", 1, "12.50"),))
    sign_in(page, stranger)
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_text("Failed to load order.")).to_be_visible()
    expect(page.get_by_text("The order might still be processing or the order ID might be invalid.")).to_be_visible()
    expect(page.get_by_text("Private thing")).to_have_count(0)
    page.get_by_role("button", name="Try Again").click()
    expect(page.get_by_text("Failed to load order.")).to_be_visible()
    expect(page.get_by_role("link", name="Back to Orders")).to_have_attribute("href", "/orders")

    page = new_context().new_page()  # a browser of its own: no session to replace
    sign_in(page, owner)
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_text("Private thing")).to_be_visible()
    expect(page.get_by_text("Qty: 1")).to_be_visible()


def test_order_details_require_login(page: Page):
    page.goto("/orders/0b7c2a6e-0000-4000-8000-000000000000")
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/orders/0b7c2a6e-0000-4000-8000-000000000000$"))


@pytest.mark.parametrize("width", [375, 1280])
def test_screenshots(page: Page, shopper, live_server, width: int):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/login?redirectTo=/orders")
    expect(page.get_by_text("Sign in to access /orders")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"login-{width}.png"), full_page=True)
    page.goto("/register")
    page.get_by_role("button", name="Create Account").click()
    expect(page.get_by_text("Gender is required")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"register-{width}.png"), full_page=True)

    user, _ = shopper()
    with live_server.session() as session:
        add_address(session, user, line2="Behind the mall", state="Greater Accra", postal_code="GA-100")
        add_address(session, user, line1="9 Harbour Road", city="Tema")
        order = insert_order(session, user, lines=(("Milo 400g", 2, "5.00"), ("Rice 5kg", 1, "2.50")))
        insert_order(session, user, status="completed")
    sign_in(page, user)
    page.goto("/profile")
    expect(page.get_by_role("heading", name="My Profile")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"profile-{width}.png"), full_page=True)
    page.get_by_role("tab", name="Addresses").click()
    page.screenshot(path=str(SCREENSHOTS / f"addresses-{width}.png"), full_page=True)
    page.goto("/orders")
    expect(cards(page)).to_have_count(2)
    page.screenshot(path=str(SCREENSHOTS / f"orders-{width}.png"), full_page=True)
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_text("Milo 400g")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"order-{width}.png"), full_page=True)
