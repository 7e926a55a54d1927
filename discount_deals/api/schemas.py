"""Request and response models shared by several routers, and the product serializer.

Money leaves the API as 2-decimal strings; ids are UUID strings; relative picture URLs are
made absolute so that a client served from another origin can load them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from fastapi import Request
from pydantic import BaseModel

from pydantic import Field

from ..models import Category, Product
from ..services.pricing import product_price
from ..services.money import money_str


class CategoryRef(BaseModel):
    id: str
    name: str
    slug: str


class ProductOut(BaseModel):
    id: str
    name: str
    description: str
    brand: str | None
    image_url: str
    price: str
    discount_price: str | None = Field(
        description="The discount in force now (null outside its window); admins see the discount price as stored"
    )
    discount_percent: int = Field(description="The saving in force now, in percent (0 outside the window)")
    discount_start: datetime | None = Field(description="The discount applies from this moment (inclusive, UTC)")
    discount_end: datetime | None = Field(description="The discount applies until this moment (exclusive, UTC)")
    discount_active: bool = Field(description="Whether the discount applies now")
    discount_state: Literal["none", "scheduled", "active", "expired"] = Field(
        description="none (no discount price), scheduled (its window has not opened), active, or expired"
    )
    effective_price: str = Field(description="What one unit costs now")
    per_customer_limit: int | None = Field(
        None, description="Flash sale: units one customer may buy while the discount applies (null: no limit)"
    )
    rating: float = Field(
        description="The average of the product's published reviews (one decimal) when it has any, else the "
        "rating the shop gave it"
    )
    review_count: int = Field(description="How many published reviews the product has")
    stock: int
    is_featured: bool
    is_available: bool
    status: str
    tags: list[str]
    related_products: list[str]
    category: CategoryRef | None
    created_at: datetime
    updated_at: datetime


class Message(BaseModel):
    detail: str


def answer(description: str | None = None, model: type[BaseModel] = Message) -> dict[str, Any]:
    """An OpenAPI response entry: the body's model and what the status means for this endpoint."""
    return {"model": model} if description is None else {"model": model, "description": description}


Responses = dict[int | str, dict[str, Any]]
SIGNED_OUT: Responses = {401: answer("Missing, expired or invalid access token")}
NOT_ADMIN: Responses = {403: answer("Not an admin")}
PAST_THE_END: Responses = {404: answer("A page past the end")}


def admin_errors(invalid: str) -> Responses:
    """What an admin endpoint answers besides success: 400 (``invalid``), 401 and 403."""
    return {400: answer(invalid), **SIGNED_OUT, **NOT_ADMIN}


def documented(**schema: Any) -> Callable[[dict[str, Any]], None]:
    """A field's ``json_schema_extra`` that documents the real rule in place of the lenient
    parsing type: the services check these rules themselves, with the spec's messages, so the
    request models accept anything and the document says what is actually accepted."""

    def replace(field_schema: dict[str, Any]) -> None:
        title = field_schema.get("title")
        field_schema.clear()
        field_schema.update(schema)
        if title:
            field_schema["title"] = title

    return replace


UUID_STRING = {"type": "string", "format": "uuid"}


def absolute_url(request: Request, url: str) -> str:
    """``/api/media/x.webp`` → ``http://host/api/media/x.webp``; absolute URLs pass through."""
    if url.startswith("/") and not url.startswith("//"):
        return f"{request.url.scheme}://{request.url.netloc}{url}"
    return url


class ProductPageOut(BaseModel):
    """A DRF page of products."""

    count: int
    next: str | None
    previous: str | None
    total_pages: int
    results: list[ProductOut]
    corrected_query: str | None = Field(
        None, description="Present only when the search was corrected for typos (the words typed found fewer "
        "than a page): the corrected text; exact=true searches what was typed"
    )


class ProductDataOut(BaseModel):
    data: ProductOut


class ProductListOut(BaseModel):
    data: list[ProductOut]


def product_json(request: Request, product: Product, category: Category | None, *, admin: bool = False) -> dict:
    """The product object every endpoint returns (products, cart lines, favourites)."""
    return product_out(request, product, category, admin=admin).model_dump(mode="json")


def product_out(request: Request, product: Product, category: Category | None, *, admin: bool = False) -> ProductOut:
    """:func:`product_json` as a model, built without re-validating what the database holds
    (listings serialise whole pages of these in pydantic's own JSON encoder).

    Prices are those in force now (services.pricing): outside its window a discount is not
    shown to shoppers as ``discount_price``, so clients that show ``discount_price`` as the
    price to pay (the existing client's card and guest cart) show what the shop charges.
    Admins (``admin``) get the stored discount price, so that a form filled from it and sent
    back keeps a scheduled discount."""
    now = product_price(product)
    return ProductOut.model_construct(
        id=product.id,
        name=product.name,
        description=product.description,
        brand=product.brand or None,  # the existing client's brand filter breaks on ""
        image_url=absolute_url(request, product.image_url) if product.image_url else "",
        price=money_str(product.price),
        discount_price=money_str(product.discount_price if admin else now.discount_price),
        discount_percent=now.discount_percent,
        discount_start=product.discount_start,
        discount_end=product.discount_end,
        discount_active=now.discount_active,
        discount_state=now.discount_state,
        effective_price=money_str(now.unit_price),
        per_customer_limit=product.per_customer_limit,
        rating=product.rating,
        review_count=product.review_count or 0,
        stock=product.stock,
        is_featured=product.is_featured,
        is_available=product.is_available,
        status=product.status,
        tags=list(product.tags or []),
        related_products=list(product.related_products or []),
        category=CategoryRef.model_construct(id=category.id, name=category.name, slug=category.slug) if category else None,
        created_at=product.created_at,
        updated_at=product.updated_at,
    )
