"""axe-core over every route as a guest, a customer and an admin, on a 320 px phone and a
1440 px desktop: any critical or serious violation fails (issue 15), and so does a page or admin
tab wider than the screen (sideways scroll, issue 21). Also the layout checks axe cannot make
(the admin Overview on 320 px, focus after a route change).

axe-core comes from npm (``make axe`` installs it into tests/e2e/.axe, which git ignores) and is
injected into each page once the app has loaded it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from discount_deals.state.admin.gate import TABS

from ..conftest import ROOT
from .account_helpers import insert_order
from .conftest import sign_in

AXE = ROOT / "tests" / "e2e" / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (320, 1440)
BLOCKING = ("critical", "serious")
ADMIN_TABS = tuple(label for _tab, label, _icon in TABS)  # every tab of the back office


@pytest.fixture(scope="module")
def axe_source() -> Path:
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run 'make axe' (make test does)")
    return AXE


def audit(page: Page, axe_source: Path, where: str) -> list[str]:
    """Run axe on what the page shows now; one line per blocking violation."""
    # No hover effect half-way through its colour transition under the pointer.
    page.mouse.move(0, 0)
    page.wait_for_timeout(200)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated, not added as an inline <script>: the page's CSP refuses inline scripts it
        # has no hash for (web/csp.py), as it should for anything injected.
        page.evaluate("source => { (0, eval)(source); }", axe_source.read_text())
    results = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' ') + ' ' + n.html.slice(0, 160) + ' ' + (n.any[0]?.message || ''))}))"
    )
    return [
        f"{where}: {v['impact']} {v['id']} ({v['help']}) at {' | '.join(v['nodes'][:5])}"
        for v in results
        if v["impact"] in BLOCKING
    ]


def sideways_scroll(page: Page, where: str) -> list[str]:
    """The page is wider than the screen: name what sticks out (at most 5 elements)."""
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    if width <= inner:
        return []
    culprits = page.evaluate(
        """() => { const W = window.innerWidth, out = [];
          const clipped = el => { for (let p = el.parentElement; p; p = p.parentElement) {
            if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true; } return false; };
          for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
            if (r.right > W + 0.5 && r.width > 0 && !clipped(el)) out.push(el.tagName + '.' + (el.getAttribute('class') || '').slice(0, 60)); }
          return out.slice(0, 5); }"""
    )
    return [f"{where}: {width}px wide on a {inner}px screen ({' | '.join(culprits)})"]


def settle(page: Page) -> None:
    """Wait until the page shows its own content: the app has taken over and loaded its state."""
    expect(page.locator("h1").first).to_be_visible()
    expect(page.locator("[data-ssr-slot]")).to_have_count(0)
    expect(page.locator("[data-ssr-inert]")).to_have_count(0)
    expect(page.get_by_role("status").filter(has_text=re.compile(r"^Loading|^Checking"))).to_have_count(0)


@pytest.fixture(scope="module")
def people(live_server):
    """A customer with an order and a cart line, an admin, and a product to visit."""
    from discount_deals.models import CartItem, Product, Role
    from discount_deals.models.cart import Cart
    from discount_deals.services.users import add_user
    from sqlmodel import select

    with live_server.session() as session:
        customer = add_user(
            session, password="secret123", role=Role.CUSTOMER, email="axe-customer@example.com",
            username="axecustomer", first_name="Abena", last_name="Owusu",
        )
        admin = add_user(
            session, password="secret123", role=Role.ADMIN, email="axe-admin@example.com",
            username="axeadmin", first_name="Kofi", last_name="Boateng",
        )
        order = insert_order(session, customer)
        product = session.exec(select(Product).where(Product.stock > 0, Product.discount_price != None)).first()  # noqa: E711
        cart = Cart(user_id=customer.id)
        session.add(cart)
        session.flush()
        session.add(CartItem(cart_id=cart.id, product_id=product.id, quantity=1))
    return {"customer": customer, "admin": admin, "order_id": order.id, "product_id": product.id}


def routes(people) -> list[str]:
    return [
        "/",
        "/test-home",
        "/products",
        f"/products/{people['product_id']}",
        "/products/no-such-product",
        "/cart",
        "/favorites",
        "/login",
        "/register",
        "/profile",
        "/checkout",
        "/orders",
        f"/orders/{people['order_id']}",
        "/admin",
        "/admin/delivery-sheet",
        f"/admin/delivery-sheet?order={people['order_id']}",
        "/no/such/page",
    ]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", ["guest", "customer", "admin"])
def test_no_critical_or_serious_violations(page: Page, axe_source, people, role: str, width: int):
    page.set_viewport_size({"width": width, "height": 900})
    if role != "guest":
        sign_in(page, people[role])
    problems: list[str] = []
    for path in routes(people):
        page.goto(path)
        settle(page)
        problems += audit(page, axe_source, f"{role} {width}px {page.url}")
        problems += sideways_scroll(page, f"{role} {width}px {page.url}")
        if path == "/" and width == 320:
            page.get_by_role("button", name="Open menu").click()
            expect(page.get_by_role("dialog", name="Menu")).to_be_visible()
            problems += audit(page, axe_source, f"{role} {width}px mobile menu")
            page.get_by_role("button", name="Close Menu").click()
        if path == "/" and width == 1440:
            page.get_by_role("button", name="Account menu").click()
            problems += audit(page, axe_source, f"{role} {width}px account menu")
            page.keyboard.press("Escape")
        if path == "/admin" and role == "admin":
            for tab in ADMIN_TABS:
                page.get_by_role("tab", name=tab, exact=True).click()
                expect(page.get_by_role("tab", name=tab, exact=True)).to_have_attribute("aria-selected", "true")
                settle(page)
                problems += audit(page, axe_source, f"{role} {width}px admin tab {tab}")
                problems += sideways_scroll(page, f"{role} {width}px admin tab {tab}")
    assert not problems, "\n".join(problems)


def test_admin_overview_fits_a_320px_screen(page: Page, people):
    page.set_viewport_size({"width": 320, "height": 800})
    sign_in(page, people["admin"])
    page.goto("/admin")
    expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("heading", name=re.compile(r"^Low stock"))).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 320


def test_route_changes_move_focus_to_the_heading_and_announce_the_page(page: Page):
    page.goto("/")
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()
    settle(page)  # a click before the app has loaded is an ordinary page load
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Products").click()
    expect(page).to_have_url(re.compile(r"/products$"))
    expect(page.get_by_role("heading", level=1, name="All Products")).to_be_focused()
    expect(page.locator("#route-announcer")).to_have_text("All Products page")
    expect(page.locator("#route-announcer")).to_have_attribute("aria-live", "polite")
    # A filter changes only the query: the focus is not pulled to the heading.
    sort = page.get_by_label("Sort By")
    sort.focus()
    sort.select_option("price-low")
    expect(page).to_have_url(re.compile(r"sort=price-low"))
    expect(page.get_by_text(re.compile(r"^Showing \d+ of \d+ products"))).to_be_visible()
    expect(page.get_by_role("heading", level=1, name="All Products")).not_to_be_focused()


def test_the_header_keeps_cart_and_account_on_one_row_at_320px(page: Page, people):
    """Issue 32: at 320 px the cart and the account menu sat on two rows."""
    page.set_viewport_size({"width": 320, "height": 640})
    sign_in(page, people["customer"])
    page.goto("/")
    header = page.locator("header").first
    cart = header.get_by_role("link", name=re.compile("^Cart"))
    account = header.get_by_role("button", name="Account menu")
    menu = header.get_by_role("button", name="Open menu")
    expect(account).to_be_visible()
    tops = [box["y"] for box in (cart.bounding_box(), account.bounding_box(), menu.bounding_box())]
    assert max(tops) - min(tops) < 4, tops
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 320
    page.get_by_role("button", name="Open menu").click()  # favourites stay a tap away, in the menu
    expect(page.get_by_role("navigation", name="Mobile").get_by_role("link", name=re.compile("^Favorites"))
           ).to_be_visible()
