"""The sitemap: the shop's public pages, category listings and every visible product.

Generated from the database and cached. Any write to the product or category tables (ORM
flushes, bulk imports' Core inserts, stock updates) marks its connection; when that connection
commits, the cache is dropped (:func:`invalidate`), so this worker's next request rebuilds it.
Other workers keep their copy for at most :data:`MAX_AGE_S`. Sitemaps hold at most 50,000
URLs, so a larger catalogue is split into numbered parts listed by a sitemap index.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape

from sqlalchemy import event, func
from sqlalchemy.engine import Engine
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import Session, select

from .. import routes
from ..models import Category, Product
from ..services.catalog import visible_clause

MAX_AGE_S = 300.0
URLS_PER_FILE = 50_000
STATIC_PAGES = ("/", "/products", "/test-home", "/login", "/register")
_CATALOGUE_TABLES = frozenset({"product", "category"})
_FLAG = "dd_catalogue_changed"


@dataclass(frozen=True)
class Entry:
    path: str
    lastmod: datetime | None = None


@dataclass
class _Cached:
    built_at: float
    entries: list[Entry]
    xml: dict[tuple[str, int], str]  # (base URL, part) -> document


_lock = threading.Lock()
_cache: _Cached | None = None
_generation = 0  # bumped by every invalidation: a build that began before one is not kept
# Documents kept per build: the public URL's few, not one per Host header a client makes up
# (without DD_PUBLIC_URL the base URL follows the request's host and port).
MAX_DOCUMENTS = 8


def invalidate() -> None:
    """Drop the cached sitemap (called automatically after a committed catalogue write)."""
    global _cache, _generation
    with _lock:
        _cache = None
        _generation += 1


def _entries(session: Session) -> list[Entry]:
    entries = [Entry(path) for path in STATIC_PAGES]
    visible = visible_clause()
    categories = session.exec(
        select(Category.slug, func.max(Product.updated_at))
        .join(Product, Product.category_id == Category.id)
        .where(visible)
        .group_by(Category.slug)
        .order_by(Category.slug)
    ).all()
    entries += [Entry(routes.category_path(slug), lastmod) for slug, lastmod in categories]
    products = session.exec(select(Product.id, Product.updated_at).where(visible).order_by(Product.id)).all()
    entries += [Entry(routes.product_path(product_id), updated) for product_id, updated in products]
    return entries


def _current(session: Session) -> _Cached:
    global _cache
    with _lock:
        cached = _cache
        generation = _generation
    if cached is not None and time.monotonic() - cached.built_at < MAX_AGE_S:
        return cached
    fresh = _Cached(built_at=time.monotonic(), entries=_entries(session), xml={})
    with _lock:
        if generation == _generation:  # no catalogue write committed while it was built
            _cache = fresh
    return fresh


def part_count(session: Session) -> int:
    """How many sitemap files the catalogue needs (1 unless it is over 50,000 URLs)."""
    entries = _current(session).entries
    return max(1, -(-len(entries) // URLS_PER_FILE))


def _lastmod(moment: datetime | None) -> str:
    return f"<lastmod>{moment.date().isoformat()}</lastmod>" if moment else ""


def sitemap_xml(session: Session, base_url: str, part: int = 0) -> str | None:
    """The sitemap document: with ``part`` 0, the whole sitemap (or, past 50,000 URLs, the index
    of its parts); with ``part`` ≥ 1, that part. None for a part that does not exist."""
    cached = _current(session)
    key = (base_url, part)
    document = cached.xml.get(key)
    if document is not None:
        return document
    entries = cached.entries
    parts = max(1, -(-len(entries) // URLS_PER_FILE))
    if part == 0 and parts > 1:
        items = "".join(f"<sitemap><loc>{escape(base_url)}/sitemap-{n}.xml</loc></sitemap>" for n in range(1, parts + 1))
        document = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{items}</sitemapindex>\n'
        )
    else:
        if part < 0 or part > parts:
            return None
        chunk = entries if part == 0 else entries[(part - 1) * URLS_PER_FILE : part * URLS_PER_FILE]
        urls = "".join(f"<url><loc>{escape(base_url + e.path)}</loc>{_lastmod(e.lastmod)}</url>" for e in chunk)
        document = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>\n'
        )
    if len(cached.xml) < MAX_DOCUMENTS:
        cached.xml[key] = document
    return document


# --- invalidation on committed catalogue writes ------------------------------------------------


def _touches_catalogue(statement) -> bool:
    if not isinstance(statement, UpdateBase):
        return False
    table = getattr(statement, "table", None)
    return getattr(table, "name", None) in _CATALOGUE_TABLES


@event.listens_for(Engine, "after_execute")
def _mark_catalogue_write(conn, clauseelement, multiparams, params, execution_options, result):  # pragma: no cover - driver callback
    if _touches_catalogue(clauseelement):
        conn.info[_FLAG] = True


@event.listens_for(Engine, "commit")
def _invalidate_after_commit(conn):  # pragma: no cover - driver callback
    if conn.info.pop(_FLAG, False):
        invalidate()


@event.listens_for(Engine, "rollback")
def _forget_after_rollback(conn):  # pragma: no cover - driver callback
    conn.info.pop(_FLAG, None)
