"""CSV exports for admins, streamed: ``/admin/exports/products.csv`` (re-uploads through the
bulk upload as it is), ``/admin/exports/orders.csv?date_from=&date_to=`` (one line per order
line, by the day the order was placed) and ``/admin/exports/documents.csv?date_from=&date_to=`` (the
register of receipts and credit notes, by the day each was issued: services.register).

Admins authenticate with the bearer header, or with a short-lived download token in ``token``
(what the back office's Export buttons use: a link cannot carry the header).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.responses import StreamingResponse

from ..db import session_scope
from ..models import User
from ..services import NotAuthenticated, exports, register
from ..services.bulk_import import PRODUCT_EXPORT_COLUMNS
from ..services.permissions import require_admin
from .deps import _Unauthorized, current_user
from .routing import ApiRouter
from .schemas import NOT_ADMIN, answer

router = ApiRouter(tags=["admin"])

CSV_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "The CSV file, streamed"},
    400: answer("Invalid date"),
    401: answer("Missing, expired or invalid access or download token"),
    **NOT_ADMIN,
}


def _exporter(kind: str):
    def dependency(
        request: Request,
        token: Annotated[str, Query(description="A download token from the back office (instead of the header)")] = "",
    ) -> User:
        if token:
            try:
                with session_scope() as session:
                    return exports.user_for_download_token(session, token, kind)
            except NotAuthenticated as exc:
                raise _Unauthorized(exc.detail) from None
        return require_admin(current_user(request))

    return dependency


def _stream(columns, rows_for, filename: str) -> StreamingResponse:
    """Stream ``rows_for(session)`` as CSV, reading it in a session that lives as long as the download."""

    def body() -> Iterator[bytes]:
        with session_scope() as session:
            yield from exports.csv_chunks(columns, rows_for(session))

    return StreamingResponse(
        body(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"},
    )


@router.get("/admin/exports/products.csv", response_class=StreamingResponse, responses=CSV_RESPONSES)
def export_products(user: Annotated[User, Depends(_exporter("products"))]):
    """Every product with the bulk-upload template's columns (upload it again as it is)."""
    require_admin(user)
    return _stream(PRODUCT_EXPORT_COLUMNS, lambda session: exports.product_rows(session, user),
                   exports.export_filename("products"))


@router.get("/admin/exports/orders.csv", response_class=StreamingResponse, responses=CSV_RESPONSES)
def export_orders(
    user: Annotated[User, Depends(_exporter("orders"))],
    date_from: Annotated[str, Query(description="First day (UTC, YYYY-MM-DD), included")] = "",
    date_to: Annotated[str, Query(description="Last day (UTC, YYYY-MM-DD), included")] = "",
):
    """One line per order line of the orders placed in the date range, oldest first, with the
    customer, status, payment and the order's totals."""
    require_admin(user)
    days = exports.DateRange(exports.parse_day(date_from, "date_from"), exports.parse_day(date_to, "date_to"))
    return _stream(exports.ORDER_COLUMNS, lambda session: exports.order_rows(session, user, days),
                   exports.export_filename("orders", days))


@router.get("/admin/exports/documents.csv", response_class=StreamingResponse, responses=CSV_RESPONSES)
def export_documents(
    user: Annotated[User, Depends(_exporter("documents"))],
    date_from: Annotated[str, Query(description="First day of issue (UTC, YYYY-MM-DD), included")] = "",
    date_to: Annotated[str, Query(description="Last day of issue (UTC, YYYY-MM-DD), included")] = "",
):
    """The register of receipts and credit notes issued in the date range, in the order of issue
    (credit notes' amounts negative, so each column sums to what the shop kept)."""
    require_admin(user)
    days = exports.DateRange(exports.parse_day(date_from, "date_from"), exports.parse_day(date_to, "date_to"))
    return _stream(register.COLUMNS, lambda session: register.document_rows(session, user, days),
                   exports.export_filename("documents", days))
