"""Facet counts: how many products each filter choice would leave, next to a listing.

For the listing's filters (:mod:`.filters`) and search, :func:`facet_counts` tells the total and,
for each facet, how many products each of its choices leaves with every *other* filter applied
(the usual faceting rule: choosing a category shows the counts of the other categories too):
``category`` (value: the slug, which the listing's ``category`` takes), ``brand``,
``price_range`` (the storefront's four ranges), ``discount`` (at least 10, 30, 50 percent
off) and ``in_stock``. Categories and brands list only choices that leave products; price
ranges and discounts list every choice, with 0 where none.

Who is counted is who the listing shows: shoppers count visible products; admins count every
product unless ``include_inactive`` is False, as their listing does. A search is corrected for
typos exactly as the listing corrects it (with all filters applied), so the counts are those of
the products on screen.

Each facet is one SQL aggregate (GROUP BY for categories and brands; sums of conditions for
the ranges), facets that apply the same filters sharing one query, and the answer is cached
per worker and catalogue version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import case
from sqlmodel import Session, func, select

from ...models import Category, Product, User
from ..money import Money
from . import price_schedule
from . import search as fulltext
from .filters import (
    DISCOUNT_STEPS,
    PRICE_RANGES,
    Filters,
    VersionedCache,
    build_filters,
    catalogue_version,
    database_key,
    price_range_clause,
    search_driven,
)
from .listing import plan_search
from .query import ListingQuery


@dataclass(frozen=True)
class FacetValue:
    """One choice of a facet: what the listing's parameter takes, what to show, what it leaves."""

    value: str
    label: str
    count: int


@dataclass(frozen=True)
class Facets:
    """The counts next to a listing (see the module docstring)."""

    count: int
    category: list[FacetValue]
    brand: list[FacetValue]
    price_range: list[FacetValue]
    discount: list[FacetValue]
    in_stock: int
    corrected_query: str | None = None


def price_range_label(value: str) -> str:
    """``0-25`` → ``$0 - $25``, ``100+`` → ``$100+`` (in the shop's currency)."""
    if value.endswith("+"):
        return f"{Money.of(value[:-1]).text(cents=False)}+"
    low, high = value.split("-")
    return f"{Money.of(low).text(cents=False)} - {Money.of(high).text(cents=False)}"


_facets = VersionedCache(size=1024)

# The facets counted by sums of conditions, each with the filter it leaves out.
_SCALAR_FACETS = ("count", "price_range", "discount", "in_stock")


def _scalar_columns(facet: str) -> list[Any]:
    def share(condition) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    if facet == "count":
        return [func.count()]
    if facet == "price_range":
        return [share(price_range_clause(value)) for value in PRICE_RANGES]
    if facet == "discount":
        return [share(Product.discount_percent >= step) for step in DISCOUNT_STEPS]
    return [share(Product.stock > 0)]


def _scalar_facets(session: Session, chosen: Filters, search: list[Any]) -> dict[str, list[int]]:
    """The scalar facets, one query per distinct set of filters they apply."""
    by_filters: dict[str, list[str]] = {}
    for facet in _SCALAR_FACETS:
        left_out = facet if facet in chosen.key or facet in chosen.impossible else ""
        by_filters.setdefault(left_out, []).append(facet)
    found: dict[str, list[int]] = {}
    for left_out, facets in by_filters.items():
        where = chosen.where(without=left_out)
        columns = [column for facet in facets for column in _scalar_columns(facet)]
        row = [0] * len(columns) if where is None else session.execute(
            select(*columns).select_from(Product).where(*search_driven(session, where), *search)
        ).one()
        values = list(row)
        for facet in facets:
            width = len(_scalar_columns(facet))
            found[facet], values = [int(v or 0) for v in values[:width]], values[width:]
    return found


def _grouped(session: Session, chosen: Filters, search: list[Any], facet: str, *columns: Any) -> list:
    """``columns`` (the first one the group) and the count of each group, with every filter but ``facet``."""
    where = chosen.where(without=facet)
    if where is None:
        return []
    return session.exec(
        select(*columns, func.count()).select_from(Product).where(*search_driven(session, where), *search)
        .group_by(columns[0])
    ).all()


def _category_facet(session: Session, chosen: Filters, search: list[Any]) -> list[FacetValue]:
    counts = dict(_grouped(session, chosen, search, "category", Product.category_id))
    if not counts:
        return []
    categories = session.exec(select(Category).where(Category.id.in_(list(counts)))).all()
    values = [FacetValue(value=c.slug, label=c.name, count=counts[c.id]) for c in categories]
    return sorted(values, key=lambda v: (v.label.lower(), v.value))


def _brand_facet(session: Session, chosen: Filters, search: list[Any]) -> list[FacetValue]:
    # Grouped by spelling, then case-blind here: SQLite's lower() leaves "É" as it is, and each
    # database's min() orders as it collates; one spelling per brand, as list_brands picks it.
    spellings: dict[str, tuple[str, int]] = {}
    for spelling, count in _grouped(session, chosen, search, "brand", Product.brand):
        if spelling:
            shown, total = spellings.get(spelling.lower(), (spelling, 0))
            spellings[spelling.lower()] = (min(shown, spelling), total + count)
    values = [FacetValue(value=shown, label=shown, count=count) for shown, count in spellings.values()]
    return sorted(values, key=lambda v: (v.label.lower(), v.value))


def _search_conditions(session: Session, chosen: Filters, query, version: int, exact: bool):
    """The search's condition (corrected as the listing corrects it) and the corrected text."""
    where = chosen.where()
    if where is None:
        return [fulltext.match_clause(session, query)], None
    key = chosen.cache_key() if chosen.cacheable else None
    plan = plan_search(session, query, where, key, version, exact)
    return [plan.match], plan.corrected_query


def facet_counts(
    session: Session, listing: ListingQuery | None = None, /, *, actor: User | None = None, **changes: Any
) -> Facets:
    """The facet counts beside the listing ``listing`` asks for (its order and page aside; its
    fields may be given by name instead: ``changes``); see the module docstring. Invalid filters
    raise ValidationFailed as the listing's do; unknown categories or brands count 0."""
    listing = ListingQuery.of(listing, changes)
    exact = listing.exact
    price_schedule.refresh_if_due()
    query = fulltext.parse(listing.search)
    version = catalogue_version(session)
    chosen = build_filters(session, version, listing, actor)
    cache_key = (database_key(session), *chosen.cache_key(), query.key if query else None, exact)
    facets = _facets.get(cache_key, version) if chosen.cacheable else None
    if facets is not None:
        return facets
    corrected_query = None
    if query is None:
        searched: list[Any] = []
    elif query.matches_nothing:
        chosen.impossible.add("search")
        searched = []
    else:
        searched, corrected_query = _search_conditions(session, chosen, query, version, exact)
    scalars = _scalar_facets(session, chosen, searched)
    facets = Facets(
        count=scalars["count"][0],
        category=_category_facet(session, chosen, searched),
        brand=_brand_facet(session, chosen, searched),
        price_range=[FacetValue(value, price_range_label(value), n) for value, n in zip(PRICE_RANGES, scalars["price_range"],
                                                                                        strict=True)],
        discount=[FacetValue(str(step), f"{step}%+", n) for step, n in zip(DISCOUNT_STEPS, scalars["discount"], strict=True)],
        in_stock=scalars["in_stock"][0],
        corrected_query=corrected_query,
    )
    if chosen.cacheable:
        _facets.put(cache_key, version, facets)
    return facets
