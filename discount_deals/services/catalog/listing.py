"""Product listings: one page at a time in SQL, with filters, orderings and cached counts.

Filters (case-insensitive): ``search`` (full-text, see :mod:`.search`), ``category`` by id,
slug or name, ``brand``, and ``price_range`` on the effective price, where each range includes
its lower bound and excludes its upper bound so that neighbours never overlap: ``0-25`` is
0 ≤ p < 25, ``25-50`` is 25 ≤ p < 50, ``50-100`` is 50 ≤ p < 100, ``100+`` is p ≥ 100.

Without an ``ordering`` a search lists the best matches first and a plain listing the newest
products first. Every ordering ends on a unique key (the name, unique regardless of case, or
the id), so pages never shuffle between requests.

Prices: ``effective_price`` and ``discount_percent`` are stored (services.pricing computes them
from the discount window at write time) and brought up to date when a window opens or closes by
:mod:`.price_schedule`, which listings call first (at most once every few seconds per worker).

Speed: shoppers' queries name the visibility condition literally, so partial indexes over
visible products (see models.catalog) serve both the filter and the order. Counting every
matching row is the expensive part of a page, so counts are cached per worker, keyed by the
filters and checked against the database's catalogue version (changed by triggers on every
listing-relevant write, see :mod:`discount_deals.search_index`): a write is seen by the next
request of every worker.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import literal_column, text, true
from sqlalchemy.orm import aliased
from sqlmodel import Session, func, select

from ...models import Category, Product, ProductStatus, User
from ...settings import get_settings
from .. import ValidationFailed
from ..permissions import is_admin
from . import price_schedule
from . import search as fulltext
from .categories import find_category

# The back office's stock levels: "low" is a few units left, "out" none.
LOW_STOCK_THRESHOLD = 5
STATUS_FILTERS = ("active", "inactive", "low_stock", "out_of_stock")

PRICE_RANGES: dict[str, tuple[Decimal, Decimal | None]] = {
    "0-25": (Decimal(0), Decimal(25)),
    "25-50": (Decimal(25), Decimal(50)),
    "50-100": (Decimal(50), Decimal(100)),
    "100+": (Decimal(100), None),
}

_NAME = (Product.name_key.asc(),)  # unique: the last word of every ordering
_NEWEST = (Product.created_at.desc(), Product.id.desc())
# The storefront's values (name, price-low, price-high, rating, discount), "newest" and
# "relevance", and DRF-style field names.
ORDERINGS: dict[str, tuple] = {
    "name": _NAME,
    "-name": (Product.name_key.desc(),),
    "price-low": (Product.effective_price.asc(), *_NAME),
    "price": (Product.effective_price.asc(), *_NAME),
    "price-high": (Product.effective_price.desc(), *_NAME),
    "-price": (Product.effective_price.desc(), *_NAME),
    # The storefront's "rating" means best first, so both spellings sort descending.
    "rating": (Product.rating.desc(), *_NAME),
    "-rating": (Product.rating.desc(), *_NAME),
    "discount": (Product.discount_percent.desc(), *_NAME),
    "-discount_percent": (Product.discount_percent.desc(), *_NAME),
    "discount_percent": (Product.discount_percent.asc(), *_NAME),
    "newest": _NEWEST,
    "-created_at": _NEWEST,
    "created_at": (Product.created_at.asc(), Product.id.asc()),
    "relevance": (),  # best match first; without a search, newest first
}


def is_visible(product: Product) -> bool:
    """Shoppers see (and may buy) only active, available products."""
    return product.status == ProductStatus.ACTIVE.value and bool(product.is_available)


def visible_clause(products: Any = Product):
    """SQL form of :func:`is_visible` (for ``products``, the table or an alias of it), spelled
    with literals as the partial indexes' WHERE is, so that the planner may use them (a bound
    parameter would not prove the index applies)."""
    return (products.status == literal_column("'active'")) & (products.is_available == true())


@dataclass(frozen=True)
class ProductPage:
    """One page of a product listing; ``items`` pairs each product with its category."""

    items: list[tuple[Product, Category]]
    count: int
    page: int
    page_size: int
    ordering: str = "newest"

    @property
    def total_pages(self) -> int:
        return math.ceil(self.count / self.page_size) if self.count else 0


# --- the count cache ---------------------------------------------------------------------------


class _VersionedCache:
    """Values by key, each remembered with the catalogue version it was computed at."""

    def __init__(self, size: int = 4096):
        self._size = size
        self._entries: OrderedDict[tuple, tuple[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple, version: int) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != version:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: tuple, version: int, value: Any) -> None:
        with self._lock:
            self._entries[key] = (version, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_counts = _VersionedCache()
_category_ids = _VersionedCache(size=1024)  # what a category filter's text names ("" for nothing)


def catalogue_version(session: Session) -> int:
    """The catalogue version the session sees (0 when the database has none yet)."""
    return session.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar() or 0


# A search matching at most this many products is served from the search index (its matches
# looked up and sorted); a broader one by walking the ordering's index and skipping non-matches.
SEARCH_DRIVEN_MAX = 3000


def _search_driven(session: Session, filters: list) -> list:
    """``filters`` marked as likely true, so that SQLite starts from the search index's matches
    (a short list) instead of the filters' indexes (which may cover the whole catalogue)."""
    if session.get_bind().dialect.name != "sqlite":
        return filters
    return [func.likely(condition) for condition in filters]


def _count(session: Session, key: tuple | None, conditions: list, version: int) -> int:
    if key is None:  # not cacheable (stock levels change without changing the catalogue version)
        return session.exec(select(func.count()).select_from(Product).where(*conditions)).one()
    key = (str(session.get_bind().url), *key)
    count = _counts.get(key, version)
    if count is None:
        count = session.exec(select(func.count()).select_from(Product).where(*conditions)).one()
        _counts.put(key, version, count)
    return count


# --- filters -----------------------------------------------------------------------------------


def _category_id(session: Session, value: str, version: int) -> str:
    """The id of the category ``value`` names (id, slug or name), "" when none; remembered per
    catalogue version (category writes change it), as every category page asks again."""
    key = (str(session.get_bind().url), value.strip().lower())
    found = _category_ids.get(key, version)
    if found is None:
        category = find_category(session, value)
        found = category.id if category is not None else ""
        _category_ids.put(key, version, found)
    return found


def _brand_spellings(session: Session, brands: Iterable[str]) -> list[str]:
    """How ``brands`` are spelled in the catalogue (compared case-insensitively); filtering on
    the exact spellings lets the brand index serve the query."""
    lowered = {brand.strip().lower() for brand in brands if brand and brand.strip()}
    if not lowered:
        return []
    return sorted(session.exec(select(Product.brand).distinct().where(func.lower(Product.brand).in_(lowered))).all())


def _price_range_clause(price_range: str):
    bounds = PRICE_RANGES.get(price_range.strip())
    if bounds is None:
        choices = ", ".join(PRICE_RANGES)
        message = f'"{price_range}" is not a valid price range; use one of {choices}.'
        raise ValidationFailed(message, fields={"price_range": [message]})
    low, high = bounds
    clause = Product.effective_price >= low
    return clause if high is None else clause & (Product.effective_price < high)


def _status_clause(status: str):
    """The back office's product status filter (see :data:`STATUS_FILTERS`)."""
    value = status.strip().lower()
    if value == "active":
        return Product.status == ProductStatus.ACTIVE.value
    if value == "inactive":
        return Product.status == ProductStatus.INACTIVE.value
    if value == "low_stock":
        return (Product.stock > 0) & (Product.stock <= LOW_STOCK_THRESHOLD)
    if value == "out_of_stock":
        return Product.stock <= 0
    message = f'"{status}" is not a valid status; use one of {", ".join(STATUS_FILTERS)}.'
    raise ValidationFailed(message, fields={"status": [message]})


def resolve_ordering(ordering: str | None, searching: bool) -> str:
    """The ordering's canonical name: none given means best match for a search, else newest."""
    name = (ordering or "").strip() or ("relevance" if searching else "newest")
    if name not in ORDERINGS:
        message = f'"{ordering}" is not a valid ordering; use one of {", ".join(ORDERINGS)}.'
        raise ValidationFailed(message, fields={"ordering": [message]})
    if name == "relevance" and not searching:
        return "newest"
    return name


def list_products(
    session: Session,
    *,
    search: str = "",
    category: str = "",
    brand: str = "",
    price_range: str = "",
    ordering: str = "",
    page: int = 1,
    page_size: int = 10,
    include_inactive: bool | None = None,
    actor: User | None = None,
    status: str = "",
) -> ProductPage:
    """One page of products matching the filters (see the module docstring).

    Admins see inactive and unavailable products unless ``include_inactive`` is False; nobody
    else ever does. An unknown category or brand gives an empty page; an invalid price range,
    ordering or search text (over 200 characters) raises ValidationFailed. A page past the end
    has no items (the API answers 404 for it). ``status`` (the back office's filter) keeps
    active or inactive products, or those low on stock or out of stock.
    """
    if page < 1 or page_size < 1:
        raise ValidationFailed("Invalid page.", fields={"page": ["A positive whole number is required."]})
    page_size = min(page_size, get_settings().max_page_size)
    price_schedule.refresh_if_due()
    query = fulltext.parse(search)
    order_name = resolve_ordering(ordering, query is not None)
    empty = ProductPage(items=[], count=0, page=page, page_size=page_size, ordering=order_name)

    version = catalogue_version(session)
    everything = is_admin(actor) and include_inactive is not False
    chosen = _filters(session, version, everything, category=category, brand=brand, price_range=price_range,
                      status=status)
    if chosen is None or (query is not None and query.matches_nothing):
        return empty
    conditions = chosen.conditions
    if query is not None:
        chosen.key.append(("search", query.key))
        conditions = [*_search_driven(session, chosen.conditions), fulltext.match_clause(session, query)]

    count = _count(session, tuple(chosen.key) if chosen.cacheable else None, conditions, version)
    offset = (page - 1) * page_size
    if offset >= count:
        return ProductPage(items=[], count=count, page=page, page_size=page_size, ordering=order_name)
    if order_name == "relevance":
        order_by = (fulltext.relevance_tier(session, query), *_NAME)
    else:
        order_by = ORDERINGS[order_name]
        if query is not None and count > SEARCH_DRIVEN_MAX:
            # Many matches: walk the ordering's index, checking each row against the matches.
            conditions = [*chosen.conditions, fulltext.match_clause(session, query, drive=False)]
    items = _page_rows(session, conditions, order_by, offset, page_size)
    return ProductPage(items=items, count=count, page=page, page_size=page_size, ordering=order_name)


@dataclass
class _Filters:
    """A listing's filter conditions, the key its count is cached under, and whether it may be."""

    conditions: list[Any]
    key: list[Any]
    cacheable: bool = True


def _filters(
    session: Session, version: int, everything: bool, *, category: str, brand: str, price_range: str,
    status: str,
) -> _Filters | None:
    """The conditions of the listing's filters (not its search); None when one matches nothing."""
    chosen = _Filters(conditions=[] if everything else [visible_clause()], key=[everything])
    if price_range and price_range.strip():
        chosen.conditions.append(_price_range_clause(price_range))
        chosen.key.append(("price", price_range.strip()))
    if category and category.strip():
        category_id = _category_id(session, category, version)
        if not category_id:
            return None
        chosen.conditions.append(Product.category_id == category_id)
        chosen.key.append(("category", category_id))
    if brand and brand.strip():
        spellings = _brand_spellings(session, [brand])
        if not spellings:
            return None
        chosen.conditions.append(Product.brand.in_(spellings))
        chosen.key.append(("brand", tuple(spellings)))
    if status and status.strip():
        chosen.conditions.append(_status_clause(status))
        chosen.cacheable = status.strip().lower() in ("active", "inactive")
        chosen.key.append(("status", status.strip().lower()))
    return chosen


def _page_rows(
    session: Session, conditions: list[Any], order_by: tuple[Any, ...], offset: int, limit: int
) -> list[tuple[Product, Category]]:
    """One page's products with their categories, in ``order_by``.

    The page's keys first, sorting only the columns the order needs (on SQLite the rowid, which
    every index holds, so walking a listing index never reads the table); then those rows in
    full. Sorting whole rows, descriptions and all, cost more than the query at 10,000 matches.
    """
    key_column = literal_column("product.rowid") if session.get_bind().dialect.name == "sqlite" else Product.id
    keys = session.exec(
        select(key_column).select_from(Product).where(*conditions).order_by(*order_by).offset(offset).limit(limit)
    ).all()
    rows = session.exec(
        select(key_column, Product, Category)
        .select_from(Product)
        .join(Category, Category.id == Product.category_id)
        .where(key_column.in_(keys))
    ).all()
    by_key = {row_key: (product, product_category) for row_key, product, product_category in rows}
    return [by_key[row_key] for row_key in keys if row_key in by_key]


def featured_products(session: Session, limit: int = 4) -> list[tuple[Product, Category]]:
    """Visible featured products, biggest saving first (discount_price − price ascending; no
    discount counts as no saving), then by name."""
    price_schedule.refresh_if_due()
    saving = Product.effective_price - Product.price
    rows = session.exec(
        select(Product, Category)
        .join(Category, Category.id == Product.category_id)
        .where(visible_clause(), Product.is_featured == True)
        .order_by(saving.asc(), Product.name_key.asc())
        .limit(max(0, limit))
    ).all()
    return [(product, category) for product, category in rows]


def brand_counts(session: Session, brands: Iterable[str]) -> dict[str, int]:
    """How many visible products each brand has (brand compared case-insensitively)."""
    brands = list(brands)
    counts: dict[str, int] = {}
    spellings = _brand_spellings(session, brands)
    if spellings:
        brand_key = func.lower(Product.brand)
        rows = session.exec(
            select(brand_key, func.count()).where(visible_clause(), Product.brand.in_(spellings)).group_by(brand_key)
        ).all()
        counts = {key: count for key, count in rows}
    return {brand: counts.get(brand.lower(), 0) for brand in brands}


def list_brands(session: Session) -> list[str]:
    """The distinct non-blank brands of visible products (one spelling per brand), sorted."""
    # Brands come from the brand index; each needs only one visible product, found through it too.
    spellings = select(Product.brand.label("brand")).where(Product.brand != "").distinct().subquery()
    holder = aliased(Product)
    has_visible = (
        select(holder.id)
        .where(holder.brand == spellings.c.brand, visible_clause(holder))
        .exists()
    )
    by_key: dict[str, str] = {}
    for brand in session.exec(select(spellings.c.brand).where(has_visible)).all():
        key = brand.lower()
        by_key[key] = min(by_key.get(key, brand), brand)
    return [by_key[key] for key in sorted(by_key)]
