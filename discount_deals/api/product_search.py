"""Search helpers beside the product listing: suggestions while typing, and facet counts.

``GET /products/suggest/?q=`` and ``GET /products/facets/`` (with the listing's filters) are
reads served like the listing (one worker-thread call, the token read by the endpoint). Their
paths are never taken for a product id (``routing.ResourceId``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request
from sqlmodel import Session

from ..models import User
from ..services import catalog
from ..services.pricing import product_price
from ..services.money import money_str
from .bodies import free_text
from .openapi import declares
from .listing_params import ListingFiltersDep
from .products import CORRECTED, in_one_thread
from .response_models import (
    FacetsOut,
    FacetValueOut,
    SuggestedCategoryOut,
    SuggestedProductOut,
    SuggestionsOut,
)
from .routing import ApiRouter
from .schemas import absolute_url

router = ApiRouter(tags=["products"])


@router.get("/products/suggest/", response_model=SuggestionsOut)
@declares(bearer=True)
@free_text("q")
async def suggest_products(
    request: Request,
    q: Annotated[
        str, Query(description="The text typed so far; its last word may be unfinished",
                   json_schema_extra={"maxLength": 200})
    ] = "",
):
    """``{"products": [...], "categories": [...]}``: at most 8 products (id, name, effective_price,
    image_url) and 3 categories (id, name, slug) for the text typed so far. Words match whole
    words in the name, brand or category, the last one word starts; products with the words in
    their name first, newest first; typos are tolerated when the exact text finds too few (those
    products follow). Shoppers see visible products only."""

    def suggestions(session: Session, user: User | None) -> SuggestionsOut:
        found = catalog.suggest(session, q, actor=user)
        products = [
            SuggestedProductOut.model_construct(
                id=p.id, name=p.name, effective_price=money_str(product_price(p).unit_price),
                image_url=absolute_url(request, p.image_url) if p.image_url else "",
            )
            for p, _category in found.products
        ]
        categories = [SuggestedCategoryOut.model_construct(id=c.id, name=c.name, slug=c.slug) for c in found.categories]
        return SuggestionsOut.model_construct(products=products, categories=categories)

    return await in_one_thread(request, suggestions)


def _values(values: list[catalog.FacetValue]) -> list[FacetValueOut]:
    return [FacetValueOut.model_construct(value=v.value, label=v.label, count=v.count) for v in values]


@router.get("/products/facets/", response_model=FacetsOut)
@declares(400, bearer=True)
@free_text("search")
async def product_facets(request: Request, filters: ListingFiltersDep):
    """How many products each filter choice leaves, for the listing with these filters: each
    facet counted with every *other* filter applied. Shoppers count visible products; admins
    every product unless ``include_inactive=false`` (as their listing)."""

    def facets(session: Session, user: User | None) -> FacetsOut:
        found = catalog.facet_counts(session, filters, actor=user)
        return FacetsOut.model_construct(
            count=found.count, category=_values(found.category), brand=_values(found.brand),
            price_range=_values(found.price_range), discount=_values(found.discount), in_stock=found.in_stock,
            corrected_query=found.corrected_query,
        )

    return await in_one_thread(request, facets, omit_if_none=CORRECTED)
