"""Admin Coupons tab: the coupons (newest first, by code and status), a form to create one
(percentage or fixed amount, expiry, usage limit, minimum basket), and switching one off or on.
Every rule is services.coupons; every change lands in the audit trail."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import reflex as rx

from sqlmodel import Session

from ...db import write_session
from ...display import ghana_time, money_text
from ...models import Coupon, CouponKind, User
from ...services import coupons
from ..actions import busy_call, error_text
from ..forms import form_text
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList

ALL = "all"
STATUS_LABELS = {"active": "Active", "inactive": "Deactivated", "expired": "Expired", "used_up": "Used up"}
STATUS_FILTERS: list[tuple[str, str]] = [(ALL, "All coupons"), *STATUS_LABELS.items()]
KINDS: list[tuple[str, str]] = [("percent", "Percentage off"), ("fixed", "Fixed amount off")]


@dataclasses.dataclass
class CouponRow:
    id: str = ""
    code: str = ""
    effect: str = ""  # "10% off", "$5.00 off"
    status: str = "active"
    status_text: str = "Active"
    active: bool = True
    expires_text: str = ""
    usage_text: str = ""
    minimum_text: str = ""


def coupon_row(coupon: Coupon) -> CouponRow:
    if coupon.kind == CouponKind.PERCENT:
        effect = f"{coupon.value.normalize():f}% off"
    else:
        effect = f"{money_text(coupon.value)} off"
    status = coupons.status_of(coupon)
    if coupon.expires_at is None:
        expires = "No expiry"
    else:
        verb = "Expired" if status == "expired" else "Valid until"
        expires = f"{verb} {ghana_time(coupon.expires_at, '%d %b %Y %H:%M')}"
    if coupon.usage_limit is None:
        usage = f"Used {coupon.used_count} {'time' if coupon.used_count == 1 else 'times'}, no limit"
    else:
        usage = f"Used {coupon.used_count} of {coupon.usage_limit}"
    return CouponRow(
        id=coupon.id,
        code=coupon.code,
        effect=effect,
        status=status,
        status_text=STATUS_LABELS[status],
        active=bool(coupon.active),
        expires_text=expires,
        usage_text=usage,
        minimum_text=f"Minimum basket {money_text(coupon.min_subtotal)}" if coupon.min_subtotal else "Any basket",
    )


def coupon_payload(form: dict[str, Any]) -> dict[str, Any]:
    """The service's fields from the form (blank optional fields mean none)."""

    def text(name: str) -> str:
        return form_text(form, name, strip=True)

    return {
        "code": text("coupon_code"),
        "kind": text("coupon_kind") or "percent",
        "value": text("coupon_value"),
        "expires_at": text("coupon_expires") or None,
        "usage_limit": text("coupon_usage_limit") or None,
        "min_subtotal": text("coupon_min_subtotal") or None,
    }


@admin_tab("coupons")
class AdminCouponsState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin coupon list"
    SEARCH_LIMIT: ClassVar[int] = 64
    FILTERS: ClassVar[dict] = {"status_filter": (STATUS_FILTERS, ALL)}
    rows: list[CouponRow] = []
    status_filter: str = ALL
    saving: bool = False
    form_key: int = 0

    @rx.var
    def heading(self) -> str:
        return f"Coupons ({self.total})"

    def _query(self, session: Session, admin: User) -> tuple[list[Coupon], int]:
        return coupons.list_coupons(session, admin, search=self.search, status=self._filter_value("status_filter"),
                                    offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: Coupon) -> CouponRow:
        return coupon_row(item)

    @admin_event
    async def create(self, admin: User, form: dict[str, Any]):
        data = coupon_payload(form)

        def create() -> str:
            with write_session() as session:
                code = coupons.admin_create_coupon(session, admin, data).code
            self.form_key += 1
            self.page = 1
            self._fill(admin)
            return code

        async for update in busy_call(
            self, "saving", create, success=lambda code: ("Coupon created", f"{code} is ready to use."),
            failure=("Error", "Could not create the coupon."), describe=error_text,
        ):
            yield update

    @admin_event
    def set_active(self, admin: User, coupon_id: str, active: bool):
        """Deactivate a coupon (no new order can use it) or reactivate it."""

        def change() -> str:
            with write_session() as session:
                code = coupons.set_active(session, admin, coupon_id, bool(active)).code
            self._fill(admin)
            return code

        done = "Coupon reactivated" if active else "Coupon deactivated"
        return busy_call(self, None, change, success=lambda code: (done, code),
                         failure=("Error", "Could not change the coupon."), describe=error_text)
