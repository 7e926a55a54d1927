"""Issue 20 item 4: the product card and the product page show the same, whoever rendered them.

They are written twice: as HTML the server puts in the first HTML (``web/first_html/markup.py``)
and as Reflex components (``components/product_card.py``, ``pages/product.py``). One definition
for both would mean rendering Reflex components on the server for each request, which Reflex
0.10 does not do (it pre-renders static routes once, at build time, through React Router in
Node), or writing the components as raw HTML, which loses their events and live state. So this
test holds the two together where it matters, in what a shopper sees: for products covering
every branch of the markup (discounted, scheduled discount, expired discount, out of stock, no
brand, long name), it loads each page with JavaScript off (the browser shows the server's HTML,
as a phone does before the app starts) and on (after hydration the Reflex components render),
reads each product's shown fields and compares them: name, link, picture, brand, category,
rating, price, struck-through price, saving, discount badge, stock badge and the add-to-cart
button (text, accessible name, colour); on the product page also the breadcrumb, description,
tags, share link and quantity stepper. Elements are found by the classes both renderers take
from ``components/card_style.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from discount_deals.components import card_style as S

from .test_product_page import hydrated

# What a shopper sees of one product, card or page (``root`` is its <article>); ``c`` maps
# names to the classes of card_style. Each field is text as shown, an attribute, or null when absent.
SHOWN = """([root, c]) => {
    const has = (el, classes) => classes.split(' ').every(t => el.classList.contains(t));
    const find = classes => [root, ...root.querySelectorAll('*')].find(el => has(el, classes)) || null;
    const text = el => el ? el.textContent.trim() : null;
    const attr = (el, name) => el ? el.getAttribute(name) : null;
    const button = find(c.button);
    const stock = find(c.stock);
    const image = root.querySelector('img');
    const imageLink = root.querySelector('a:has(img)');
    const nameLink = root.querySelector('h1 a, h3 a');
    const breadcrumb = root.querySelector('nav[aria-label="Breadcrumb"]');
    const share = root.querySelector('a[href^="https://wa.me/"]');
    return {
        name: text(root.querySelector('h1, h3')),
        link: attr(nameLink, 'href'),
        imageLink: attr(imageLink, 'href'),
        image: [attr(image, 'src'), attr(image, 'alt')],
        brand: text(find(c.brand)),
        category: text(find(c.category)),
        rating: [text(find(c.starsOn)), text(find(c.starsOff)), text(find(c.rating)),
                 text(find(c.starsRow) && find(c.starsRow).querySelector('.sr-only'))],
        price: text(find(c.price)),
        was: text(root.querySelector('s')),
        saving: text(find(c.save)),
        badge: text(find(c.badge)),
        stock: [text(stock), stock && has(stock, c.stockOut) ? 'out' : stock && has(stock, c.stockIn) ? 'in' : null],
        button: [text(button), attr(button, 'aria-label'), button && getComputedStyle(button).backgroundColor],
        favourite: attr(root.querySelector('button[aria-pressed]'), 'aria-label'),
        breadcrumb: breadcrumb && [...breadcrumb.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href')]),
        description: text(root.querySelector('p.' + c.description.split(' ')[0])),
        tags: [...root.querySelectorAll('ul[aria-label="Tags"] li')].map(li => li.textContent),
        share: attr(share, 'href'),
        stepper: !!root.querySelector('[role="group"][aria-label="Quantity"]'),
    };
}"""


def _enabled_look(classes: str) -> str:
    """A button's classes less its ``disabled:`` ones (the server's inert buttons leave them out)."""
    return " ".join(token for token in classes.split() if not token.startswith("disabled:"))


CARD_CLASSES = {
    "button": _enabled_look(S.ADD_BUTTON), "stock": S.STOCK_BASE, "stockIn": S.STOCK_IN, "stockOut": S.STOCK_OUT, "brand": S.BRAND,
    "category": S.CATEGORY, "starsOn": S.STAR_ON, "starsOff": S.STAR_OFF, "rating": S.RATING, "starsRow": S.STARS_ROW,
    "price": S.PRICE, "save": S.SAVE, "badge": S.DISCOUNT_BADGE, "description": S.DESCRIPTION,
}
DETAIL_CLASSES = {
    **CARD_CLASSES, "button": _enabled_look(S.BUY_BUTTON), "price": S.DETAIL_PRICE, "badge": S.DETAIL_PERCENT,
    "description": S.DETAIL_DESCRIPTION,
}


@pytest.fixture
def products(live_product):
    """One product per branch of the markup, named so that their order is known."""
    now = datetime.now(UTC)
    tag = f"{datetime.now().timestamp():.0f}"
    long_name = (
        f"Parity F {tag} Extra-Large Family Pack of Golden Jasmine Fragrant Long Grain Rice & 'Gold' <Premium> "
        "Selection, Twelve Bags of Five Kilograms Each, Imported"
    )
    return [
        live_product(f"Parity A {tag} Discounted", "38.50", "26.95", stock=4, rating=4.5, tags=["rice", "staples"]),
        live_product(f"Parity B {tag} Scheduled", "25.00", "10.00", discount_start=now + timedelta(days=3), rating=3.6),
        live_product(f"Parity C {tag} Expired", "25.00", "10.00", discount_start=now - timedelta(days=9),
                     discount_end=now - timedelta(days=2), rating=0.0),
        live_product(f"Parity D {tag} Out of stock", "12.00", "9.00", stock=0),
        live_product(f"Parity E {tag} No brand", "5.00", brand="", description="Plain & simple <b>bold</b>"),
        live_product(long_name, "99.99", "49.99", stock=1),
    ]


def _server_page(browser: Browser, browser_context_args: dict) -> Page:
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    return context.new_page()


def _shown_products(page: Page, selector: str, classes: dict) -> dict[str, dict]:
    shown = [page.evaluate(SHOWN, [handle, classes]) for handle in page.locator(selector).element_handles()]
    return {fields["name"]: fields for fields in shown}


def _compare(server: dict[str, dict], app: dict[str, dict], where: str) -> None:
    assert list(server) == list(app), where
    for name, fields in server.items():
        differences = {key: (value, app[name][key]) for key, value in fields.items() if value != app[name][key]}
        assert not differences, f"{where}: {name}: (server, app) differ in {differences}"


def test_cards_and_product_pages_show_the_same_before_and_after_the_app_takes_over(
    page: Page, browser: Browser, browser_context_args, live_product, products
):
    hosts = [live_product(price="1.00", related_products=[p.id for p in group]) for group in (products[:4], products[4:])]
    server_page = _server_page(browser, browser_context_args)
    try:
        for host in hosts:  # the cards: a product page's related products
            path, cards = f"/products/{host.id}", 'section[aria-label="Related products"] article'
            server_page.goto(path)
            expect(server_page.locator("[data-ssr-slot] " + cards).first).to_be_visible()
            page.goto(path)
            hydrated(page)
            expect(page.locator(cards).first).to_be_visible()
            _compare(_shown_products(server_page, cards, CARD_CLASSES), _shown_products(page, cards, CARD_CLASSES), path)
        for product in products:  # the product pages
            path, article = f"/products/{product.id}", "main article >> nth=0"
            server_page.goto(path)
            expect(server_page.locator("[data-ssr-slot] h1")).to_have_text(product.name)
            page.goto(path)
            hydrated(page)
            server = _shown_products(server_page, article, DETAIL_CLASSES)
            app = _shown_products(page, article, DETAIL_CLASSES)
            _compare(server, app, path)
            _check_prices(product, server[product.name])
    finally:
        server_page.context.close()


def _check_prices(product, shown: dict) -> None:
    """What the comparison stands on: each case shows what services.pricing says."""
    name = product.name
    if "Scheduled" in name or "Expired" in name:  # a discount outside its window is not shown
        assert (shown["price"], shown["was"], shown["badge"], shown["saving"]) == ("$25.00", None, None, None), name
    if "Discounted" in name:
        assert (shown["price"], shown["was"], shown["badge"]) == ("$26.95", "$38.50", "-30%"), name
        assert shown["saving"] == "You save $11.55 (30%)" and shown["stepper"] and shown["tags"] == ["rice", "staples"]
    if "Out of stock" in name:
        assert shown["stock"] == ["Out of stock", "out"] and shown["button"][0] == "Out of Stock" and not shown["stepper"]
    if "No brand" in name:
        assert shown["brand"] == "" and shown["description"] == "Plain & simple <b>bold</b>"
