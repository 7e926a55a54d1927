"""Storefront views rendered once and shared by every tab of this worker (issue 23).

On a sale day most shoppers look at the same few pages (page 1 of /products, the big
categories, the popular searches, the deals of the day). A listing page's product cards, count
and page total, the home pages' featured cards and a product page's card and related products
are kept here, keyed by the query and remembered with the catalogue version they were rendered
at (it changes with every listing-relevant write, see ``services.catalog.catalogue_version``)
and for at most ``DD_LISTING_CACHE_SECONDS`` (30 s). Selling out and coming back in stock change
the version (so "Out of stock" shows at once); other stock changes do not, so a card's "n in
stock" may be that old (adding to the cart always checks the stock). The version itself is read at most once a second per worker, so an edit shows within a second.
Tabs keep references to the shared, immutable cards, so a tab's state stays small.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...db import session_scope
from ... import routes
from ...display import ProductView, product_view
from ...services import catalog
from ...services.catalog import FacetValue, ListingQuery
from ...services.catalog.related import related_products
from ...config.settings import get_settings


@dataclass(frozen=True)
class ListingPage:
    products: tuple[ProductView, ...]
    count: int
    total_pages: int
    corrected_query: str = ""  # the search corrected for typos, when it was


@dataclass(frozen=True)
class ListingFacets:
    """How many products each filter choice leaves, every other filter applied."""

    category: tuple[FacetValue, ...] = ()
    brand: tuple[FacetValue, ...] = ()
    price_range: tuple[FacetValue, ...] = ()


@dataclass(frozen=True)
class FilterChoices:
    categories: tuple[str, ...]
    brands: tuple[str, ...]


class _SharedPages:
    """Values by key, each with the catalogue version it was made at and an age limit."""

    def __init__(self, size: int):
        self._size = size
        self._entries: OrderedDict[Any, tuple[int, float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: Any, make: Callable[[Any], Any]) -> Any:
        """The value for ``key`` at the catalogue's version, made with ``make(session)`` when
        missing, stale or older than the age limit."""
        version = _current_version()
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == version and now - entry[1] <= get_settings().ui.listing_cache_seconds:
                self._entries.move_to_end(key)
                return entry[2]
        with session_scope() as session:
            value = make(session)
        with self._lock:
            self._entries[key] = (version, now, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


# The catalogue's version is read at most this often (seconds) per worker: reading it was an
# eighth of a listing click's time (a session and a transaction for one number).
VERSION_CHECK_S = 1.0
_version = {"value": -1, "read_at": float("-inf")}
_version_lock = threading.Lock()


def _current_version() -> int:
    now = time.monotonic()
    with _version_lock:
        if now - _version["read_at"] < VERSION_CHECK_S:
            return _version["value"]
    catalog.refresh_if_due()  # discount windows that opened or closed change the version
    with session_scope() as session:
        value = catalog.catalogue_version(session)
    with _version_lock:
        _version.update(value=value, read_at=now)
    return value


_pages = _SharedPages(size=2048)
_choices = _SharedPages(size=16)


def listing_page(query: ListingQuery) -> ListingPage:
    """One page of the storefront's listing, as cards (see the module docstring); a storefront
    page holds ``DD_PAGE_SIZE`` products, whatever ``query`` says."""
    query = replace(query, page_size=get_settings().page_size)

    def make(session) -> ListingPage:
        result = catalog.list_products(session, query)
        cards = tuple(product_view(product, category) for product, category in result.items)
        return ListingPage(products=cards, count=result.count, total_pages=result.total_pages,
                           corrected_query=result.corrected_query or "")

    return _pages.get_or_make(query, make)


def listing_facets(query: ListingQuery) -> ListingFacets:
    """The facet counts beside a listing (services.catalog.facet_counts), shared like its pages."""
    filters = query.filters()

    def make(session) -> ListingFacets:
        found = catalog.facet_counts(session, filters)
        return ListingFacets(category=tuple(found.category), brand=tuple(found.brand),
                             price_range=tuple(found.price_range))

    return _pages.get_or_make(("facets", filters), make)


def filter_choices() -> FilterChoices:
    """The category and brand names the listing's filters offer."""

    def make(session) -> FilterChoices:
        categories = tuple(c.name for c in catalog.list_categories(session)[0])
        return FilterChoices(categories=categories, brands=tuple(catalog.list_brands(session)))

    return _choices.get_or_make("filters", make)


@dataclass(frozen=True)
class HomeData:
    featured: tuple[ProductView, ...]
    brand_counts: tuple[tuple[str, int], ...]


def home_data(brands: tuple[str, ...], featured: int = 4) -> HomeData:
    """The home pages' featured cards and the product counts of ``brands``."""

    def make(session) -> HomeData:
        cards = tuple(product_view(p, c) for p, c in catalog.featured_products(session, limit=featured))
        counts = catalog.brand_counts(session, list(brands))
        return HomeData(featured=cards, brand_counts=tuple((b, counts.get(b, 0)) for b in brands))

    return _choices.get_or_make(("home", brands, featured), make)


@dataclass(frozen=True)
class ProductPageData:
    card: ProductView
    tags: tuple[str, ...]
    category_href: str
    related: tuple[ProductView, ...]


def product_page(product_id: str) -> ProductPageData:
    """A product page's card and related products (``NotFound`` for unknown and hidden ones)."""

    def make(session) -> ProductPageData:
        product, category = catalog.get_product(session, product_id)
        related = tuple(product_view(p, c) for p, c in related_products(session, product))
        return ProductPageData(card=product_view(product, category), tags=tuple(product.tags or ()),
                               category_href=routes.category_path(category.slug) if category else "",
                               related=related)

    return _pages.get_or_make(("product", product_id), make)


@dataclass(frozen=True)
class SuggestionView:
    kind: str
    label: str
    detail: str
    image_url: str
    href: str


def suggestions_for(text: str) -> tuple[SuggestionView, ...]:
    """The header's suggestions for ``text`` (services.catalog.suggest): products, then
    categories; the same text typed in many tabs is asked once per catalogue version."""

    def make(session) -> tuple[SuggestionView, ...]:
        found = catalog.suggest(session, text)
        products = [product_view(product, category) for product, category in found.products]
        return tuple(
            [SuggestionView("product", card.name, card.price_text, card.image_url, card.href) for card in products]
            + [SuggestionView("category", c.name, "Category", "", routes.category_path(c.slug))
               for c in found.categories]
        )

    return _pages.get_or_make(("suggest", text.lower()), make)


def forget_all() -> None:
    """Drop every shared page (tests that rewrite the catalogue behind the version's back)."""
    _pages.clear()
    _choices.clear()
    with _version_lock:
        _version.update(value=-1, read_at=float("-inf"))
