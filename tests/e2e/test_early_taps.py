"""A tap before the app is live is kept (the shop on a phone network).

On 2G a product page's words and its Add to Cart button show about 2 s after the link is opened,
but the app behind them is live only after its scripts (about 150 KB) and the websocket's
handshake: 11.3 s, measured cold through the proxy at 390 × 844. Until then the server's buttons
wait, disabled, and a tap on them did nothing at all. Now the page's boot loader keeps the tap,
shows the button busy, and taps the app's button of the same name once it is there.

The shop's answers are held (``slow_network.hold``) from the moment the page is parsed, so the
app cannot go live before the tap, whatever the machine's speed.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from discount_deals.web.first_html.shell import boot_loader

from ..support.slow_network import PROFILES
from .account_helpers import toast
from .conftest import unique
from .test_slow_network import PHONE, badge


def tap(page: Page, button: Locator) -> None:
    """A thumb's tap where ``button`` is (Playwright's click would wait for it to be enabled)."""
    box = button.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def parsed_and_held(page: Page, network, path: str) -> None:
    """``path`` opened on 2G, shown from the server's HTML, and the shop's answers then held."""
    page.set_viewport_size(PHONE)
    network.use(PROFILES["2g"])
    page.goto(path, wait_until="domcontentloaded")
    network.hold()


def live_again(network) -> None:
    network.use(PROFILES["loopback"])
    network.release()


def test_add_to_cart_tapped_before_the_app_is_live_adds_once_when_it_is(page: Page, slow_network, live_product):
    item = live_product(name=unique("Early Gari 1kg"), stock=9)
    parsed_and_held(page, slow_network, f"/products/{item.id}")
    waiting = page.locator(f'[data-ssr-slot] button[aria-label="Add to Cart: {item.name}"]')
    expect(waiting).to_be_disabled()

    tap(page, waiting)
    expect(waiting).to_have_attribute("aria-busy", "true")  # the shopper sees the tap was taken
    tap(page, waiting)  # a second tap on a waiting button is not a second one
    live_again(slow_network)

    expect(toast(page, f"{item.name} has been added to your cart.")).to_be_visible(timeout=30_000)
    expect(badge(page, "Cart")).to_have_accessible_name("Cart, 1 item")
    expect(page.get_by_role("button", name=f"Add to Cart: {item.name}")).not_to_have_attribute("aria-busy", "true")


def test_a_heart_on_the_listing_and_the_header_menu_tapped_early_are_done_once_live(page: Page, slow_network):
    parsed_and_held(page, slow_network, "/products")
    heart = page.locator("[data-ssr-slot] article button[aria-label$=' to favorites']").first
    menu = page.get_by_role("button", name="Account menu")  # the page's own control, not a slot's
    expect(heart).to_be_disabled()
    expect(menu).to_be_disabled()
    name = heart.get_attribute("aria-label").removeprefix("Add ").removesuffix(" to favorites")

    tap(page, heart)
    tap(page, menu)
    expect(heart).to_have_attribute("aria-busy", "true")
    expect(menu).to_have_attribute("aria-busy", "true")
    live_again(slow_network)

    expect(page.get_by_role("button", name=f"Remove {name} from favorites")).to_have_attribute(
        "aria-pressed", "true", timeout=30_000)
    expect(badge(page, "Favorites")).to_have_accessible_name("Favorites, 1 saved item")
    expect(menu).not_to_have_attribute("aria-busy", "true")
    expect(page.get_by_role("link", name="Login")).to_be_visible()  # the guest's account menu opened


def test_a_scroll_that_starts_on_a_waiting_button_is_no_tap(page: Page, slow_network, live_product):
    item = live_product(name=unique("Early Kenkey"), stock=4)
    parsed_and_held(page, slow_network, f"/products/{item.id}")
    waiting = page.locator(f'[data-ssr-slot] button[aria-label="Add to Cart: {item.name}"]')
    box = waiting.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 80, steps=4)
    page.mouse.up()
    expect(waiting).not_to_have_attribute("aria-busy", "true")
    live_again(slow_network)
    expect(page.get_by_role("button", name=f"Add to Cart: {item.name}").and_(
        page.locator(":not([data-ssr-slot] *)"))).to_be_enabled(timeout=30_000)
    expect(badge(page, "Cart")).to_have_accessible_name("Cart")


def test_early_taps_are_done_in_their_order_and_each_plus_counts(page: Page, slow_network, live_product):
    item = live_product(name=unique("Early Palm Oil"), stock=9)
    parsed_and_held(page, slow_network, f"/products/{item.id}")
    slot = page.locator("[data-ssr-slot]")
    plus = slot.get_by_role("button", name="Increase quantity")
    tap(page, plus)
    tap(page, plus)
    tap(page, slot.get_by_role("button", name=f"Add to Cart: {item.name}"))
    live_again(slow_network)

    expect(toast(page, f"{item.name} has been added to your cart.")).to_be_visible(timeout=30_000)
    expect(badge(page, "Cart")).to_have_accessible_name("Cart, 3 items")  # + + then Add: three, not one


def test_an_early_tap_the_live_page_has_no_button_for_is_dropped(page: Page, slow_network, live_product):
    item = live_product(name=unique("Early Saved Tea"), stock=9)
    page.set_viewport_size(PHONE)
    page.goto(f"/products/{item.id}")
    page.get_by_role("button", name=f"Add {item.name} to favorites").click()  # saved on an earlier visit
    expect(badge(page, "Favorites")).to_have_accessible_name("Favorites, 1 saved item")

    parsed_and_held(page, slow_network, f"/products/{item.id}")
    tap(page, page.locator(f'[data-ssr-slot] button[aria-label="Add {item.name} to favorites"]'))
    live_again(slow_network)
    saved = page.get_by_role("button", name=f"Remove {item.name} from favorites")
    expect(saved).to_have_attribute("aria-pressed", "true", timeout=30_000)  # the tap had nothing to do
    saved.click()  # the shopper changes their mind: the old tap must not save it again
    slow_network.wait_quiet()
    expect(page.get_by_role("button", name=f"Add {item.name} to favorites")).to_have_attribute("aria-pressed", "false")
    expect(badge(page, "Favorites")).to_have_accessible_name("Favorites")


KEPT_TAP_PAGE = """<!doctype html><body>
<div data-ssr-slot><button disabled data-ssr-tap aria-label="Add Tea to favorites">&#9825;</button></div>
<script>%s</script></body>"""


def test_a_kept_tap_is_dropped_when_the_apps_button_is_renamed_before_it_is_enabled(page: Page):
    """Found by CI on a loaded machine (stop 47): the app's heart appeared as "Add ..." and
    disabled, so the kept tap was bound to it; the saved favourites then renamed the same element
    "Remove ...". The shopper tapped Remove, the heart turned back into "Add ..." and enabled,
    and the old tap saved the favourite again. Here the app is played by the page itself
    (React marks a hydrated element by its props' key), so the order of events is certain."""
    page.set_viewport_size(PHONE)
    page.set_content(KEPT_TAP_PAGE % boot_loader([], ""))
    waiting = page.locator("[data-ssr-slot] button")
    tap(page, waiting)
    expect(waiting).to_have_attribute("aria-busy", "true")
    page.evaluate("""() => {
        window.kept = document.querySelector('[data-ssr-slot] button');
        window.clicks = 0;
        const heart = document.createElement('button');
        heart.setAttribute('aria-label', 'Add Tea to favorites');
        heart.disabled = true;  // hydrated, the favourites not known yet
        heart['__reactProps$test'] = {};
        heart.addEventListener('click', () => { window.clicks += 1; });
        document.body.appendChild(heart);
        document.querySelector('[data-ssr-slot]').remove();
        window.heart = heart;
    }""")
    page.evaluate("""() => {
        window.heart.setAttribute('aria-label', 'Remove Tea from favorites');  // they were saved
        window.heart.disabled = false;
    }""")
    page.wait_for_function("() => !window.kept.hasAttribute('aria-busy')")  # the tap is settled
    assert page.evaluate("window.clicks") == 0
