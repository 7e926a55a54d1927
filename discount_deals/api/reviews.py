"""Reviews from buyers (issue 34): a product's published reviews, a buyer's review (a second POST
edits it), and the back office's list, hide and show. The rules are in ``services.reviews``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Body, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..services import ValidationFailed
from ..services import reviews as review_service
from ..services.moments import utc_text
from .deps import AdminUser, CurrentUser, OptionalUser, SessionDep, WriteSessionDep
from .openapi import declares, documents, paginated
from .pagination import build_page, page_request
from .routing import ApiRouter

router = ApiRouter(tags=["reviews"])

REVIEWS_PAGE_SIZE = 10
ADMIN_REVIEWS_PAGE_SIZE = 20
# A review's text is at most 2,000 characters (each up to 6 bytes escaped in JSON).
REVIEW_BODY_LIMIT = 16 * 1024


class ReviewOut(BaseModel):
    id: str
    product: str = Field(description="The product's id")
    rating: int = Field(description="Stars, 1 to 5")
    text: str = Field(description="Plain text (never HTML); line breaks are kept")
    reviewer: str = Field(description="The reviewer's first name")
    verified_purchase: bool = Field(description="Always true: only customers who received the product review it")
    created_at: datetime
    updated_at: datetime


class MyReviewOut(ReviewOut):
    is_hidden: bool = Field(description="Hidden by the shop: not shown to others nor counted in the rating")


class ReviewPageOut(BaseModel):
    """A DRF page of a product's published reviews, newest first, with the product's figures."""

    count: int
    next: str | None
    previous: str | None
    total_pages: int
    results: list[ReviewOut]
    rating: float = Field(description="The product's rating (its reviews' average, else the shop's rating)")
    review_count: int


class ReviewDataOut(BaseModel):
    data: MyReviewOut


class MineOut(BaseModel):
    data: MyReviewOut | None = Field(description="The caller's review of the product, or null")
    can_review: bool = Field(description="Whether the caller received the product (and so may post a review)")


class AdminReviewOut(MyReviewOut):
    product_name: str
    user: str = Field(description="The reviewer's user id")
    email: str


class AdminReviewPage(BaseModel):
    count: int
    next: str | None
    previous: str | None
    total_pages: int
    results: list[AdminReviewOut]


class AdminReviewDataOut(BaseModel):
    data: AdminReviewOut


class ReviewIn(BaseModel):
    rating: Any = Field(None, description="Stars: a whole number from 1 to 5",
                        json_schema_extra={"type": "integer", "minimum": 1, "maximum": 5})
    text: Any = Field(None, description="Plain text, at most 2,000 characters (control characters removed)",
                      json_schema_extra={"type": "string", "maxLength": 2000})


def review_json(view: review_service.ReviewView, *, mine: bool = False) -> dict[str, Any]:
    body = {
        "id": view.id,
        "product": view.product_id,
        "rating": view.rating,
        "text": view.text,
        "reviewer": view.reviewer,
        "verified_purchase": view.verified_purchase,
        "created_at": utc_text(view.created_at),
        "updated_at": utc_text(view.updated_at),
    }
    if mine:
        body["is_hidden"] = view.is_hidden
    return body


def admin_review_json(item: review_service.AdminReviewView) -> dict[str, Any]:
    return {**review_json(item.review, mine=True), "product_name": item.product_name, "user": item.user_id,
            "email": item.email}


@router.get("/products/{product_id:product_id}/reviews/", **documents(ReviewPageOut))
@paginated
@declares(bearer=True)
def list_reviews(product_id: str, request: Request, session: SessionDep, user: OptionalUser) -> dict:
    """A DRF page of the product's published reviews, newest first, with the reviewer's first
    name and ``verified_purchase``; ``rating`` and ``review_count`` are the product's."""
    page = page_request(request, default_size=REVIEWS_PAGE_SIZE)
    found = review_service.product_reviews(session, product_id, offset=page.offset, limit=page.page_size, actor=user)
    body = build_page(request, page, found.count, [review_json(view) for view in found.reviews])
    return {**body, "rating": found.rating, "review_count": found.review_count}


@router.post(
    "/products/{product_id:product_id}/reviews/",
    status_code=201,
    response_model=None,
    responses={
        201: {"model": ReviewDataOut, "description": "The caller's first review of the product"},
        200: {"model": ReviewDataOut, "description": "The caller's review, edited (one review per product)"},
    },
)
@declares(403)
def post_review(
    product_id: str,
    session: WriteSessionDep,
    user: CurrentUser,
    body: Annotated[ReviewIn, Body()],
) -> JSONResponse:
    """Review a product the caller received (a delivered order of it): 201 the first time; a
    second POST edits the caller's review and answers 200. 403 with code ``not_a_buyer`` for
    anyone else; 400 with code ``review_invalid`` and field errors for a bad rating or text."""
    review, created = review_service.post_review(session, user, product_id, body.model_dump())
    data = review_json(review_service.review_view(session, review), mine=True)
    return JSONResponse({"data": data}, status_code=201 if created else 200)


@router.get("/products/{product_id:product_id}/reviews/mine/", **documents(MineOut))
def my_review(product_id: str, session: SessionDep, user: CurrentUser) -> dict:
    """The caller's review of the product (``null`` if none) and whether they may post one. To
    edit it, POST to the reviews again (this path answers GET only)."""
    review, can_review = review_service.my_review(session, user, product_id)
    data = review_json(review_service.review_view(session, review), mine=True) if review else None
    return {"data": data, "can_review": can_review}


def _hidden_filter(request: Request) -> bool | None:
    raw = request.query_params.get("hidden", "").strip().lower()
    if raw in ("", "all"):
        return None
    if raw in ("true", "1", "hidden"):
        return True
    if raw in ("false", "0", "published"):
        return False
    message = "Use hidden=true (hidden reviews) or hidden=false (published ones)."
    raise ValidationFailed(message, fields={"hidden": [message]})


@router.get("/admin/reviews/", tags=["admin"], **documents(AdminReviewPage))
@paginated
@declares(403)
def admin_list_reviews(request: Request, session: SessionDep, user: AdminUser) -> dict:
    """Admin: every review, newest first; ``hidden=true`` keeps the hidden ones, ``hidden=false``
    the published ones."""
    page = page_request(request, default_size=ADMIN_REVIEWS_PAGE_SIZE)
    items, count = review_service.admin_reviews(session, user, hidden=_hidden_filter(request), offset=page.offset,
                                                limit=page.page_size)
    return build_page(request, page, count, [admin_review_json(item) for item in items])


@router.post("/admin/reviews/{review_id}/hide/", tags=["admin"], **documents(AdminReviewDataOut))
@declares(403)
def hide_review(review_id: str, session: WriteSessionDep, user: AdminUser) -> dict:
    """Admin: hide a review from the product page and its rating (audited as ``review.hide``)."""
    return {"data": admin_review_json(review_service.set_hidden(session, user, review_id, True))}


@router.post("/admin/reviews/{review_id}/show/", tags=["admin"], **documents(AdminReviewDataOut))
@declares(403)
def show_review(review_id: str, session: WriteSessionDep, user: AdminUser) -> dict:
    """Admin: publish a hidden review again (audited as ``review.show``)."""
    return {"data": admin_review_json(review_service.set_hidden(session, user, review_id, False))}
