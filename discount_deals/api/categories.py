"""Categories: list, create, update, delete, bulk upload."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Request, Response
from sqlmodel import Session

from ..models import Category
from ..services import bulk_import, catalog, idempotency
from ..services.rows import values_of
from .deps import AdminUser, SessionDep, WriteSessionDep
from .pagination import build_page, page_request
from .bodies import body_limit, upload_body_limit
from .products import (
    PRODUCT_BODY_LIMIT,
    UPLOAD_BODY_DOC,
    IdempotencyKeyHeader,
    bulk_answer,
    idempotent_bulk_upload,
    read_bulk_rows,
)
from .openapi import documents, paginated
from .response_models import BulkResultOut, CategoryOut, CategoryPage
from .routing import ApiRouter
from .schemas import admin_errors, answer

router = ApiRouter(tags=["categories"])

# The existing client reads only the first page, so it holds every category up to this many.
CATEGORY_PAGE_SIZE = 1000


def category_json(category: Category) -> dict[str, Any]:
    return {**values_of(category, ("id", "name", "slug", "description")), "parent": category.parent_id}


@router.get("/category/", **documents(CategoryPage))
@paginated
def list_categories(request: Request, session: SessionDep):
    """A DRF page of categories by name (1,000 per page unless ``page_size``)."""
    page = page_request(request, default_size=CATEGORY_PAGE_SIZE)
    categories, count = catalog.list_categories(session, offset=page.offset, limit=page.page_size)
    return build_page(request, page, count, [category_json(c) for c in categories])


@router.post("/category/", status_code=201, **documents(CategoryOut, 201))
@body_limit(PRODUCT_BODY_LIMIT)
def create_category(payload: Annotated[dict[str, Any], Body()], session: WriteSessionDep, user: AdminUser):
    """Admin: create a category from ``{name, slug?, description?, parent?}`` (``id`` is ignored)."""
    return category_json(catalog.create_category(session, user, payload))


WRITE_ERRORS = {**admin_errors("Invalid input"), 404: answer("No such category")}


@router.patch("/category/{category_id:category_id}/", responses=WRITE_ERRORS)
def update_category(
    category_id: str, payload: Annotated[dict[str, Any], Body()], session: WriteSessionDep, user: AdminUser
) -> dict:
    """Admin: change a category's ``name``, ``slug``, ``description`` or ``parent`` (absent fields stay)."""
    return category_json(catalog.update_category(session, user, category_id, payload))


@router.put("/category/{category_id:category_id}/", responses=WRITE_ERRORS, include_in_schema=False)
def replace_category(
    category_id: str, payload: Annotated[dict[str, Any], Body()], session: WriteSessionDep, user: AdminUser
) -> dict:
    return category_json(catalog.update_category(session, user, category_id, payload))


@router.delete(
    "/category/{category_id:category_id}/",
    status_code=204,
    responses={**WRITE_ERRORS, 409: answer("Products are still in the category")},
)
def delete_category(category_id: str, session: WriteSessionDep, user: AdminUser):
    """Admin: delete a category that holds no products; 204."""
    catalog.delete_category(session, user, category_id)
    return Response(status_code=204)


@router.post(
    "/category/bulk-upload/", status_code=201, openapi_extra=UPLOAD_BODY_DOC, **documents(BulkResultOut, 201)
)
@body_limit(upload_body_limit)
async def bulk_upload_categories(request: Request, user: AdminUser, idempotency_key: IdempotencyKeyHeader = None):
    """Admin: create many categories from ``{"categories": [...]}`` or a CSV file (``file``)."""
    rows = await read_bulk_rows(request, "categories", bulk_import.parse_categories_csv)

    def work(session: Session) -> idempotency.StoredAnswer:
        result = bulk_import.import_categories(session, user, rows)
        return bulk_answer(result, [category_json(c) for c in result.created])

    return await idempotent_bulk_upload(user, "category.bulk-upload", idempotency_key, rows, work)
