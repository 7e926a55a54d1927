"""Product listings: one page at a time in SQL, with filters, orderings, search and cached counts.

The filters (category, brand, price range, discount, in stock, the admin's status) are in
:mod:`.filters`; ``search`` is full-text (see :mod:`.search`).

Without an ``ordering`` a search lists the best matches first; a plain listing shows shoppers
the featured products first, then the newest (the existing client's home page takes its
"Featured Deals" from page 1), and admins the newest first. Every ordering ends on a unique key
(the name's key, unique regardless of case, or the id), so pages never shuffle between requests.
Names sort by ``name_sort`` (accents and case aside, by code point on both engines), then that key.

Typos: when a search finds fewer products than a storefront page holds (``DD_PAGE_SIZE``) and
some of its words are not in the catalogue, those words are corrected (:mod:`.typos`) and the
listing shows what either the typed or the corrected words find, every exact match above every
corrected one; ``ProductPage.corrected_query`` then holds the corrected text. ``exact=True``
searches only what was typed. A search that finds enough never looks at typos.

Prices: ``effective_price`` and ``discount_percent`` are stored (services.pricing computes them
from the discount window at write time) and brought up to date when a window opens or closes by
:mod:`.price_schedule`, which listings call first (at most once every few seconds per worker).

Speed: shoppers' queries name the visibility condition literally, so partial indexes over
visible products (see models.catalog) serve both the filter and the order. Counting every
matching row is the expensive part of a page, so counts are cached per worker and catalogue
version (:func:`.filters.cached_count`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import case, literal_column
from sqlalchemy.orm import aliased
from sqlmodel import Session, func, select

from ...models import Category, Product, User
from ...config.settings import get_settings
from .. import ValidationFailed
from ..permissions import is_admin
from . import price_schedule, typos
from . import search as fulltext
from .query import ListingQuery
from .filters import (  # noqa: F401  (re-exported: the catalogue's names for them)
    LOW_STOCK_THRESHOLD,
    PRICE_RANGES,
    STATUS_FILTERS,
    _counts,
    brand_spellings,
    build_filters,
    cached_count,
    catalogue_version,
    is_visible,
    search_driven,
    visible_clause,
)

# Names sort by name_sort (accents removed, case-blind, by code point on both engines), then by
# name_key: unique, the last word of every ordering.
_NAME = (Product.name_sort.asc(), Product.name_key.asc())
_NEWEST = (Product.created_at.desc(), Product.id.desc())
_FEATURED = (Product.is_featured.desc(), *_NEWEST)
# The storefront's values (name, price-low, price-high, rating, discount), "newest", "featured"
# and "relevance", and DRF-style field names.
ORDERINGS: dict[str, tuple] = {
    "name": _NAME,
    "-name": (Product.name_sort.desc(), Product.name_key.desc()),
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
    "featured": _FEATURED,  # featured first, then newest: shoppers' default
    "relevance": (),  # best match first; without a search, the default order
}


@dataclass(frozen=True)
class ProductPage:
    """One page of a product listing; ``items`` pairs each product with its category.
    ``corrected_query``: the corrected search text when typos were corrected, else None."""

    items: list[tuple[Product, Category]]
    count: int
    page: int
    page_size: int
    ordering: str = "newest"
    corrected_query: str | None = None

    @property
    def total_pages(self) -> int:
        return math.ceil(self.count / self.page_size) if self.count else 0


# A search matching at most this many products is served from the search index (its matches
# looked up and sorted); a broader one by walking the ordering's index and skipping non-matches.
SEARCH_DRIVEN_MAX = 3000


def resolve_ordering(ordering: str | None, searching: bool, shopper: bool = False) -> str:
    """The ordering's canonical name: none given means best match for a search, else featured
    first for shoppers and newest first for admins."""
    default = "featured" if shopper else "newest"
    name = (ordering or "").strip() or ("relevance" if searching else default)
    if name not in ORDERINGS:
        message = f'"{ordering}" is not a valid ordering; use one of {", ".join(ORDERINGS)}.'
        raise ValidationFailed(message, fields={"ordering": [message]})
    if name == "relevance" and not searching:
        return default
    return name


@dataclass(frozen=True)
class SearchPlan:
    """What a search adds to a listing: the condition, the products it finds, what it ranks by.

    ``query`` is what is matched: the typed query, or it or its correction; then ``exact`` is
    the typed query's own condition (its matches rank first) when it found anything, and
    ``corrected_query`` the corrected text."""

    match: Any
    query: fulltext.SearchQuery
    count: int
    exact: Any = None
    corrected_query: str | None = None


def plan_search(
    session: Session, query: fulltext.SearchQuery, where: list, key: list | None, version: int, exact: bool
) -> SearchPlan:
    """The listing's search under the filters ``where`` (counts cached under ``key``, None for
    none): the typed words, and their correction when they find less than a page."""

    def counted(matched: fulltext.SearchQuery) -> tuple[Any, int]:
        clause = fulltext.match_clause(session, matched)
        cache_key = None if key is None else (*key, ("search", matched.key))
        return clause, cached_count(session, cache_key, [*search_driven(session, where), clause], version)

    clause, count = counted(query)
    plan = SearchPlan(match=clause, query=query, count=count)
    if exact or count >= get_settings().page_size:
        return plan
    fixed = typos.corrected(session, query, version)
    if fixed is None:
        return plan
    both = fulltext.either(query, fixed) if count else fixed  # nothing typed matched: only the correction can
    both_clause, both_count = counted(both)
    if both_count <= count:
        return plan
    return SearchPlan(match=both_clause, query=both, count=both_count, exact=clause if count else None,
                      corrected_query=fixed.text)


def _order_by(session: Session, order_name: str, plan: SearchPlan | None) -> tuple:
    first = () if plan is None or plan.exact is None else (case((plan.exact, 0), else_=1),)
    if order_name == "relevance":
        return (*first, fulltext.relevance_tier(session, plan.query), *_NAME)
    return (*first, *ORDERINGS[order_name])


def list_products(
    session: Session, listing: ListingQuery | None = None, /, *, actor: User | None = None, **changes: Any
) -> ProductPage:
    """One page of the products ``listing`` asks for (see :class:`.query.ListingQuery`, the
    module docstring and :mod:`.filters`); its fields may be given by name instead (``changes``).

    Admins see inactive and unavailable products unless ``include_inactive`` is False; nobody
    else ever does. An unknown category or brand gives an empty page; an invalid price range,
    discount, ordering or search text (over 200 characters) raises ValidationFailed. A page past
    the end has no items (the API answers 404 for it). ``status`` (the back office's filter)
    keeps active or inactive products, or those low on stock or out of stock. ``exact``: no typo
    correction.
    """
    listing = ListingQuery.of(listing, changes)
    page = listing.page
    if page < 1 or listing.page_size < 1:
        raise ValidationFailed("Invalid page.", fields={"page": ["A positive whole number is required."]})
    page_size = min(listing.page_size, get_settings().max_page_size)
    price_schedule.refresh_if_due()
    query = fulltext.parse(listing.search)
    order_name = resolve_ordering(listing.ordering, query is not None, shopper=not is_admin(actor))
    result = ProductPage(items=[], count=0, page=page, page_size=page_size, ordering=order_name)

    version = catalogue_version(session)
    chosen = build_filters(session, version, listing, actor)
    where = chosen.where()
    if where is None or (query is not None and query.matches_nothing):
        return result
    key = chosen.cache_key() if chosen.cacheable else None
    plan = None if query is None else plan_search(session, query, where, key, version, listing.exact)
    if plan is None:
        conditions, count = where, cached_count(session, None if key is None else tuple(key), where, version)
    else:
        conditions, count = [*search_driven(session, where), plan.match], plan.count
    result = replace(result, count=count, corrected_query=plan and plan.corrected_query)
    offset = (page - 1) * page_size
    if offset >= count:
        return result
    if plan is not None and order_name != "relevance" and plan.exact is None and count > SEARCH_DRIVEN_MAX:
        # Many matches: walk the ordering's index, checking each row against the matches.
        conditions = [*where, fulltext.match_clause(session, plan.query, drive=False)]
    items = _page_rows(session, conditions, _order_by(session, order_name, plan), offset, page_size)
    return replace(result, items=items)


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
        .order_by(saving.asc(), *_NAME)
        .limit(max(0, limit))
    ).all()
    return [(product, category) for product, category in rows]


def brand_counts(session: Session, brands: Iterable[str]) -> dict[str, int]:
    """How many visible products each brand has (brand compared case-insensitively)."""
    brands = list(brands)
    counts: dict[str, int] = {}
    spellings = brand_spellings(session, brands)
    if spellings:
        rows = session.exec(
            select(Product.brand, func.count()).where(visible_clause(), Product.brand.in_(spellings))
            .group_by(Product.brand)
        ).all()
        for spelling, count in rows:  # case-blind here: SQLite's lower() leaves "É" as it is
            counts[spelling.lower()] = counts.get(spelling.lower(), 0) + count
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
