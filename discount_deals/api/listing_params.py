"""The query parameters a product listing filters by, shared by the listing and its facet counts.

:func:`listing_filters` is an ``async`` dependency (no worker-thread hop): it reads and checks
the parameters into a ``catalog.ListingQuery``, which the endpoint completes (order, page) and
hands to the service.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query

from ..services import ValidationFailed
from ..services.catalog import PRICE_RANGES, ListingQuery
from ..services.form_rules import MUST_BE_BOOLEAN

FLAG_VALUES = ["", "true", "false", "1", "0", "yes", "no"]


def flag(raw: str, name: str) -> bool | None:
    """A boolean query parameter; None when absent or blank, a 400 naming it when not a boolean."""
    value = raw.strip().lower()
    if not value:
        return None
    if value in {"0", "false", "no"}:
        return False
    if value in {"1", "true", "yes"}:
        return True
    raise ValidationFailed(f"Invalid {name}: {MUST_BE_BOOLEAN.lower()}", fields={name: [MUST_BE_BOOLEAN]})


def _flag_query(description: str) -> Any:
    return Query(description=description, json_schema_extra={"enum": FLAG_VALUES})


async def listing_filters(
    search: Annotated[
        str, Query(description="Words to find in name, description or brand", json_schema_extra={"maxLength": 200})
    ] = "",
    category: Annotated[str, Query(description="A category id, slug or name")] = "",
    brand: Annotated[str, Query(description="A brand, e.g. shoprite")] = "",
    price_range: Annotated[str, Query(json_schema_extra={"enum": ["", *PRICE_RANGES]})] = "",
    discount: Annotated[
        str,
        Query(description="At least this many percent off now: a whole number from 1 to 100 (the facets offer "
              "10, 30, 50)", json_schema_extra={"pattern": "^([1-9][0-9]?|100)?$"}),
    ] = "",
    in_stock: Annotated[str, _flag_query("true: only products with stock")] = "",
    exact: Annotated[str, _flag_query("true: search exactly the words typed, without typo correction")] = "",
    include_inactive: Annotated[str, _flag_query("Admins only")] = "",
) -> ListingQuery:
    """The listing's search and filters (its order and page are the endpoint's)."""
    return ListingQuery(
        search=search, category=category, brand=brand, price_range=price_range, discount=discount,
        in_stock=bool(flag(in_stock, "in_stock")), exact=bool(flag(exact, "exact")),
        include_inactive=flag(include_inactive, "include_inactive"),
    )


ListingFiltersDep = Annotated[ListingQuery, Depends(listing_filters)]
