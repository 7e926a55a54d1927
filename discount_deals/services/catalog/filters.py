"""The filters of product listings and facet counts, and the per-worker caches they are keyed for.

Filters (case-insensitive): ``category`` by id, slug or name, ``brand``, ``price_range`` on the
effective price (each range includes its lower bound and excludes its upper bound so that
neighbours never overlap: ``0-25`` is 0 ≤ p < 25, ``25-50`` is 25 ≤ p < 50, ``50-100`` is
50 ≤ p < 100, ``100+`` is p ≥ 100), ``discount`` (at least that many percent off now),
``in_stock`` (at least one unit) and, for admins, ``status``. Search is not a filter here: see
:mod:`.listing` and :mod:`.search`.

Caches: counts are expensive at 50,000 products, so they are remembered per worker, keyed by the
filters, and checked against the database's catalogue version (changed by triggers on every
listing-relevant write, including a product selling out or coming back in stock: see
:mod:`discount_deals.search.index`). A write is seen by the next request of every worker.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import literal_column, text, true
from sqlmodel import Session, func, select

from ...models import Product, ProductStatus, User
from .. import ValidationFailed
from ..error_codes import ErrorCode
from ..permissions import is_admin
from .categories import find_category
from .query import ListingQuery

# The back office's stock levels: "low" is a few units left, "out" none.
LOW_STOCK_THRESHOLD = 5
STATUS_FILTERS = ("active", "inactive", "low_stock", "out_of_stock")

PRICE_RANGES: dict[str, tuple[Decimal, Decimal | None]] = {
    "0-25": (Decimal(0), Decimal(25)),
    "25-50": (Decimal(25), Decimal(50)),
    "50-100": (Decimal(50), Decimal(100)),
    "100+": (Decimal(100), None),
}
# The discount filter's usual choices (any whole percentage from 1 to 100 is accepted).
DISCOUNT_STEPS = (10, 30, 50)
DISCOUNT_TEXT = "A whole number of percent from 1 to 100 is required."


def is_visible(product: Product) -> bool:
    """Shoppers see (and may buy) only active, available products."""
    return product.status == ProductStatus.ACTIVE.value and bool(product.is_available)


def visible_clause(products: Any = Product):
    """SQL form of :func:`is_visible` (for ``products``, the table or an alias of it), spelled
    with literals as the partial indexes' WHERE is, so that the planner may use them (a bound
    parameter would not prove the index applies)."""
    return (products.status == literal_column("'active'")) & (products.is_available == true())


# --- caches ------------------------------------------------------------------------------------


class VersionedCache:
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


_counts = VersionedCache()
_category_ids = VersionedCache(size=1024)  # what a category filter's text names ("" for nothing)


def catalogue_version(session: Session) -> int:
    """The catalogue version the session sees (0 when the database has none yet)."""
    return session.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar() or 0


def database_key(session: Session) -> str:
    """Which database a cached value belongs to (tests and tools open more than one)."""
    return str(session.get_bind().url)


def cached_count(session: Session, key: tuple | None, conditions: list, version: int) -> int:
    """How many products meet ``conditions``, remembered under ``key`` (None: not cacheable)."""
    if key is None:  # stock levels change without changing the catalogue version
        return session.exec(select(func.count()).select_from(Product).where(*conditions)).one()
    key = (database_key(session), *key)
    count = _counts.get(key, version)
    if count is None:
        count = session.exec(select(func.count()).select_from(Product).where(*conditions)).one()
        _counts.put(key, version, count)
    return count


def search_driven(session: Session, filters: list) -> list:
    """``filters`` marked as likely true, so that SQLite starts from the search index's matches
    (a short list) instead of the filters' indexes (which may cover the whole catalogue)."""
    if session.get_bind().dialect.name != "sqlite":
        return filters
    return [func.likely(condition) for condition in filters]


# --- filters -----------------------------------------------------------------------------------


def _category_id(session: Session, value: str, version: int) -> str:
    """The id of the category ``value`` names (id, slug or name), "" when none; remembered per
    catalogue version (category writes change it), as every category page asks again."""
    key = (database_key(session), value.strip().lower())
    found = _category_ids.get(key, version)
    if found is None:
        category = find_category(session, value)
        found = category.id if category is not None else ""
        _category_ids.put(key, version, found)
    return found


def brand_spellings(session: Session, brands: Iterable[str]) -> list[str]:
    """How ``brands`` are spelled in the catalogue (compared case-insensitively); filtering on
    the exact spellings lets the brand index serve the query."""
    lowered = {brand.strip().lower() for brand in brands if brand and brand.strip()}
    if not lowered:
        return []
    # Compared here, not by SQL lower(): SQLite's lowers ASCII only ("Élan" never met "élan").
    # The distinct brands are read from the brand index: a few hundred at most.
    return sorted(brand for brand in session.exec(select(Product.brand).distinct()).all()
                  if brand.lower() in lowered)


def price_range_key(value: str) -> str:
    """The key of ``PRICE_RANGES`` that ``value`` names, else ``value`` trimmed. A "+" written
    unencoded in an address reads as a space (``?price_range=100+`` arrives as "100 "), so "100 "
    is "100+" ("100" alone names none)."""
    key = value.strip()
    return key + "+" if value.endswith(" ") and key + "+" in PRICE_RANGES else key


def price_range_clause(price_range: str):
    bounds = PRICE_RANGES.get(price_range_key(price_range))
    if bounds is None:
        choices = ", ".join(PRICE_RANGES)
        message = f'"{price_range}" is not a valid price range; use one of {choices}.'
        raise ValidationFailed(message, fields={"price_range": [message]})
    low, high = bounds
    clause = Product.effective_price >= low
    return clause if high is None else clause & (Product.effective_price < high)


def discount_at_least(value: str) -> int:
    """The discount filter's percentage ("30": at least 30 % off now)."""
    raw = value.strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 100:
        raise ValidationFailed(f"Invalid discount: {DISCOUNT_TEXT}", fields={"discount": [DISCOUNT_TEXT]},
                               code=ErrorCode.INVALID_DISCOUNT)
    return int(raw)


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


@dataclass
class Filters:
    """A listing's filter conditions by name, the key its counts are cached under (by name too),
    and whether they may be cached. A filter that names nothing (an unknown category or brand)
    is ``impossible``: with it nothing matches."""

    everything: bool  # an admin's listing: hidden products too
    conditions: dict[str, Any] = field(default_factory=dict)
    key: dict[str, Any] = field(default_factory=dict)
    impossible: set[str] = field(default_factory=set)
    cacheable: bool = True

    def where(self, without: str = "") -> list[Any] | None:
        """The conditions, less the filter named ``without`` (a facet's own); None when they
        cannot match anything."""
        if self.impossible - {without}:
            return None
        visible = [] if self.everything else [visible_clause()]
        return visible + [clause for name, clause in self.conditions.items() if name != without]

    def cache_key(self, without: str = "") -> list[Any]:
        return [self.everything, *((name, value) for name, value in self.key.items() if name != without)]


def shows_everything(query: ListingQuery, actor: User | None) -> bool:
    """Whether the listing shows hidden products too: an admin's, unless they asked for only
    what shoppers see."""
    return is_admin(actor) and query.include_inactive is not False


def build_filters(session: Session, version: int, query: ListingQuery, actor: User | None) -> Filters:
    """The conditions of ``query``'s filters (not its search) for ``actor``; see the module docstring."""
    chosen = Filters(everything=shows_everything(query, actor))
    if query.price_range and query.price_range.strip():
        chosen.conditions["price_range"] = price_range_clause(query.price_range)
        chosen.key["price_range"] = query.price_range.strip()
    if query.discount and query.discount.strip():
        percent = discount_at_least(query.discount)
        chosen.conditions["discount"] = Product.discount_percent >= percent
        chosen.key["discount"] = percent
    if query.category and query.category.strip():
        category_id = _category_id(session, query.category, version)
        chosen.conditions["category"] = Product.category_id == category_id
        chosen.key["category"] = category_id
        if not category_id:
            chosen.impossible.add("category")
    if query.brand and query.brand.strip():
        spellings = brand_spellings(session, [query.brand])
        chosen.conditions["brand"] = Product.brand.in_(spellings)
        chosen.key["brand"] = tuple(spellings)
        if not spellings:
            chosen.impossible.add("brand")
    if query.in_stock:
        chosen.conditions["in_stock"] = Product.stock > 0
        chosen.key["in_stock"] = True
    if query.status and query.status.strip():
        status = query.status.strip().lower()
        chosen.conditions["status"] = _status_clause(query.status)
        chosen.cacheable = status in ("active", "inactive")
        chosen.key["status"] = status
    return chosen
