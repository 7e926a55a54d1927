"""The back office's orders: every customer's orders with filters, one order with its history,
and recording a refund (status changes: ``PATCH /orders/{id}/``)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import Body, Request
from pydantic import BaseModel

from ..services.orders import status as lifecycle
from ..services import orders as order_service
from ..services import ValidationFailed, returns
from ..services.exports import DateRange, parse_day
from .deps import AdminUser, CurrentUser, SessionDep
from .orders import SeenIn, one_order_json, order_json
from .pagination import build_page, page_request
from .openapi import declares, documents, paginated
from .response_models import OrderOut, OrderPage
from .routing import ApiRouter

router = ApiRouter(tags=["admin"])

ADMIN_ORDERS_PAGE_SIZE = 20


def _date(request: Request, name: str) -> date | None:
    return parse_day(request.query_params.get(name), name)


def _flag(value: str | None) -> bool:
    """``attention``: on ("1", "true") or off ("0", "false", absent); anything else is a 400 (it
    was read as off, and "yes" listed every order)."""
    if value is None or value in ("", "0", "false"):
        return False
    if value in ("1", "true"):
        return True
    raise ValidationFailed('attention must be "true" or "false".', fields={"attention": ['Use "true" or "false".']})


def filters_from(request: Request) -> lifecycle.OrderFilters:
    query = request.query_params
    days = DateRange(_date(request, "date_from"), _date(request, "date_to"))  # reversed: a 400, as the export's
    return lifecycle.OrderFilters(
        status=query.get("status", "").strip(),
        payment_status=query.get("payment_status", "").strip(),
        delivery_method=query.get("delivery_method", "").strip(),
        date_from=days.first,
        date_to=days.last,
        search=query.get("search", ""),
        attention_only=_flag(query.get("attention")),
    )


@router.get("/admin/orders/", **documents(OrderPage))
@paginated
@declares(403)
def list_orders(request: Request, session: SessionDep, user: AdminUser) -> dict:
    page = page_request(request, default_size=ADMIN_ORDERS_PAGE_SIZE)
    rows, count = lifecycle.admin_orders(session, user, filters_from(request), offset=page.offset,
                                         limit=page.page_size)
    lines = order_service.items_for_orders(session, [row.order for row in rows])
    results = []
    for row in rows:
        data = order_json(request, row.order, lines[row.order.id], admin=True)
        data["customer"] = {"id": row.order.user_id, "email": row.email, "name": row.name}
        results.append(data)
    return build_page(request, page, count, results)


@router.get("/admin/orders/{order_id}/", **documents(OrderOut))
@declares(403)
def get_order(order_id: str, request: Request, session: SessionDep, user: AdminUser) -> dict:
    order = order_service.get_order(session, user, order_id)
    return one_order_json(request, session, order, admin=True)


class RefundedIn(BaseModel):
    # Optional: the order as the admin's page showed it (409 ``changed`` when it differs now).
    seen: SeenIn | None = None


@router.post("/admin/orders/{order_id}/refunded/", **documents(OrderOut))
@declares(403, 502)
def mark_refunded(order_id: str, request: Request, session: SessionDep, user: CurrentUser,
                  body: Annotated[RefundedIn | None, Body()] = None) -> dict:
    """Settle an order flagged "refund_due": a cancelled, paid order is refunded whole (mobile
    money through the provider) with a credit note, as a return is; money beyond an order's total
    is recorded as given back. 502 ``refund_failed`` when the provider refuses; 409 ``changed``
    when ``seen`` (optional) is not the order as it is now."""
    seen = body.seen.seen() if body is not None and body.seen is not None else None
    settled = returns.settle_refund_due(user, order_id, seen)
    return one_order_json(request, session, order_service.get_order(session, user, settled.id), admin=True)
