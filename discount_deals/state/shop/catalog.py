"""Storefront catalogue state: the /products listing (filters in the URL) and the home pages.

Queries run in SQL one page at a time through services.catalog; the state keeps only the
products on screen.
"""

from __future__ import annotations

from dataclasses import replace
import reflex as rx

from ... import routes
from ...display import ProductView, brand_name
from ...models import Category
from ...services import catalog
from ..actions import load_list, toast
from ..forms import int_arg, text_arg
from ..address_bar import push_url
from ..paging import page_window
from .filter_options import FilterOption, counted
from .header import with_header
from .shared_views import filter_choices, home_data, listing_facets, listing_page

ALL = "all"
BEST_MATCH = ("relevance", "Best match")  # offered, and the default, while a search is active
SORT_OPTIONS: list[tuple[str, str]] = [
    ("name", "Name (A-Z)"),
    ("price-low", "Price: Low to High"),
    ("price-high", "Price: High to Low"),
    ("rating", "Highest Rated"),
    ("discount", "Biggest Discount"),
]
PRICE_RANGES = ["0-25", "25-50", "50-100", "100+"]
MAX_SLUG = Category.__table__.c.slug.type.length  # a category named in the address by its whole slug
BRANDS_SHOWN = ("shoprite", "melcom")


# The price filter's words, in the shop's currency (one definition: services.catalog).
price_label = catalog.price_range_label


def sort_in_force(listing: catalog.ListingQuery) -> str:
    """The sort the listing shows: the shopper's (``ordering``), else best match while
    searching, else by name."""
    return listing.ordering or (BEST_MATCH[0] if listing.search else "name")


class ProductsState(rx.State):
    # The listing the address names: search, filters, the sort the shopper picked ("" when
    # none), page, exact (the address has exact=1: the search as typed). The page reads its
    # parts through the vars below.
    _listing: catalog.ListingQuery = catalog.ListingQuery()

    products: list[ProductView] = []
    count: int = 0
    total_pages: int = 0
    loading: bool = True
    categories: list[str] = []
    brands: list[str] = []
    # Each filter's choices with the count it would leave (issue 24; filter_options.py).
    category_options: list[FilterOption] = []
    brand_options: list[FilterOption] = []
    price_options: list[FilterOption] = []
    # The search as corrected for typos ("" when the shopper's words found enough), and whether
    # the shopper asked for exactly what they typed (the address has exact=1).
    corrected_query: str = ""
    exact_url: str = ""  # this listing with the search taken as typed ("Search instead for ...")
    # The search box and the filters are the browser's (components.ui.browser_owned): bumped when
    # the server changes what they must show (the box: cleared; the filters: a page load from the
    # address, a filter removed or cleared, a choice the server did not take).
    search_box_version: int = 0
    filters_version: int = 0
    # The address a tap on the listing (search, filter, sort, pager) was made on when the server
    # ran it before this page's on-load event (the browser connected and sent it while the
    # server was still hydrating); "" otherwise. That on-load carries the same address, from
    # before the tap, and must not put the old listing back (see _catch_up).
    _tapped_on: str = ""

    @rx.var
    def search(self) -> str:
        return self._listing.search

    @rx.var
    def category(self) -> str:
        return self._listing.category

    @rx.var
    def brand(self) -> str:
        return self._listing.brand

    @rx.var
    def price_range(self) -> str:
        return self._listing.price_range

    @rx.var
    def page(self) -> int:
        return self._listing.page

    @rx.var
    def showing_text(self) -> str:
        listing = self._listing
        text = f"Showing {len(self.products)} of {self.count} products"
        if listing.search:
            text += f' for "{listing.search}"'
        if self.total_pages > 1:
            text += f" (Page {listing.page} of {self.total_pages})"
        return text

    @rx.var
    def page_items(self) -> list[str]:
        return page_window(self._listing.page, self.total_pages)

    @rx.var
    def has_filters(self) -> bool:
        listing = self._listing
        return bool(listing.search or listing.category or listing.brand or listing.price_range)

    @rx.var
    def price_range_label(self) -> str:
        return price_label(self._listing.price_range) if self._listing.price_range else ""

    @rx.var
    def brand_label(self) -> str:
        return brand_name(self._listing.brand)

    @rx.var
    def category_value(self) -> str:
        return self._listing.category or ALL

    @rx.var
    def brand_value(self) -> str:
        return self._listing.brand or ALL

    @rx.var
    def price_value(self) -> str:
        return self._listing.price_range or ALL

    @rx.var
    def sort_value(self) -> str:
        return sort_in_force(self._listing)

    def _url(self, **changes) -> str:
        listing = replace(self._listing, **changes)
        return routes.products_path(
            search=listing.search, category=listing.category, brand=listing.brand, price_range=listing.price_range,
            sort=listing.ordering if listing.ordering != sort_in_force(replace(listing, ordering="")) else "",
            page=listing.page if listing.page != 1 else "", exact="1" if listing.exact else "",
        )

    def _read_query(self) -> None:
        params = self.router.url.query_parameters
        search = (params.get("search") or "").strip()[: catalog.MAX_QUERY_LENGTH]
        price = catalog.price_range_key(params.get("price_range") or "")
        sort = params.get("sort") or ""
        choices = dict(SORT_OPTIONS) | (dict([BEST_MATCH]) if search else {})
        try:
            page = max(1, int(params.get("page") or 1))
        except ValueError:
            page = 1
        self._listing = catalog.ListingQuery(
            search=search, category=(params.get("category") or "").strip()[:MAX_SLUG],
            brand=(params.get("brand") or "").strip()[:80], price_range=price if price in PRICE_RANGES else "",
            ordering=sort if sort in choices else "", page=page,
            exact=bool(search) and (params.get("exact") or "").lower() in ("1", "true"),
        )

    def _query(self) -> catalog.ListingQuery:
        """What the services are asked for: the listing with the sort in force."""
        return replace(self._listing, ordering=sort_in_force(self._listing))

    def _show_counts(self) -> None:
        facets = listing_facets(self._query())
        self._keep(
            category_options=counted(self.categories, facets.category, self._listing.category),
            brand_options=counted(self.brands, facets.brand, self._listing.brand, label=brand_name),
            price_options=counted(PRICE_RANGES, facets.price_range, self._listing.price_range, label=price_label),
        )

    def _keep(self, **values) -> None:
        """Assign only what changed: every assignment sends the value to the browser again (the
        filter choices and their counts stay the same over most clicks)."""
        for name, value in values.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    def _load_page(self) -> None:
        """Show the page the filters name (the last page when they name one past the end)."""
        if not self.categories:
            choices = filter_choices()
            self.categories, self.brands = list(choices.categories), list(choices.brands)
        shown = listing_page(self._query())
        if self._listing.page > max(shown.total_pages, 1):
            self._listing = replace(self._listing, page=max(shown.total_pages, 1))
            shown = listing_page(self._query())
        self._keep(products=list(shown.products), count=shown.count, total_pages=shown.total_pages, loading=False,
                   corrected_query=shown.corrected_query,
                   exact_url=self._url(exact="1", page=1) if shown.corrected_query else "")
        self._show_counts()

    @rx.event
    @with_header
    def load(self):
        """Read the filters from the URL and show that page (SPEC §8: a failure is only logged;
        the list stays and loading ends). The address bar keeps what the shopper typed when it
        named a page past the end."""
        searched = self._listing.search
        if self._tapped_on != self._address():
            self._read_query()
        # else: the listing is the early tap's, read from this address first; its own is in the bar
        self._tapped_on = ""
        if self._listing.search != searched:
            self.search_box_version += 1
        first = not self.products
        return load_list(self, self._load_shown_page, "product list", loading="loading" if first else None,
                         failed=None)

    @rx.event
    def follow_address(self):
        """Back or Forward between two of this page's own addresses (``push_url`` puts them in the
        bar beside the router): the router sees no page change when it comes back to the address
        it loaded, so no on-load ran and the list stayed as it was. The page's history listener
        (assets/shop.js) asks here; a listing the address already shows is left as it is."""
        if self.router.url.path.rstrip("/") != routes.PRODUCTS:
            return None
        before = self._listing
        self._read_query()
        if self._listing == before:
            return None
        if self._listing.search != before.search:
            self.search_box_version += 1
        return load_list(self, self._load_shown_page, "product list", loading=None, failed=None)

    @rx.event
    def show_prices_again(self):
        """A flash sale on the page ended (components/flash_sale.on_sale_end): the same listing,
        at the prices in force now."""
        return load_list(self, self._load_page, "product list", loading=None, failed=None)

    def _load_shown_page(self) -> None:
        """A page load's listing; the selects then show the address's filters, in the same update
        as their choices (a select can only show a value one of its options has)."""
        self._load_page()
        self.filters_version += 1

    def _address(self) -> str:
        url = self.router.url
        return f"{url.path}?{url.query}"

    def _catch_up(self, typed: bool = False) -> None:
        """Every tap on the listing starts here. A tap the server runs before this page's on-load
        event first reads the listing from the address it was made on (the page's, which that
        on-load has not read yet), once; the on-load then keeps the tap's listing. ``typed``: the
        tap is the search box's own (its text stays as typed)."""
        if self.is_hydrated:
            self._tapped_on = ""
            return
        if self._tapped_on:
            return  # a second early tap: the first one's listing, not yet in this tap's address
        searched = self._listing.search
        self._read_query()
        if self._listing.search != searched and not typed:
            self.search_box_version += 1
        self._tapped_on = self._address()

    def _show(self, *extra, **changes):
        """A click on a filter, the sort, the search or the pager: change the filters, show that
        page and put its address in the browser's bar, all in this one event (no redirect and
        no second round of on-load events; Back returns through the router's on-load)."""
        self._listing = replace(self._listing, **changes)
        yield from load_list(self, self._load_page, "product list", loading=None, failed=None)
        yield push_url(self._url())
        yield from extra

    @rx.event
    def apply_search(self, value: str):
        self._catch_up(typed=True)
        value = str(value or "").strip()[: catalog.MAX_QUERY_LENGTH]
        listing = self._listing
        if value == listing.search:
            return
        if bool(value) != bool(listing.search):
            self.filters_version += 1  # "Best match" comes or goes with the search: the sort shows it
        yield from self._show(search=value, page=1, exact=False,
                              ordering="" if listing.ordering == BEST_MATCH[0] else listing.ordering)

    @rx.event
    def search_exactly(self):
        """'Search instead for …': what the shopper typed, without typo correction."""
        self._catch_up()
        if self._listing.search and not self._listing.exact:
            yield from self._show(exact=True, page=1)

    @rx.event
    def set_category(self, value: str):
        self._catch_up()
        value = text_arg(value)  # anything but text (a crafted event) is no filter
        yield from self._show(category="" if value == ALL else value, page=1)

    @rx.event
    def set_brand(self, value: str):
        self._catch_up()
        value = text_arg(value)  # anything but text (a crafted event) is no filter
        yield from self._show(brand="" if value == ALL else value, page=1)

    @rx.event
    def set_price_range(self, value: str):
        self._catch_up()
        value = text_arg(value)  # anything but text (a crafted event) is no filter
        yield from self._show(price_range="" if value == ALL else value, page=1)

    @rx.event
    def set_sort(self, value: str):
        self._catch_up()
        value = text_arg(value)
        searching = bool(self._listing.search)
        if value == BEST_MATCH[0] and not searching:
            value = ""
        choices = dict(SORT_OPTIONS) | (dict([BEST_MATCH]) if searching else {})
        if value not in choices:
            value = ""
            self.filters_version += 1  # not a choice: the select shows the sort in force
        yield from self._show(ordering=value, page=1)

    @rx.event
    def remove_filter(self, name: str):
        self._catch_up()
        if name not in ("search", "category", "brand", "price_range"):
            return
        changes = {name: "", "page": 1}
        if name == "search":
            self.search_box_version += 1
            changes["exact"] = False
        self.filters_version += 1
        yield from self._show(**changes)

    @rx.event
    def clear_all(self):
        self._catch_up()
        self.search_box_version += 1
        self.filters_version += 1
        yield from self._show(search="", category="", brand="", price_range="", page=1, exact=False)

    @rx.event
    def go_to_page(self, page: int):
        self._catch_up()
        page = int_arg(page)  # 0 for anything but a whole number (Infinity too): page 1
        page = max(1, min(page, self.total_pages or page))  # none counted yet (an early tap): _load_page bounds it
        yield from self._show(rx.call_script("window.scrollTo({top: 0, behavior: 'smooth'})"), page=page)


class HomeState(rx.State):
    featured: list[ProductView] = []
    shoprite_count: int = 0
    melcom_count: int = 0
    loaded: bool = False

    def _load(self) -> None:
        data = home_data(BRANDS_SHOWN)
        self.featured = list(data.featured)
        counts = dict(data.brand_counts)
        self.shoprite_count = counts.get("shoprite", 0)
        self.melcom_count = counts.get("melcom", 0)

    @rx.event
    @with_header
    def load(self):
        yield from load_list(self, self._load, "home page data", loading=None, failed=None)
        self.loaded = True

    @rx.event
    def select_partner(self, brand: str):
        """/test-home's partner tiles only acknowledge the choice; a tile's toast replaces the
        last one (three taps stacked three toasts over the tiles on a phone)."""
        return toast((f"{brand} Selected", f"Browsing products from {brand}", "info"), subject="partner")
