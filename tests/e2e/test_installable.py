"""Installable and usable offline (issue 31), and the page on a phone: the web app manifest and
service worker pass Chrome's installability checks (what Lighthouse's installable audit asked
the browser); offline, the pages seen show with "You're offline" and what was typed stays; back
online the shop reconnects by itself. Toasts sit at the bottom, cover neither the header nor the
cart's checkout bar, replace their own kind and can be closed; the first-HTML pages hydrate
without a mismatch; nothing scrolls sideways at 320 px."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from ..conftest import ROOT
from .account_helpers import settled_box, toast
from .conftest import sign_in, unique
from .test_checkout import fill_cart
from .test_product_page import hydrated

PHONE = {"width": 390, "height": 844}
NARROW = {"width": 320, "height": 640}
SHOTS = ROOT / "test-results" / "screenshots"


def worker_ready(page: Page) -> None:
    """The service worker has installed (it kept the storefront's code) and controls the page."""
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => !!navigator.serviceWorker.controller")


@pytest.fixture
def installed(browser_type, browser_type_launch_args, base_url, tmp_path):
    """A browser profile of its own (not incognito: Chrome installs apps only from a profile)."""
    context = browser_type.launch_persistent_context(
        str(tmp_path / "profile"), **browser_type_launch_args, base_url=base_url, viewport=PHONE,
        service_workers="allow")
    yield context
    context.close()


def test_the_shop_is_installable(installed, live_server):
    page = installed.new_page()
    page.goto("/")
    worker_ready(page)
    cdp = installed.new_cdp_session(page)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == []
    parsed = httpx.get(f"{live_server.url}/manifest.webmanifest", timeout=30).json()
    assert parsed["name"] == "Discount Deals" and parsed["start_url"] == "/" and parsed["display"] == "standalone"
    assert {icon["sizes"] for icon in parsed["icons"]} >= {"192x192", "512x512"}
    for icon in parsed["icons"]:
        assert httpx.get(f"{live_server.url}{icon['src']}", timeout=30).headers["content-type"] == "image/png"


def test_offline_the_pages_seen_stay_readable_and_the_shop_reconnects(installed, live_product):
    item = live_product(name=unique("Offline Okra"), price="7.50")
    page = installed.new_page()
    page.goto("/")
    worker_ready(page)
    page.goto(f"/products?search={item.name}")
    expect(page.locator("main article").filter(has_text=item.name)).to_be_visible()
    page.locator("main article").filter(has_text=item.name).locator("h3 a").click()
    expect(page.get_by_role("heading", level=1, name=item.name)).to_be_visible()
    hydrated(page)
    # Opened by the app (no page load): the worker is asked to keep its first HTML as well.
    page.evaluate("""(path) => {
        const look = () => caches.open('dd-pages').then(c => c.match(path)).then(found => {
          if (found) document.body.setAttribute('data-test-kept', path); else setTimeout(look, 100);
        });
        look();
    }""", f"/products/{item.id}")
    expect(page.locator("body")).to_have_attribute("data-test-kept", f"/products/{item.id}")
    bar = page.locator("#offline-bar")
    expect(bar).to_be_hidden()

    installed.set_offline(True)
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("You're offline")
    search = page.get_by_role("combobox", name="Search all products")
    search.fill("okra soup")  # typed while offline: it stays
    page.get_by_role("link", name="Products", exact=True).first.click()  # a page seen before
    expect(page).to_have_url(re.compile(r"/products$"))
    expect(page.locator("#offline-bar")).to_be_visible()
    page.go_back()
    expect(page.get_by_role("heading", level=1, name=item.name)).to_be_visible()  # its kept copy
    expect(page.get_by_text("$7.50").first).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "offline-product-390.png"))
    page.goto("/favorites")  # never seen: the app's shell, saying it is offline
    expect(page.locator("#offline-bar")).to_be_visible()
    page.go_back()

    search = page.get_by_role("combobox", name="Search all products")
    search.fill("okra")
    installed.set_offline(False)
    expect(page.locator("#offline-bar")).to_be_hidden(timeout=30_000)  # reconnected by itself
    expect(search).to_have_value("okra")  # what was typed while offline stays
    page.get_by_role("button", name=f"Add to Cart: {item.name}").click()
    expect(toast(page, f"{item.name} has been added to your cart.")).to_be_visible()


# --- toasts ------------------------------------------------------------------------------------------


def overlaps(a, b) -> bool:
    return bool(a and b) and not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                                  or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_toasts_sit_above_the_checkout_bar_replace_their_kind_and_close(page: Page, live_user, live_product,
                                                                       live_server):
    user, _ = live_user()
    item = live_product(name=unique("Toast Tea"), price="3.00", stock=9)
    fill_cart(live_server, user, (item, 1))
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto("/cart")
    plus = page.get_by_role("button", name=f"Increase quantity of {item.name}")
    plus.click()
    done = toast(page, "Quantity updated successfully!")
    expect(done).to_be_visible()
    box = settled_box(done)
    assert not overlaps(box, page.locator("header").bounding_box())
    assert not overlaps(box, page.locator("#checkout-bar").bounding_box())
    assert box["y"] + box["height"] <= page.locator("#checkout-bar").bounding_box()["y"]

    expect(plus).to_be_enabled()
    page.get_by_role("button", name=f"Decrease quantity of {item.name}").click()  # the same kind: replaced
    expect(page.get_by_label("Quantity", exact=True)).to_have_text("1")
    expect(page.locator("[data-sonner-toast]").filter(has_text="Quantity updated successfully!")).to_have_count(1)
    expect(page.locator("[data-sonner-toast]")).to_have_count(1)

    page.locator("[data-sonner-toast]").first.hover()
    page.locator("[data-sonner-toast]").first.get_by_role("button", name="Close toast").click()
    expect(page.locator("[data-sonner-toast]")).to_have_count(0)


# --- the first HTML hydrates; nothing scrolls sideways -------------------------------------------------


def test_the_server_filled_pages_hydrate_without_a_mismatch(page: Page, live_product):
    item = live_product(name=unique("Hydrated Honey"))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for path in ("/", "/products", f"/products/{item.id}", "/test-home"):
        page.goto(path)
        hydrated(page)
        expect(page.locator("main").first).to_be_visible()
    assert errors == []
    # The style sheet came inside the page: its file was never fetched for these pages.
    sheets = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name).filter(n => n.endsWith('.css'))")
    assert sheets == []


def test_nothing_scrolls_sideways_at_320_px(page: Page, live_user, live_product, live_server):
    user, _ = live_user()
    item = live_product(name=unique("Narrow Noodles With A Rather Long Name For A Small Phone"), stock=4)
    fill_cart(live_server, user, (item, 2))
    page.set_viewport_size(NARROW)
    sign_in(page, user)
    for path, ready in [
        ("/", page.get_by_role("heading", level=1)),
        ("/products", page.locator("main article").first),
        (f"/products/{item.id}", page.get_by_role("heading", level=1, name=item.name)),
        ("/cart", page.get_by_role("button", name="Proceed to Checkout")),
        ("/checkout", page.get_by_role("button", name="Place order")),
        ("/orders", page.get_by_role("heading", name="My Orders")),
        ("/profile", page.get_by_role("heading", level=1)),
    ]:
        page.goto(path)
        expect(ready).to_be_visible()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= NARROW["width"], f"{path} is {width} px wide"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "checkout-320.png"), full_page=True)
