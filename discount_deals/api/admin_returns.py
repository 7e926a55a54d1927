"""The back office's returns: every return (a DRF page, filtered by ``status``), and its steps:
``POST /admin/returns/{id}/approve/ | reject/ {note} | receive/ | refund/ [{method: "cash"}]``.

A step that does not follow from where the return stands is 409 ``return_status``; a refund the
provider refuses is 502 ``refund_failed`` (the return stays received). Rules: services/returns/.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from pydantic import BaseModel, Field

from ..services import returns
from .deps import AdminUser, SessionDep, WriteSessionDep
from .openapi import declares, documents, paginated
from .pagination import build_page, page_request
from .returns import ReturnOut, ReturnPage, return_json
from .routing import ApiRouter
from .schemas import documented

router = ApiRouter(tags=["admin"])

ADMIN_RETURNS_PAGE_SIZE = 20


class RejectIn(BaseModel):
    note: Any = Field(default=None, json_schema_extra=documented(
        type="string", minLength=1, maxLength=500, description="Why it is not approved (the customer is told)"))


@router.get("/admin/returns/", **documents(ReturnPage))
@paginated
@declares(403)
def list_returns(request: Request, session: SessionDep, user: AdminUser) -> dict:
    """Every return, newest first; ``status`` filters (requested, approved, rejected, received, refunded,
    withdrawn)."""
    page = page_request(request, default_size=ADMIN_RETURNS_PAGE_SIZE)
    status = request.query_params.get("status", "").strip()[:16]
    views, count = returns.admin_returns(session, user, status, offset=page.offset, limit=page.page_size)
    return build_page(request, page, count, [return_json(view, staff=True) for view in views])


@router.post("/admin/returns/{return_id}/approve/", **documents(ReturnOut))
def approve(return_id: str, session: WriteSessionDep, user: AdminUser) -> dict:
    """Accept a requested return: the customer sends the items back."""
    return return_json(returns.approve(session, user, return_id), staff=True)


@router.post("/admin/returns/{return_id}/reject/", **documents(ReturnOut))
def reject(return_id: str, session: WriteSessionDep, user: AdminUser, body: RejectIn | None = None) -> dict:
    """Turn a requested return down, saying why (400 ``note_required`` without a note)."""
    return return_json(returns.reject(session, user, return_id, body.note if body else None), staff=True)


@router.post("/admin/returns/{return_id}/receive/", **documents(ReturnOut))
def receive(return_id: str, session: WriteSessionDep, user: AdminUser) -> dict:
    """The returned items arrived: their stock goes back (once)."""
    return return_json(returns.receive(session, user, return_id), staff=True)


class RefundIn(BaseModel):
    method: Any = Field(default=None, json_schema_extra=documented(
        type="string", enum=["cash"],
        description="cash: pay back in cash a return whose mobile-money refund failed (409 return_status for any "
                    "other; 409 refund_in_progress while one is being sent or pending). Left out: the way the "
                    "order was paid"))


@router.post("/admin/returns/{return_id}/refund/", **documents(ReturnOut))
@declares(502)
def refund(return_id: str, user: AdminUser, body: RefundIn | None = None) -> dict:
    """Refund a received return by the way the order was paid (mobile money through the
    provider, cash recorded as handed back by you), or, with ``{"method": "cash"}``, in cash in
    place of a mobile-money refund that failed; its credit note is numbered."""
    return return_json(returns.refund_return(user, return_id, body.method if body else None), staff=True)
