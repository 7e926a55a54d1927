"""The first HTML of /, /test-home, /products and /products/{id}, with the data already in it.

Each function takes a Session (the caller owns it) and the public base URL and returns the
status, the page and the hashes of its inline scripts, or None when there is no production
build to fill (the request then goes on to the static files as before). Every price shown or
advertised (cards, the product, its description, Open Graph price and JSON-LD offer) is the one
``services.pricing.product_price`` gives now, through ``display.product_view`` where it is text.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from collections.abc import Mapping
from urllib.parse import quote, urlsplit

from sqlmodel import Session

from ... import routes
from ...display import (
    ProductView,
    product_view,
    review_item,
    review_summary_text,
    whatsapp_chat_url,
    whatsapp_share_url,
)
from ...models import Category, Product
from ...page_slots import SLOT_BRAND_COUNT, SLOT_FEATURED, SLOT_LISTING, SLOT_LISTING_COUNT, SLOT_PRODUCT
from ...server.plugins import PRODUCT_SHELL_PATH
from ...services import NotFound, catalog, reviews
from ...services.moments import as_utc
from ...services.pricing import product_price
from ...services.money import money_str
from ...services.catalog.related import related_products
from ...config.settings import get_settings
from . import head as heads
from . import markup
from .shell import Fill, Shell, fill_page, load_shell

BRANDS_SHOWN = ("shoprite", "melcom")  # the home page's "Shop by Brand" tiles
HOME_DESCRIPTION = (
    "Discover amazing deals: discounted products from top retailers in Ghana such as Shoprite and Melcom, "
    "all in one place. Compare, save and shop smarter every day."
)
PRODUCTS_DESCRIPTION = "Browse every discounted product from Shoprite, Melcom and more: search, filter and sort."
NOT_FOUND_TITLE = "Page not found | Discount Deals"
# The newest reviews a product's first HTML shows (the page's own first page of them).
REVIEWS_SHOWN = 5
# Query parameters of /products that change the listing; any of them means "not the default listing".
LISTING_PARAMS = ("search", "category", "brand", "price_range", "sort", "page")


@dataclasses.dataclass(frozen=True)
class Page:
    status: int
    html: str
    script_hashes: tuple[str, ...] = ()  # of every inline script of ``html``, for its policy


def _page(status: int, shell: Shell, what: Fill) -> Page:
    filled = fill_page(shell, what)
    return Page(status, filled.html, filled.script_hashes)


def _site_head(base: str, path: str, title: str, description: str) -> str:
    return heads.render(
        heads.Head(title=title, description=description, url=base + path, image=base + heads.DEFAULT_IMAGE),
        include_description=False,
    )


def _featured_grid(session: Session) -> str:
    featured = [product_view(p, c) for p, c in catalog.featured_products(session, limit=4)]
    if not featured:
        return '<p class="text-gray-600">No featured deals right now.</p>'
    return markup.product_grid(featured)


def home(session: Session, base: str) -> Page | None:
    shell = load_shell(routes.HOME)
    if shell is None:
        return None
    counts = catalog.brand_counts(session, list(BRANDS_SHOWN))
    slots = {SLOT_FEATURED: _featured_grid(session)}
    slots.update({f"{SLOT_BRAND_COUNT}-{brand}": markup.brand_count(counts.get(brand, 0)) for brand in BRANDS_SHOWN})
    head = _site_head(base, "/", "Discount Deals | Discover Amazing Deals", HOME_DESCRIPTION)
    return _page(200, shell, Fill(slots=slots, head=head))


def sample_home(session: Session, base: str) -> Page | None:
    shell = load_shell(routes.TEST_HOME)
    if shell is None:
        return None
    head = _site_head(base, routes.TEST_HOME, "Discount Deals", HOME_DESCRIPTION)
    return _page(200, shell, Fill(slots={SLOT_FEATURED: _featured_grid(session)}, head=head))


def is_default_listing(query: Mapping[str, str]) -> bool:
    """True when /products shows its default listing (first page, by name, no filter)."""
    for key in LISTING_PARAMS:
        value = (query.get(key) or "").strip()
        if key == "sort" and value in ("", "name"):
            continue
        if key == "page" and value in ("", "1"):
            continue
        if value:
            return False
    return True


def products(session: Session, base: str, query: Mapping[str, str]) -> Page | None:
    shell = load_shell(routes.PRODUCTS)
    if shell is None:
        return None
    head = _site_head(base, routes.PRODUCTS, "All Products | Discount Deals", PRODUCTS_DESCRIPTION)
    slots: dict[str, str] = {}
    if is_default_listing(query):
        page = catalog.list_products(session, catalog.ListingQuery(ordering="name", page_size=get_settings().page_size))
        views = [product_view(p, c) for p, c in page.items]
        slots[SLOT_LISTING_COUNT] = markup.showing_text(len(views), page.count, 1, page.total_pages)
        if views:
            slots[SLOT_LISTING] = markup.product_grid(views)
    # Filtered listings keep the skeleton: the app's own query (and ordering) fills them.
    return _page(200, shell, Fill(slots=slots, head=head))


def product(session: Session, base: str, product_id: str) -> Page | None:
    """A product's page; 404 (with the not-found message) for an unknown or hidden product."""
    shell = load_shell(PRODUCT_SHELL_PATH)
    if shell is None:
        return None
    try:
        item, category = catalog.get_product(session, product_id)
    except NotFound:
        return _page(404, shell, _not_found(base, product_id))
    view = product_view(item, category)
    url = base + routes.product_path(item.id)
    head = _product_head(item, category, view, url, base)
    body = markup.product_detail(
        view,
        tags=list(item.tags or []),
        category_href=routes.category_path(category.slug) if category else "",
        whatsapp_url=whatsapp_share_url(item.name, view.price_text, url),
        chat_url=whatsapp_chat_url(f"Hello, I have a question about {item.name}: {url}"),
        related=[product_view(p, c) for p, c in related_products(session, item)],
        reviews=_reviews(session, item),
    )
    what = Fill(
        slots={SLOT_PRODUCT: body},
        head=heads.render(head, include_description=True),
        title=head.title,
        shell_path=PRODUCT_SHELL_PATH,
        path=routes.product_path(item.id),
        script_hashes=heads.script_hashes(head),
    )
    return _page(200, shell, what)


def _reviews(session: Session, item: Product) -> str:
    found = reviews.product_reviews(session, item.id, limit=REVIEWS_SHOWN)
    return markup.reviews_section(
        found.rating, review_summary_text(found.rating, found.review_count),
        [review_item(review) for review in found.reviews], found.review_count > REVIEWS_SHOWN,
    )


def _not_found(base: str, product_id: str) -> Fill:
    head = heads.Head(
        title=NOT_FOUND_TITLE,
        description="The page you are looking for does not exist or has moved.",
        url=base + routes.PRODUCTS,
        image=base + heads.DEFAULT_IMAGE,
        noindex=True,
    )
    return Fill(
        slots={SLOT_PRODUCT: markup.not_found()},
        head=heads.render(head, include_description=True),
        title=NOT_FOUND_TITLE,
        shell_path=PRODUCT_SHELL_PATH,
        path=routes.product_path(quote(product_id, safe="")),
    )


def _product_head(item: Product, category: Category | None, view: ProductView, url: str, base: str) -> heads.Head:
    """What a product's page tells link previews and search engines: its price now, as
    ``services.pricing`` has it (the discount only inside its window)."""
    currency = get_settings().currency.code
    image = view.image_url if urlsplit(view.image_url).scheme.lower() in ("http", "https") else base + view.image_url
    now = product_price(item)
    price = money_str(now.unit_price)
    # A sale price holds until its window closes (search engines show no stale deal past it): the
    # last day it is on, as the window's end is not (a sale ending at midnight ends the day before).
    closes = as_utc(now.changes_at) - timedelta(microseconds=1) if now.discount_active and now.changes_at else None
    until = closes.date().isoformat() if closes else ""
    saving = f" (was {view.original_text}, save {view.discount_percent}%)" if view.has_discount else ""
    json_ld = heads.product_json_ld(
        url=url,
        name=item.name,
        description=item.description or item.name,
        image=image,
        product_id=item.id,
        brand=item.brand or "",
        category=category.name if category else "",
        price=price,
        currency=currency,
        in_stock=item.stock > 0,
        price_valid_until=until,
    )
    if item.review_count:
        json_ld["aggregateRating"] = heads.aggregate_rating(item.rating, item.review_count)
    return heads.Head(
        title=f"{item.name} | Discount Deals",
        description=heads.shorten(f"{item.name} for {view.price_text}{saving} at Discount Deals. {item.description}"),
        url=url,
        image=image,
        image_alt=item.name,
        og_type="product",
        json_ld=json_ld,
        extra_meta=[("product:price:amount", price), ("product:price:currency", currency)],
    )
