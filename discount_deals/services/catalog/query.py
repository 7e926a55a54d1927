"""What a product listing is asked for, in one value: :class:`ListingQuery`.

Each face builds one from its inputs (the API's query parameters, the storefront's address, the
back office's search box) and hands it to :func:`.listing.list_products` and
:func:`.facets.facet_counts`, which give it to :func:`.filters.build_filters`. The values are
checked there, where the rules are (an invalid price range or discount is a ValidationFailed),
so a face may pass on what the shopper typed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class ListingQuery:
    """A listing's search, filters, order and page (hashable: shared pages are cached by it).
    Every field has a default: a face names only what it takes."""

    search: str = ""
    """Full-text words (see :mod:`.search`); at most 200 characters."""
    exact: bool = False
    """Search the words as typed: no typo correction."""
    category: str = ""
    """A category's id, slug or name (one that names nothing: an empty listing)."""
    brand: str = ""
    """A brand, compared case-insensitively."""
    price_range: str = ""
    """One of ``PRICE_RANGES`` (on the price in force now)."""
    discount: str = ""
    """At least that many percent off now: a whole number from 1 to 100."""
    in_stock: bool = False
    """Only products with at least one unit."""
    status: str = ""
    """The back office's filter, one of ``STATUS_FILTERS``."""
    include_inactive: bool | None = None
    """For admins, who see hidden products too: False shows only what shoppers see."""
    ordering: str = ""
    """A key of ``ORDERINGS``; "" for the default (best match for a search, else featured first
    for shoppers and newest first for admins)."""
    page: int = 1
    """From 1."""
    page_size: int = 10
    """Products a page (at most ``DD_MAX_PAGE_SIZE``)."""

    @classmethod
    def of(cls, query: ListingQuery | None, changes: dict[str, Any]) -> ListingQuery:
        """``query`` (a default one when None) with ``changes`` made: a service called with its
        parameters by name (``list_products(session, search="rice")``) builds its query so."""
        query = query if query is not None else cls()
        return replace(query, **changes) if changes else query

    def filters(self) -> ListingQuery:
        """The same listing whatever its order and page: what its counts depend on."""
        return replace(self, ordering="", page=1, page_size=0)
