"""Tap targets on a touch phone (390 × 844, a coarse pointer): every button, field and
stand-alone link of the shopper's screens is at least 44 × 44 px, the size Apple's and Google's
guidelines and WCAG 2.5.5 ask for a finger. A link inside a sentence is exempt (it is as tall as
the text, WCAG's inline exception). A mouse keeps the denser sizes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .account_helpers import add_address, insert_order
from .conftest import sign_in, unique
from .test_returns import SHOTS
from .test_checkout import fill_cart

TOUCH = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SMALLEST = 44

SMALL_TARGETS = r"""(smallest) => {
    const controls = document.querySelectorAll(
        "button, a[href], input:not([type=hidden]), select, textarea, [role=button], [role=tab], summary");
    const small = [];
    for (const el of controls) {
        const box = el.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1 || getComputedStyle(el).visibility === "hidden") continue;  // unseen
        if (el.closest("footer") === null && el.closest("header") === null && !el.closest("main")) continue;
        if (el.closest("[aria-hidden=true], [inert], [data-sonner-toaster]")) continue;
        // A link in a line of text (its parent says more than the link): WCAG's inline exception.
        if (el.tagName === "A" && getComputedStyle(el).display === "inline"
            && el.parentElement.textContent.trim().length > el.textContent.trim().length) continue;
        // A box or radio and its label (around it, or naming it): the label is what a finger taps.
        const label = (el.type === "checkbox" || el.type === "radio") ? (el.labels || [])[0] || null : null;
        // A target grown around itself (.tap-inset in assets/app.css): its ::after is what is tapped.
        const after = getComputedStyle(el, "::after");
        const grown = after.content !== "none" && after.position === "absolute";
        const target = label ? label.getBoundingClientRect()
            : grown ? {width: parseFloat(after.width), height: parseFloat(after.height)} : box;
        if (target.height < smallest - 0.5 || target.width < smallest - 0.5) {
            const name = (el.getAttribute("aria-label") || el.textContent || el.name || el.id || "").trim();
            small.push(`${el.tagName.toLowerCase()} "${name.slice(0, 40)}" ${Math.round(target.width)}×${Math.round(target.height)}`);
        }
    }
    return small;
}"""


def small_targets(page: Page) -> list[str]:
    return page.evaluate(SMALL_TARGETS, SMALLEST)


@pytest.fixture
def phone(browser: Browser, live_server) -> Page:
    context = browser.new_context(base_url=live_server.url, **TOUCH)
    yield context.new_page()
    context.close()


def test_the_shoppers_screens_are_made_for_a_finger(phone: Page, live_server, live_user, live_product):
    user, _password = live_user()
    item = live_product(name=unique("Tap Sardines 125g"), price="12.00", stock=5)
    fill_cart(live_server, user, (item, 2))
    with live_server.session() as session:
        add_address(session, user)
    sign_in(phone, user)
    phone.goto("/profile")
    expect(phone.get_by_role("button", name="Account menu")).to_be_visible()
    # The header keeps one row: its icons grow their tap area, not their width (4 px more each
    # pushed the account menu to a row of its own).
    logo, account = (phone.get_by_role(role, name=name).bounding_box() for role, name in (
        ("link", "DiscountDeals home"), ("button", "Account menu")))
    assert abs((logo["y"] + logo["height"] / 2) - (account["y"] + account["height"] / 2)) < 8
    assert_made_for_a_finger(phone, [("/", "main article"), (f"/products?search={item.name}", "main article"),
                        (f"/products/{item.id}", "main h1"), ("/cart", f"main >> text={item.name}"),
                        ("/checkout", "main form")])


def test_the_account_screens_are_made_for_a_finger(phone: Page, live_server, live_user):
    assert_made_for_a_finger(phone, [("/login", "main form"), ("/register", "main form"),
                                     ("/reset-password", "main form")])
    user, _password = live_user()
    with live_server.session() as session:
        order = insert_order(session, user, status="delivered", payment_status="paid")
    sign_in(phone, user)
    assert_made_for_a_finger(phone, [("/orders", f"main >> text=#{order.id[:8]}"), (f"/orders/{order.id}", "main h1"),
                                     ("/profile", "main form"), ("/favorites", "main h1")])


def assert_made_for_a_finger(page: Page, screens: list[tuple[str, str]]) -> None:
    """Each screen (its path, and what shows it is there) has no control under 44 px."""
    listing = []
    for path, ready in screens:
        page.goto(path)
        expect(page.locator(ready).first).to_be_visible()
        listing += [f"{path}: {target}" for target in small_targets(page)]
        SHOTS.mkdir(parents=True, exist_ok=True)
        name = "-".join(path.strip("/").split("?")[0].split("/")[:1] + (["one"] if path.count("/") > 1 else [])
                        + path.split("tab=")[1:]) or "home"
        page.screenshot(path=str(SHOTS / f"touch-{name}-390.png"), full_page=True)
    assert not listing, "under 44 px:\n" + "\n".join(listing)


def test_the_back_office_is_made_for_a_finger(phone: Page, live_server, live_user, live_product):
    admin, _password = live_user(role="admin")
    live_product(name=unique("Tap Gari 1kg"), price="6.00", stock=3)
    with live_server.session() as session:  # a row with the customer's tap-to-call number
        insert_order(session, live_user()[0], contact_phone="+233245550100")
    sign_in(phone, admin)
    phone.goto("/admin?tab=orders")
    expect(phone.locator("main h2").first).to_be_visible()
    # The row of tabs scrolls sideways: each keeps its words whole (a minimum width of 44 px let
    # them shrink over each other).
    assert phone.locator("[role=tab]").evaluate_all(
        "tabs => tabs.filter(tab => tab.scrollWidth > tab.clientWidth + 1).map(tab => tab.textContent)") == []
    assert_made_for_a_finger(phone, [(f"/admin?tab={tab}", "main h2") for tab in (
        "overview", "orders", "returns", "products", "categories", "users", "coupons", "stores", "reviews",
        "notifications", "activity")])
