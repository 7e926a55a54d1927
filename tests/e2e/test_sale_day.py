"""What a click costs the server (issue 23), seen from Chromium's websocket.

A filter, the sort, a search or the pager is one event: the handler shows the new page and puts
its address in the bar (no redirect, no second round of on-load events), and Back returns to the
previous listing. Following a link inside the shop does not redo the header's work (who is
signed in, the cart and favourites badges); a reload does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
import re

from playwright.sync_api import Page, WebSocket, expect

from .conftest import sign_in

EVENT = "42/_event,"
HEADER_STATES = ("___session_state", "___cart_state", "___favorites_state")
BROWSER_STORAGE = {"access_token", "refresh_token", "stored_user", "cart_storage", "favorites_storage", "active_user_id"}


@dataclass
class Frames:
    """The websocket frames a page sends and receives, and the sockets they came on."""
    sent: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    sockets: list[WebSocket] = field(default_factory=list)


def watch(page: Page) -> Frames:
    """The websocket frames the page sends and receives, from now on."""
    frames = Frames()

    def on_socket(socket: WebSocket):
        frames.sockets.append(socket)
        socket.on("framesent", lambda payload: frames.sent.append(payload if isinstance(payload, str) else ""))
        socket.on("framereceived",
                  lambda payload: frames.received.append(payload if isinstance(payload, str) else ""))

    page.on("websocket", on_socket)
    return frames


def events(frames: list[str]) -> list[str]:
    return [json.loads(f[len(EVENT):])[1]["name"].rsplit(".", 1)[-1] for f in frames if f.startswith(EVENT)]


def header_vars(frames: list[str]) -> set[str]:
    """The variables of the header's states that the server sent (names without Reflex's suffix)."""
    names = set()
    for frame in frames:
        if frame.startswith(EVENT):
            for state, values in json.loads(frame[len(EVENT):])[1].get("delta", {}).items():
                if state.endswith(HEADER_STATES):
                    names.update(name.removesuffix("_rx_state_") for name in values)
    return names


def header_done(frame: str) -> bool:
    """The last update of the header's page-load work: the favourites badge marked loaded (the
    storage echo after a navigation also touches that state, so its name alone is not enough)."""
    if not (isinstance(frame, str) and frame.startswith(EVENT)):
        return False
    delta = json.loads(frame[len(EVENT):])[1].get("delta", {})
    return any(state.endswith("___favorites_state") and "loaded_rx_state_" in values for state, values in delta.items())


def header_loaded(frames: Frames, timeout_ms: float = 10_000) -> None:
    """Wait until the page load's header work has reached the browser: it is an on-load event
    of its own, which may end after the page shows."""
    if not any(header_done(frame) for frame in frames.received):
        frames.sockets[-1].wait_for_event("framereceived", predicate=header_done, timeout=timeout_ms)


def listing_ready(page: Page, text: str) -> None:
    expect(page.get_by_text(re.compile(text))).to_be_visible()
    expect(page.locator("main article").first).to_be_visible()


def test_a_sort_a_page_and_a_filter_are_one_event_each_and_back_returns(page: Page):
    sent = watch(page).sent
    page.goto("/products")
    listing_ready(page, r"^Showing 10 of \d+ products \(Page 1 of \d+\)")
    first_name = page.locator("main article h3").first.inner_text()
    sent.clear()

    page.get_by_label("Sort By").select_option("price-high")
    expect(page).to_have_url(re.compile(r"/products\?sort=price-high$"))
    expect(page.locator("main article h3").first).not_to_have_text(first_name)
    highest = page.locator("main article h3").first.inner_text()
    page.get_by_role("button", name="Page 2", exact=True).click()
    expect(page).to_have_url(re.compile(r"/products\?sort=price-high&page=2$"))
    listing_ready(page, r"\(Page 2 of \d+\)")
    page.get_by_label("Price Range").select_option("0-25")
    expect(page).to_have_url(re.compile(r"/products\?price_range=0-25&sort=price-high$"))
    listing_ready(page, r"^Showing \d+ of \d+ products")
    assert events(sent) == ["set_sort", "go_to_page", "set_price_range"]  # nothing else: no redirect round

    page.go_back()  # the router's own navigation: the listing the address names
    expect(page).to_have_url(re.compile(r"/products\?sort=price-high&page=2$"))
    listing_ready(page, r"\(Page 2 of \d+\)")
    expect(page.get_by_label("Price Range")).to_have_value("all")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/products\?sort=price-high$"))
    expect(page.locator("main article h3").first).to_have_text(highest)

    page.goto("/products?sort=price-high&page=2")  # the address in the bar is the page shown
    listing_ready(page, r"\(Page 2 of \d+\)")
    expect(page.get_by_label("Sort By")).to_have_value("price-high")


def test_a_search_is_one_event_and_its_address_can_be_shared(page: Page, live_product):
    product = live_product(name="Zanzibar Clove Tea 50 bags")
    sent = watch(page).sent
    page.goto("/products")
    listing_ready(page, r"^Showing 10 of")
    sent.clear()
    box = page.get_by_placeholder("Search products...").first
    box.fill("zanzibar")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/products\?search=zanzibar$"))
    expect(page.get_by_text('Showing 1 of 1 products for "zanzibar"')).to_be_visible()
    assert events(sent) == ["apply_search"]
    page.reload()
    expect(page.locator("main article").get_by_role("link", name=product.name)).to_be_visible()


def test_enter_after_the_typing_pause_sends_no_second_search(page: Page, live_product):
    """A shopper who stops typing (the listing follows the pause) and then presses Enter: the
    text was sent already, so Enter sends nothing more; typing again makes Enter search again."""
    live_product(name="Kilimanjaro Coffee Beans 250g")
    frames = watch(page)
    page.goto("/products")
    listing_ready(page, r"^Showing 10 of")
    frames.sent.clear()
    box = page.get_by_placeholder("Search products...").first
    if not frames.sockets:  # the listing comes in the first HTML, maybe before the socket opens
        page.wait_for_event("websocket")
    with frames.sockets[-1].expect_event("framesent", predicate=lambda f: events([f]) == ["apply_search"]):
        box.fill("kilimanjaro")  # and the pause: the field submits its form by itself
    expect(page.get_by_text('Showing 1 of 1 products for "kilimanjaro"')).to_be_visible()
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/products\?search=kilimanjaro$"))
    box.fill("kilimanjaro coffee")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/products\?search=kilimanjaro\+coffee$"))
    expect(page.get_by_text('Showing 1 of 1 products for "kilimanjaro coffee"')).to_be_visible()
    assert events(frames.sent) == ["apply_search", "apply_search"]


def test_links_inside_the_shop_skip_the_headers_work_and_a_reload_redoes_it(page: Page, shopper, live_server,
                                                                            live_product):
    from discount_deals.services import cart as cart_service

    user, _password = shopper()
    product = live_product(name="Sale Day Kettle 1.7L")
    sign_in(page, user)
    page.goto("/products?search=kettle")
    expect(page.get_by_text('for "kettle"')).to_be_visible()
    expect(page.get_by_role("link", name="Cart", exact=True)).to_be_visible()  # an empty cart: no count
    frames = watch(page)  # frames of the socket opened by the next page load only
    page.reload()
    listing_ready(page, r'for "kettle"')
    header_loaded(frames)
    sent, received = frames.sent, frames.received
    received.clear()
    sent.clear()

    page.locator("main article").get_by_role("link", name=product.name).first.click()
    expect(page.get_by_role("heading", level=1, name=product.name)).to_be_visible()
    expect(page.get_by_role("button", name=f"Add to Cart: {product.name}")).to_be_enabled()
    assert events(sent) == ["update_vars_internal", "on_load_internal"]  # the router's navigation
    # Only the browser's own storage, which Reflex echoes after every navigation's update_vars_internal.
    assert header_vars(received) <= BROWSER_STORAGE

    with live_server.session() as session:  # the same account adds a line on another device
        cart_service.add_item(session, user, product.id, 2)
    page.get_by_role("link", name="Products", exact=True).first.click()
    listing_ready(page, r"^Showing")
    expect(page.get_by_role("link", name="Cart", exact=True)).to_be_visible()  # this visit's badge
    page.reload()
    expect(page.get_by_role("link", name="Cart, 2 items")).to_be_visible()


def test_the_web_workers_run_on_uvloop(live_server):
    """The launcher hands Granian uvloop: every UI event crosses the event loop several times,
    and on asyncio's own loop one worker's core was the limit at 600 shoppers (bench/ui_load.py)."""
    from pathlib import Path

    web_workers = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == live_server.process_group:
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            arguments = (proc / "cmdline").read_bytes().split(b"\0")
            if int(fields[2]) == live_server.process_group and b"serve" in arguments:
                web_workers.append((proc / "maps").read_text())
        except (OSError, IndexError, ValueError):
            continue
    assert web_workers, "no web worker found under the live server"
    assert all("uvloop" in maps for maps in web_workers)


def test_a_page_whose_load_fills_the_header_redoes_its_work_on_a_reload_and_checks_the_session(
        page: Page, shopper, live_server, live_product):
    """Home, the listing and a product page do the header's work inside their own on-load event
    (one event fewer a navigation): a reload there still shows what another device changed, and a
    session that no longer works still goes to /login."""
    from discount_deals.services import cart as cart_service
    from discount_deals.services import catalog
    from discount_deals.services import favourites as favourites_service

    user, _password = shopper()
    product = live_product(name="Sale Day Rice Cooker 1.8L")
    with live_server.session() as session:
        shoprite = catalog.brand_counts(session, ["shoprite"])["shoprite"]
    sign_in(page, user)
    # What each page's own load puts on screen, so the page's work is checked as well as the header's.
    pages = ((f"/products/{product.id}", page.get_by_role("heading", level=1, name=product.name)),
             ("/products?search=cooker", page.get_by_text('for "cooker"')),
             ("/", page.get_by_text(f"{shoprite} products", exact=True)))
    for count, (address, shown) in enumerate(pages, start=1):
        page.goto(address)
        expect(shown).to_be_visible()
        with live_server.session() as session:  # the same account, on another device
            cart_service.add_item(session, user, product.id, 1)
            if count == 1:
                favourites_service.add_favourite(session, user, product.id)
        page.reload()
        expect(shown).to_be_visible()
        expect(page.get_by_role("link", name=f"Cart, {count} item{'s' if count > 1 else ''}")).to_be_visible()
        expect(page.get_by_role("link", name="Favorites, 1 saved item")).to_be_visible()

    page.evaluate("() => { localStorage.setItem('accessToken', 'not-a-token'); "
                  "localStorage.setItem('refreshToken', 'nor-this'); }")
    page.goto("/products?search=cooker")
    # The way back keeps the search (probe 78: a back-office link's tab was lost the same way).
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/products%3Fsearch%3Dcooker$"))
    expect(page.get_by_role("heading", name="Welcome Back")).to_be_visible()
