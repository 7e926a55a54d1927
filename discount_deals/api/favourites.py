"""Favourites of the logged-in user (CLIENT-CONTRACT §7: defined, unused by the existing client)."""

from __future__ import annotations

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..services import favourites as favourite_service
from ..services.moments import utc_text
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .pagination import build_page, page_request
from .openapi import declares, documents, paginated
from .response_models import FavouriteOut, FavouritePage
from .routing import ApiRouter
from .schemas import UUID_STRING, documented, product_json

router = ApiRouter(tags=["favourites"])

FAVOURITES_PAGE_SIZE = 100


class FavouriteIn(BaseModel):
    product: str = Field(json_schema_extra=documented(**UUID_STRING))


def _entry_json(request: Request, entry: favourite_service.FavouriteEntry) -> dict:
    return {
        "id": entry.id,
        "product": product_json(request, entry.product, entry.category),
        "added_at": utc_text(entry.added_at),
    }


@router.get("/favorites/", **documents(FavouritePage))
@paginated
def list_favourites(request: Request, session: SessionDep, user: CurrentUser) -> dict:
    page = page_request(request, default_size=FAVOURITES_PAGE_SIZE)
    count = favourite_service.count_favourites(session, user)
    entries = favourite_service.list_favourites(session, user, page.offset, page.page_size)
    return build_page(request, page, count, [_entry_json(request, entry) for entry in entries])


@router.post(
    "/favorites/",
    status_code=201,
    response_model=None,
    responses={201: {"model": FavouriteOut}, 200: {"model": FavouriteOut, "description": "Already a favourite"}},
)
@declares(404)
def add_favourite(body: FavouriteIn, request: Request, session: WriteSessionDep, user: CurrentUser) -> JSONResponse:
    entry, created = favourite_service.add_favourite(session, user, body.product)
    return JSONResponse(_entry_json(request, entry), status_code=201 if created else 200)


@router.delete("/favorites/{favourite_id}/", status_code=204)
@declares(404)
def remove_favourite(favourite_id: str, session: WriteSessionDep, user: CurrentUser) -> Response:
    """Remove a favourite, named by the product's id or by the favourite's own ``id``."""
    favourite_service.remove_favourite(session, user, favourite_id)
    return Response(status_code=204)
