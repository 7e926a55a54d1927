"""Products: list, featured, detail, admin writes, bulk upload.

Every product leaves through :func:`schemas.product_json`. Fixed paths (``featured``,
``bulk-upload``, and ``suggest`` and ``facets`` in :mod:`.product_search`) are never taken for
a ``{product_id}`` (see ``routing.ResourceId``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Body, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session
from starlette.datastructures import UploadFile

from ..db import session_scope, write_session
from ..models import Category, Product, User
from ..services import Conflict, ServiceError, ValidationFailed, bulk_import, catalog, idempotency
from ..services.catalog.listing import ORDERINGS, STATUS_FILTERS
from ..services.permissions import is_admin
from ..config.settings import get_settings
from .admission import read_limiter
from .bodies import body_limit, free_text, parse_json, upload_body_limit
from .deps import AdminUser, WriteSessionDep, optional_user_in
from .listing_params import ListingFiltersDep
from .pagination import build_page, page_request
from .openapi import declares, documents, paginated
from .response_models import BulkResultOut
from .routing import ApiRouter
from .schemas import ProductDataOut, ProductListOut, ProductPageOut, admin_errors, answer, product_json, product_out

router = ApiRouter(tags=["products"])

ProductBody = Annotated[dict[str, Any], Body(description=(
    "Product fields; category as an id, slug or name. On an update, an optional `stock_seen` (the stock "
    "the form showed) keeps the stock that orders moved meanwhile, or refuses a new one typed over it "
    "(409 `stock_changed`); an optional `seen` (the fields as the form showed them) does the same for "
    "every field it names (409 `product_changed`). Without them the fields sent are written."))]
FEATURED_DEFAULT, FEATURED_MAX = 4, 100
# Room for the multipart envelope around a file of the maximum size.
MULTIPART_OVERHEAD = 64 * 1024

UPLOAD_BODY_DOC = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "multipart/form-data": {
                "schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}
            },
        }
    }
}


def _too_large() -> ServiceError:
    megabytes = get_settings().bulk_max_bytes // (1024 * 1024)
    return ServiceError(f"The upload is too large: at most {megabytes} MB per upload.", status=413)


async def read_bulk_rows(request: Request, key: str, parse_csv: Callable[[bytes], list[dict]]) -> Any:
    """The rows of a bulk upload: ``{key: [...]}`` (or a bare array) as JSON, or a CSV file in
    the multipart field ``file``. Bodies over the size limit answer 413 without being kept."""
    limit = get_settings().bulk_max_bytes
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit + MULTIPART_OVERHEAD:
        raise _too_large()
    if request.headers.get("content-type", "").lower().startswith("multipart/form-data"):
        async with request.form(max_files=1, max_fields=20) as form:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                raise ValidationFailed("Please select a CSV file", fields={"file": ["This field is required."]})
            data = await upload.read(limit + 1)
        if len(data) > limit:
            raise _too_large()
        return await run_in_threadpool(parse_csv, data)

    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large()
        chunks.append(chunk)
    payload = await run_in_threadpool(parse_json, b"".join(chunks))
    if isinstance(payload, list):
        return payload
    if isinstance(payload, dict) and key in payload:
        return payload[key]
    raise ValidationFailed(
        f'Send {{"{key}": [...]}} as JSON or a CSV file in the "file" field.', fields={key: ["This field is required."]}
    )


def bulk_answer(result: bulk_import.ImportResult, created: list[dict]) -> idempotency.StoredAnswer:
    """201 with what was created when anything was, else 400; both list the refused rows.

    A refusal carries its reason as ``message`` too: the existing client's toast reads it."""
    body: dict[str, Any] = {"created": created, "errors": result.errors}
    if result.status != 201:
        body = {"detail": result.detail, "message": result.detail, **body}
    return idempotency.StoredAnswer(result.status, body)


IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Send the same key when retrying: the first answer is replayed instead of importing twice "
        "(kept 24 hours; 409 if the key came with a different upload).",
        max_length=255,
    ),
]


async def idempotent_bulk_upload(
    user: User,
    scope: str,
    key: str | None,
    rows: Any,
    work: Callable[[Session], idempotency.StoredAnswer],
) -> JSONResponse:
    """Run a bulk upload once per ``Idempotency-Key``: the answer is stored in the import's own
    transaction, and a retry (or a twin racing it) gets that answer back."""
    key = idempotency.clean_key(key)
    print_ = idempotency.fingerprint(rows) if key else ""

    def run() -> tuple[idempotency.StoredAnswer, bool]:
        with write_session() as session:
            if key:
                stored = idempotency.replay(session, user.id, scope, key, print_)
                if stored is not None:
                    return stored, True
            answer = work(session)
            if key:
                idempotency.remember(session, user.id, scope, key, print_, answer.status, answer.body)
            return answer, False

    def stored_by_twin() -> idempotency.StoredAnswer | None:
        with session_scope() as session:
            return idempotency.replay(session, user.id, scope, key, print_)

    try:
        answer, replayed = await run_in_threadpool(run)
    except (IntegrityError, Conflict):
        # PostgreSQL: a twin with the same key committed first (its rows, or its key, made ours
        # conflict); answer as it did.
        stored = await run_in_threadpool(stored_by_twin) if key else None
        if stored is None:
            raise
        answer, replayed = stored, True
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)


def _product_data(request: Request, product: Product, session: Session) -> dict:
    return {"data": product_json(request, product, session.get(Category, product.category_id), admin=True)}


class JSONBytes(Response):
    """A body already serialised (by pydantic): FastAPI's encoder would walk it again."""

    media_type = "application/json"


async def in_one_thread(
    request: Request, work: Callable[[Session, User | None], BaseModel], *, omit_if_none: frozenset[str] = frozenset()
) -> JSONBytes:
    """Run a read in one worker-thread call: session, caller and query together, then the JSON
    (without the top-level fields of ``omit_if_none`` that are None).

    The hot read paths avoid a thread hop per dependency; under 32 concurrent shoppers those
    hops (and FastAPI's re-encoding of the result) cost more than the query itself."""

    def run() -> bytes:
        with session_scope() as session:
            answer = work(session, optional_user_in(session, request))
            omitted = {name for name in omit_if_none if getattr(answer, name, None) is None}
            return answer.model_dump_json(exclude=omitted or None).encode()

    return JSONBytes(await anyio.to_thread.run_sync(run, limiter=read_limiter()))


# Present only when a search was corrected: otherwise the page is exactly what it was before.
CORRECTED = frozenset({"corrected_query"})


@router.get("/products/", response_model=ProductPageOut)
@paginated
@declares(bearer=True)
@free_text("search")
async def list_products(
    request: Request,
    filters: ListingFiltersDep,
    ordering: Annotated[str, Query(json_schema_extra={"enum": ["", *ORDERINGS]})] = "",
    status: Annotated[
        str,
        Query(
            description="Admins only: active, inactive, low_stock or out_of_stock",
            json_schema_extra={"enum": ["", *STATUS_FILTERS]},
        ),
    ] = "",
):
    """A DRF page of products (plus ``total_pages`` and ``corrected_query``); see services.catalog.

    Without ``ordering``: best match first for a search; else featured products first, then the
    newest, for shoppers, and newest first for admins. A search that finds fewer than a page of
    products is corrected for typos ("jasmin rcie" → "jasmine rice"; exact matches first):
    ``corrected_query`` is then the corrected text (absent otherwise); ``exact=true`` turns correction
    off. Admins see inactive and unavailable products too unless ``include_inactive=false``.
    ``status`` keeps active, inactive, low_stock (1 to 5 left) or out_of_stock products."""
    page = page_request(request)

    def listing(session: Session, user: User | None) -> ProductPageOut:
        query = replace(filters, ordering=ordering, page=page.page, page_size=page.page_size, status=status)
        result = catalog.list_products(session, query, actor=user)
        admin = is_admin(user)
        results = [product_out(request, p, c, admin=admin) for p, c in result.items]
        body = build_page(request, page, result.count, results)
        return ProductPageOut.model_construct(**body, corrected_query=result.corrected_query)

    return await in_one_thread(request, listing, omit_if_none=CORRECTED)


@router.get("/products/featured", response_model=ProductListOut)
@declares(bearer=True)
async def featured_products(
    request: Request,
    limit: Annotated[
        str, Query(json_schema_extra={"type": "integer", "minimum": 1, "maximum": FEATURED_MAX, "default": 4})
    ] = "",
):
    """``{"data": [...]}``: visible featured products, biggest saving first (4 unless ``limit``)."""
    count = FEATURED_DEFAULT
    if limit.strip():
        if not (limit.strip().isascii() and limit.strip().isdigit()) or not 1 <= int(limit) <= FEATURED_MAX:
            message = f"A whole number from 1 to {FEATURED_MAX} is required."
            raise ValidationFailed(f"Invalid limit: {message}", fields={"limit": [message]})
        count = int(limit)

    def featured(session: Session, user: User | None) -> ProductListOut:
        items = catalog.featured_products(session, limit=count)
        admin = is_admin(user)
        return ProductListOut.model_construct(data=[product_out(request, p, c, admin=admin) for p, c in items])

    return await in_one_thread(request, featured)


@router.post(
    "/products/bulk-upload/", status_code=201, openapi_extra=UPLOAD_BODY_DOC, **documents(BulkResultOut, 201)
)
@declares(403)
@body_limit(upload_body_limit)
async def bulk_upload_products(request: Request, user: AdminUser, idempotency_key: IdempotencyKeyHeader = None):
    """Admin: create many products from ``{"products": [...]}`` or a CSV file (``file``)."""
    rows = await read_bulk_rows(request, "products", bulk_import.parse_products_csv)

    def work(session: Session) -> idempotency.StoredAnswer:
        result = bulk_import.import_products(session, user, rows)
        return bulk_answer(result, [{"id": p.id, "name": p.name} for p in result.created])

    return await idempotent_bulk_upload(user, "products.bulk-upload", idempotency_key, rows, work)


@router.get("/products/{product_id:product_id}", response_model=ProductDataOut)
@declares(bearer=True)
async def get_product(request: Request, product_id: str):
    """``{"data": product}``; 404 when unknown or hidden from the caller."""

    def detail(session: Session, user: User | None) -> ProductDataOut:
        product, category = catalog.get_product(session, product_id, actor=user)
        return ProductDataOut.model_construct(data=product_out(request, product, category, admin=is_admin(user)))

    return await in_one_thread(request, detail)


# A description may hold 100,000 characters (each up to 6 bytes escaped in JSON).
PRODUCT_BODY_LIMIT = 1024 * 1024


@router.post("/products/", status_code=201, **documents(ProductDataOut, 201))
@body_limit(PRODUCT_BODY_LIMIT)
def create_product(request: Request, payload: ProductBody, session: WriteSessionDep, user: AdminUser):
    """Admin: create a product; 201 with ``{"data": product}``."""
    product = catalog.create_product(session, user, payload)
    return _product_data(request, product, session)


@router.put("/products/{product_id:product_id}/", **documents(ProductDataOut))
@body_limit(PRODUCT_BODY_LIMIT)
def replace_product(request: Request, product_id: str, payload: ProductBody, session: WriteSessionDep, user: AdminUser):
    """Admin: update a product from the full admin form; ``{"data": product}``."""
    product = catalog.update_product(session, user, product_id, payload)
    return _product_data(request, product, session)


@router.patch("/products/{product_id:product_id}/", **documents(ProductDataOut))
@body_limit(PRODUCT_BODY_LIMIT)
def patch_product(request: Request, product_id: str, payload: ProductBody, session: WriteSessionDep, user: AdminUser):
    """Admin: change only the given fields; ``{"data": product}``."""
    product = catalog.update_product(session, user, product_id, payload, partial=True)
    return _product_data(request, product, session)


class RestockIn(BaseModel):
    quantity: Any = Field(description="Units to add (a whole number, at least 1)")


@router.post(
    "/products/{product_id:product_id}/restock/",
    responses={
        **admin_errors("Invalid quantity"),
        404: answer("No such product"),
    },
    response_model=ProductDataOut,
)
def restock_product(request: Request, product_id: str, body: RestockIn, session: WriteSessionDep, user: AdminUser):
    """Admin: add units to a product's stock in one step (the low-stock list's Restock); ``{"data": product}``."""
    product = catalog.restock(session, user, product_id, body.quantity)
    return _product_data(request, product, session)


@router.delete("/products/{product_id:product_id}", status_code=204)
def delete_product(product_id: str, session: WriteSessionDep, user: AdminUser):
    """Admin: delete a product; 204."""
    catalog.delete_product(session, user, product_id)
    return Response(status_code=204)
