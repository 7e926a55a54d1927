"""Coupons for admins: list, create, change (deactivate, reactivate, expiry, limits). Admins
only (others 403, no token 401); every change is in the audit trail."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Body, Query, Request
from pydantic import BaseModel, Field

from ..models import Coupon, CouponKind
from ..services import coupons
from ..services.money import money_str
from .deps import AdminUser, SessionDep, WriteSessionDep
from .pagination import Page, build_page, page_request
from .routing import ApiRouter
from .schemas import PAST_THE_END, admin_errors, answer

router = ApiRouter(tags=["admin"])

COUPON_PAGE_SIZE = 50
ERRORS = admin_errors("Invalid input (with a field map)")
NOT_FOUND = {404: answer("No such coupon")}


class CouponOut(BaseModel):
    id: str
    code: str
    kind: str = Field(description="percent or fixed")
    value: str = Field(description="The percentage, or the amount off (2 decimals)")
    active: bool = Field(description="false: switched off by an admin")
    status: str = Field(description="active, inactive, expired or used_up")
    expires_at: datetime | None = Field(description="Valid until this moment (exclusive, UTC)")
    usage_limit: int | None = Field(description="How many orders may use it (null: no limit)")
    used_count: int
    min_subtotal: str | None = Field(description="The smallest basket it applies to (null: any)")
    created_at: datetime


def coupon_json(coupon: Coupon) -> dict[str, Any]:
    value = coupon.value.normalize() if coupon.kind == CouponKind.PERCENT else coupon.value
    return CouponOut(
        id=coupon.id,
        code=coupon.code,
        kind=coupon.kind,
        value=f"{value:f}" if coupon.kind == CouponKind.PERCENT else money_str(value),
        active=coupon.active,
        status=coupons.status_of(coupon),
        expires_at=coupon.expires_at,
        usage_limit=coupon.usage_limit,
        used_count=coupon.used_count,
        min_subtotal=money_str(coupon.min_subtotal),
        created_at=coupon.created_at,
    ).model_dump(mode="json")


CouponBody = Annotated[
    dict[str, Any],
    Body(description="{code, kind: percent|fixed, value, expires_at?, usage_limit?, min_subtotal?, active?}"),
]
CouponChanges = Annotated[dict[str, Any], Body(description="{active?, expires_at?, usage_limit?, min_subtotal?}")]


@router.get("/admin/coupons/", response_model=Page[CouponOut],
            responses={**ERRORS, **PAST_THE_END})
def list_coupons(
    request: Request,
    session: SessionDep,
    user: AdminUser,
    search: Annotated[str, Query(description="Part of the code")] = "",
    status: Annotated[str, Query(description="active, inactive, expired or used_up")] = "",
):
    """Coupons, newest first."""
    page = page_request(request, default_size=COUPON_PAGE_SIZE)
    rows, count = coupons.list_coupons(session, user, search=search, status=status, offset=page.offset,
                                       limit=page.page_size)
    return build_page(request, page, count, [coupon_json(c) for c in rows])


@router.post("/admin/coupons/", status_code=201, response_model=CouponOut, responses=ERRORS)
def create_coupon(payload: CouponBody, session: WriteSessionDep, user: AdminUser):
    """Create a coupon: a percentage (above 0, at most 100) or a fixed amount off the subtotal."""
    return coupon_json(coupons.admin_create_coupon(session, user, payload))


@router.get("/admin/coupons/{coupon_id}/", response_model=CouponOut, responses={**ERRORS, **NOT_FOUND})
def get_coupon(coupon_id: str, session: SessionDep, user: AdminUser):
    return coupon_json(coupons.get_coupon(session, user, coupon_id))


@router.patch("/admin/coupons/{coupon_id}/", response_model=CouponOut, responses={**ERRORS, **NOT_FOUND})
def update_coupon(coupon_id: str, payload: CouponChanges, session: WriteSessionDep, user: AdminUser):
    """Deactivate (``{"active": false}``), reactivate, or change the expiry, usage limit or minimum basket."""
    return coupon_json(coupons.update_coupon(session, user, coupon_id, payload))


@router.post("/admin/coupons/{coupon_id}/deactivate/", response_model=CouponOut, responses={**ERRORS, **NOT_FOUND})
def deactivate_coupon(coupon_id: str, session: WriteSessionDep, user: AdminUser):
    """Switch a coupon off: no new order can use it."""
    return coupon_json(coupons.set_active(session, user, coupon_id, False))
