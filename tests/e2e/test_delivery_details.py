"""Issue 21 on a 390 × 844 phone: a new customer registers on the way to checkout and comes back
to it, delivers to a GhanaPost address with a phone for the rider; a line that sold out in the
cart is marked with its one-tap fix; the admin prints a delivery sheet with tap-to-call phones.
Screenshots go to test-results/screenshots/ (and /work/notes/shots-21b/ when that folder exists)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import Address, Order, Product, User
from discount_deals.services import users as user_service

from .account_helpers import settled_box, toast, whole_page_shot
from .conftest import sign_in, unique
from .test_checkout import ORDER_URL, fill_cart, open_checkout, orders_of

PHONE = {"width": 390, "height": 844}
NOTES_SHOTS = Path("/work/notes/shots-21b")
GPS_INVALID = user_service.addresses.GPS_INVALID


def shoot(page: Page, name: str) -> Path:
    return whole_page_shot(page, name, NOTES_SHOTS)


def overlaps(a: dict | None, b: dict | None) -> bool:
    return bool(a and b) and not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                                  or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def _register(page: Page, email: str, password: str) -> None:
    page.get_by_label("First Name").fill("Yaw")
    page.get_by_label("Last Name").fill("Darko")
    page.get_by_label("Username").fill(email.split("@")[0])
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_label("Phone Number").fill("020 555 0199")
    page.get_by_label("Date of Birth").fill("1994-02-11")
    page.get_by_label("Gender").select_option("male")
    page.get_by_role("button", name="Create Account").click()


def test_a_new_customer_registers_on_the_way_to_checkout_and_delivers_to_a_ghanapost_address(
        page: Page, live_product, live_server):
    page.set_viewport_size(PHONE)
    item = live_product(name=unique("Way Back Gari"), price="12.00", stock=5)
    page.goto(f"/products?search={item.name}")
    card_button = page.locator("main article").filter(has_text=item.name).get_by_role("button", name="Add to Cart")
    card_button.click()
    added = toast(page, f"{item.name} has been added to your cart.")
    expect(added).to_be_visible()
    # On a phone the toast is at the bottom (issue 31): it covers neither the header's cart nor
    # the button just pressed.
    box = settled_box(added)
    assert not overlaps(box, card_button.bounding_box())
    assert not overlaps(box, page.locator("header").bounding_box())
    assert box["y"] > PHONE["height"] * 2 / 3

    page.goto("/cart")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/checkout$"))
    expect(page.get_by_text("Sign in to access /checkout", exact=True)).to_be_visible()  # SPEC §2's sentence
    expect(page.get_by_text("You will go back to Checkout after signing in.")).to_be_visible()
    page.get_by_role("link", name="Create one").click()
    expect(page).to_have_url(re.compile(r"/register\?redirectTo=/checkout$"))
    expect(page.get_by_role("link", name="Sign in")).to_have_attribute("href", "/login?redirectTo=/checkout")

    email, password = f"{unique('wayback').replace(' ', '').replace('-', '')}@example.com", "gari-2026!"
    _register(page, email, password)
    expect(toast(page, "Account created!")).to_be_visible()
    # Signed in at once and back where they were going (issue 32; SPEC §8's second branch).
    expect(page).to_have_url(re.compile(r"/checkout$"))
    expect(toast(page, "Welcome back!")).to_have_count(0)
    expect(page.get_by_role("list", name="Order lines")).to_contain_text(item.name)  # the guest cart came along
    expect(page.get_by_label("Phone number for the rider")).to_have_value("020 555 0199")
    # Back leaves no form behind (review 79: it showed "Welcome Back" to the shopper just signed in).
    page.go_back()
    expect(page).to_have_url(re.compile(r"/cart$"))
    page.go_forward()
    expect(page).to_have_url(re.compile(r"/checkout$"))
    expect(page.get_by_role("list", name="Order lines")).to_contain_text(item.name)

    form = page.get_by_role("form", name="Add a new address")
    form.get_by_label("Area and street").fill("East Legon, 12 Lagos Avenue")
    form.get_by_label("Landmark or directions").fill("Opposite the Shell station, blue gate")
    form.get_by_label("City or town").fill("Accra")
    form.get_by_label("Region").select_option("Greater Accra")
    form.get_by_label("GhanaPost GPS digital address").fill("ga-12-345")
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Check the address")).to_be_visible()
    expect(form.get_by_text(GPS_INVALID)).to_be_visible()
    expect(form.get_by_label("GhanaPost GPS digital address")).to_have_attribute("aria-invalid", "true")
    with live_server.session() as session:
        user = session.exec(select(User).where(User.email == email)).one()
        assert session.exec(select(Address).where(Address.user_id == user.id)).all() == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, "checkout-ghana-address-390")
    form.get_by_label("GhanaPost GPS digital address").fill("ga 543 0125")
    page.get_by_role("button", name="Place order").click()  # one tap: the address is saved, the order placed

    expect(toast(page, "Order placed")).to_be_visible()
    page.wait_for_url(ORDER_URL)
    (order,) = orders_of(live_server, user)
    assert order.address["state"] == "Greater Accra" and order.address["postal_code"] == "GA-543-0125"
    assert order.address["line2"] == "Opposite the Shell station, blue gate" and order.address["country"] == "Ghana"
    assert order.contact_phone == "+233205550199"
    expect(page.get_by_text("GA-543-0125", exact=False)).to_be_visible()


def _set_stock(live_server, **stock_by_id: int) -> None:
    with live_server.session() as session:
        for product_id, stock in stock_by_id.items():
            session.get(Product, product_id).stock = stock


def test_a_line_that_sold_out_in_the_cart_is_marked_with_its_one_tap_fix(page: Page, live_user, live_product,
                                                                         live_server):
    page.set_viewport_size(PHONE)
    user, _ = live_user()
    rice, oil = live_product(name=unique("Short Rice"), stock=5), live_product(name=unique("Gone Oil"), stock=5)
    salt = live_product(name=unique("Plenty Salt"), stock=5, price="3.00")
    fill_cart(live_server, user, (rice, 3), (oil, 2), (salt, 1))
    with live_server.session() as session:
        from .account_helpers import add_address

        add_address(session, user)
    _set_stock(live_server, **{rice.id: 2, oil.id: 0})  # sold to others meanwhile
    sign_in(page, user)
    page.goto("/cart")
    lines = page.get_by_role("list", name="Cart items").get_by_role("listitem")
    rice_line, oil_line = lines.filter(has_text=rice.name), lines.filter(has_text=oil.name)
    expect(rice_line).to_contain_text("Only 2 left")
    expect(oil_line).to_contain_text("Sold out")
    expect(lines.filter(has_text=salt.name)).not_to_contain_text("left")
    expect(page.get_by_text(re.compile(r"only 0", re.IGNORECASE))).to_have_count(0)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, "cart-short-line-390")

    page.get_by_role("button", name="Proceed to Checkout").click()  # not with marked lines
    expect(toast(page, "Not enough stock")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/cart$"))
    rice_line.get_by_role("button", name=f"Change {rice.name} to 2 (what is left)").click()
    done = toast(page, "Quantity updated successfully!")
    expect(done).to_be_visible()
    assert not overlaps(settled_box(done), page.locator("#checkout-bar").bounding_box())
    expect(rice_line).not_to_contain_text("Only 2 left")
    expect(rice_line.get_by_label("Quantity", exact=True)).to_have_text("2")

    # The checkout page marks the sold-out line too, and removes it in one tap.
    open_checkout(page)
    review = page.get_by_role("list", name="Order lines").get_by_role("listitem")
    expect(review.filter(has_text=oil.name)).to_contain_text("Sold out")
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Not enough stock")).to_be_visible()
    review.filter(has_text=oil.name).get_by_role("button", name=f"Remove {oil.name} (sold out)").click()
    expect(toast(page, "Item removed successfully!")).to_be_visible()
    expect(review.filter(has_text=oil.name)).to_have_count(0)
    expect(review).to_have_count(2)
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Order placed")).to_be_visible()
    page.wait_for_url(ORDER_URL)
    (order,) = orders_of(live_server, user)
    assert order.item_count == 3  # 2 rice (what was left) + 1 salt
    with live_server.session() as session:
        assert session.get(Product, rice.id).stock == 0


def _place_order_to(live_server, live_user, live_product, region: str, city: str, phone: str) -> Order:
    import httpx

    from discount_deals.services.auth.tokens import create_access_token

    customer, _ = live_user(first_name="Akua", last_name=unique("Rider").split()[-1])
    item = live_product(name=unique("Sheet Yam"), price="9.00", stock=5)
    fill_cart(live_server, customer, (item, 2))
    with live_server.session() as session:
        user_service.add_ghana_address(session, customer, {
            "line1": "Adum, 4 Prempeh II Street", "landmark": "Behind the post office", "city": city,
            "region": region, "gps": "AK-039-5028"})
    response = httpx.post(f"{live_server.url}/api/orders/checkout/", json={"contact_phone": phone},
                          headers={"Authorization": f"Bearer {create_access_token(customer)}"}, timeout=30)
    assert response.status_code == 201, response.text
    with live_server.session() as session:
        return session.get(Order, response.json()["id"])


def test_the_admin_prints_a_delivery_sheet_with_tap_to_call_phones(page: Page, live_user, live_product, live_server):
    page.set_viewport_size(PHONE)
    order = _place_order_to(live_server, live_user, live_product, "Ashanti", "Kumasi", "032 202 2222")
    admin, _ = live_user(role="admin")
    sign_in(page, admin)
    page.goto("/admin?tab=orders")
    page.get_by_label("Search orders").fill(order.id[:8])
    row = page.get_by_role("list", name="Orders").get_by_role("listitem")
    expect(row).to_have_count(1)
    expect(row.get_by_role("link", name="Call 032 202 2222")).to_have_attribute("href", "tel:+233322022222")
    row.get_by_role("button", name=f"View order #{order.id[:8]}").click()
    expect(page.get_by_role("heading", name=f"Order #{order.id[:8]}")).to_be_visible()
    expect(page.get_by_role("link", name="Call 032 202 2222")).to_have_attribute("href", "tel:+233322022222")

    page.get_by_role("link", name="Delivery sheet").click()
    expect(page).to_have_url(re.compile(rf"/admin/delivery-sheet\?order={order.id}$"))
    expect(page.get_by_role("heading", name=f"Delivery sheet: order #{order.id[:8]}")).to_be_visible()
    stop = page.get_by_role("region", name="Ashanti").get_by_role("listitem").filter(has_text=order.id[:8])
    expect(stop.get_by_role("link", name="Call 032 202 2222")).to_have_attribute("href", "tel:+233322022222")
    for text in ("Adum, 4 Prempeh II Street", "Landmark: Behind the post office", "Kumasi, Ashanti",
                 "AK-039-5028", "2 × ", "Collect $25.43 in cash"):
        expect(stop).to_contain_text(text)
    page.evaluate("() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }")
    page.get_by_role("button", name="Print").click()
    page.wait_for_function("() => window.__printed === 1")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, "delivery-sheet-390")
    page.emulate_media(media="print")  # on paper: no controls, the stops only
    expect(page.get_by_role("button", name="Print")).to_be_hidden()
    expect(page.get_by_role("link", name="Back to orders")).to_be_hidden()
    expect(stop).to_be_visible()
    shoot(page, "delivery-sheet-print-390")
    page.emulate_media(media="screen")

    # The day's sheet: every open home delivery, grouped by region.
    page.get_by_role("link", name="Back to orders").click()
    expect(page.get_by_role("heading", name="Orders", exact=True)).to_be_visible()
    page.get_by_role("link", name="Delivery sheet").click()
    expect(page.get_by_role("heading", name=re.compile(r"^Deliveries for "))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^\d+ stops? in \d+ regions?"))).to_be_visible()
    expect(page.get_by_role("region", name="Ashanti").get_by_role("listitem").filter(
        has_text=order.id[:8])).to_be_visible()
    page.get_by_label("Day").fill("2020-01-01")
    expect(page).to_have_url(re.compile(r"day=2020-01-01$"))
    expect(page.get_by_text("No home deliveries to make: nothing is waiting to go out.")).to_be_visible()
