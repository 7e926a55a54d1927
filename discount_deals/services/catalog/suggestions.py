"""Suggestions while the shopper types: a few products and categories for the text so far.

The last word is a word being typed: it matches word starts ("jasm" → Jasmine). Products must
hold every word in their name, brand or category (a description alone is not a reason to
suggest a product); those with the words in their name come first, then the others, each group
newest first: one short query that reads the search index backwards and stops at the limit,
however many products match (see :func:`.search.newest_matches`), and none at all when the
vocabulary says no product holds the words in those columns (:func:`.typos.possible`). When the
exact words find fewer products than asked for, the word being typed is also tried with typos
(word starts within its allowed typos: "panadl" → "panado…" → Panadol, :mod:`.typos`) and the
other words corrected; those products follow the exact ones. Shoppers see visible products only,
admins every product (as their listing does).

Categories match by name the same way, typos tried when fewer than asked for match exactly;
the category list is small and kept per worker and catalogue version.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz.distance import OSA
from sqlmodel import Session, select

from ...models import Category, Product, User
from ..permissions import is_admin
from . import search as fulltext
from . import typos
from .filters import VersionedCache, catalogue_version, database_key, visible_clause

MAX_PRODUCTS = 8
MAX_CATEGORIES = 3
# A single letter would ask the index for every word it starts: suggestions start at two.
MIN_TYPED = 2


@dataclass(frozen=True)
class CategoryChoice:
    """A suggested category: what the listing's ``category`` takes (the slug) and what to show."""

    id: str
    name: str
    slug: str


@dataclass(frozen=True)
class Suggestions:
    """Products (each with its category) and categories for a text being typed."""

    products: list[tuple[Product, Category]]
    categories: list[CategoryChoice]


_TIERS = (fulltext.IN_NAME, fulltext.NAMED)  # words in the name first, then in the brand or category


def _tier(
    session: Session, query: fulltext.SearchQuery, within: tuple[str, ...], everything: bool, limit: int,
    skip: list[str], version: int,
) -> list[tuple[Product, Category]]:
    """Up to ``limit`` products whose ``within`` columns hold the words, newest first, less ``skip``."""
    query = typos.possible(session, query, version, within)
    if query.matches_nothing:
        return []
    conditions = [] if everything else [visible_clause()]
    if skip:
        conditions.append(Product.id.not_in(skip))
    statement = (
        fulltext.newest_matches(session, query, within, Product, Category)
        .join(Category, Category.id == Product.category_id)
        .where(*conditions)
        .limit(limit)
    )
    return [(product, category) for product, category in session.exec(statement).all()]


def _products(
    session: Session, query: fulltext.SearchQuery, everything: bool, limit: int, skip: list[str], version: int
) -> list[tuple[Product, Category]]:
    found: list[tuple[Product, Category]] = []
    for within in _TIERS:
        if len(found) < limit:
            found += _tier(session, query, within, everything, limit - len(found), [*skip, *(p.id for p, _ in found)],
                           version)
    return found


def _typed_enough(query: fulltext.SearchQuery) -> bool:
    return any(sum(len(word) for term in group if not term.negated for word in term.words) >= MIN_TYPED
               for group in query.groups)


def _suggested_products(
    session: Session, query: fulltext.SearchQuery, everything: bool, limit: int, version: int
) -> list[tuple[Product, Category]]:
    found = _products(session, query, everything, limit, [], version)
    if len(found) < limit:
        nearby = typos.prefix_variants(session, query, version) or typos.corrected(session, query, version)
        if nearby is not None:
            found += _products(session, nearby, everything, limit - len(found), [p.id for p, _c in found], version)
    return found


_categories = VersionedCache(size=64)


def _all_categories(session: Session, version: int) -> list[tuple[CategoryChoice, list[str]]]:
    """Every category with the words of its name, per worker and catalogue version."""
    key = (database_key(session),)
    found = _categories.get(key, version)
    if found is None:
        rows = session.exec(select(Category.id, Category.name, Category.slug)).all()
        found = [(CategoryChoice(*row), fulltext.words(row[1])) for row in sorted(rows, key=lambda r: r[1].lower())]
        _categories.put(key, version, found)
    return found


def _word_matches(typed: str, known: str, prefix: bool, fuzzy: bool) -> bool:
    if typed == known or (prefix and known.startswith(typed)):
        return True
    allowed = typos.allowed_typos(typed) if fuzzy else 0
    if not allowed or typed[0] != known[0]:
        return False
    if prefix:
        return any(OSA.distance(typed, known[:n]) <= allowed
                   for n in range(len(typed) - allowed, len(typed) + allowed + 1))
    return OSA.distance(typed, known) <= allowed


def _category_matches(query: fulltext.SearchQuery, names: list[str], fuzzy: bool) -> bool:
    """Whether every positive word of one of the query's alternatives is in the category's name."""
    return any(
        all(any(_word_matches(word, known, term.prefix and word == term.words[-1], fuzzy) for known in names)
            for term in group if not term.negated for word in term.words)
        for group in query.groups
    )


def _suggested_categories(
    session: Session, query: fulltext.SearchQuery, limit: int, version: int
) -> list[CategoryChoice]:
    every = _all_categories(session, version)
    found = [category for category, names in every if _category_matches(query, names, fuzzy=False)][:limit]
    if len(found) < limit:
        found += [category for category, names in every
                  if category not in found and _category_matches(query, names, fuzzy=True)][: limit - len(found)]
    return found


def suggest(
    session: Session,
    text: str | None,
    *,
    actor: User | None = None,
    limit: int = MAX_PRODUCTS,
    category_limit: int = MAX_CATEGORIES,
) -> Suggestions:
    """Up to ``limit`` products and ``category_limit`` categories for ``text`` (see the module
    docstring). Text over 200 characters raises ValidationFailed (field ``q``); text with no
    letters or digits, or a single letter, suggests nothing."""
    query = fulltext.parse(text, field="q")
    if query is None or query.matches_nothing or not _typed_enough(query):
        return Suggestions(products=[], categories=[])
    version = catalogue_version(session)
    products = _suggested_products(session, query, is_admin(actor), max(0, limit), version) if limit > 0 else []
    categories = _suggested_categories(session, query, max(0, category_limit), version)
    return Suggestions(products=products, categories=categories)
