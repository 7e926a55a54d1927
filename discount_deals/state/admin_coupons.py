"""Admin Coupons tab: the coupons (newest first, by code and status), a form to create one
(percentage or fixed amount, expiry, usage limit, minimum basket), and switching one off or on.
Every rule is services.coupons; every change lands in the audit trail."""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from ..db import session_scope, write_session
from ..models import Coupon, User
from ..services import coupons
from .actions import busy_call, load_list
from .admin import NotAdmin, require_admin
from .profile import error_text
from ..display import money_text
from .paging import page_count, page_label


COUPONS_PAGE_SIZE = 20
ALL = "all"
STATUS_FILTERS: list[tuple[str, str]] = [
    (ALL, "All coupons"),
    ("active", "Active"),
    ("inactive", "Deactivated"),
    ("expired", "Expired"),
    ("used_up", "Used up"),
]
STATUS_LABELS = {"active": "Active", "inactive": "Deactivated", "expired": "Expired", "used_up": "Used up"}
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
    if coupon.kind == "percent":
        effect = f"{coupon.value.normalize():f}% off"
    else:
        effect = f"{money_text(coupon.value)} off"
    status = coupons.status_of(coupon)
    if coupon.expires_at is None:
        expires = "No expiry"
    else:
        verb = "Expired" if status == "expired" else "Valid until"
        expires = f"{verb} {coupon.expires_at.strftime('%d %b %Y %H:%M UTC').lstrip('0')}"
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
        value = form.get(name)
        return value.strip() if isinstance(value, str) else ""

    return {
        "code": text("coupon_code"),
        "kind": text("coupon_kind") or "percent",
        "value": text("coupon_value"),
        "expires_at": text("coupon_expires") or None,
        "usage_limit": text("coupon_usage_limit") or None,
        "min_subtotal": text("coupon_min_subtotal") or None,
    }


class AdminCouponsState(rx.State):
    rows: list[CouponRow] = []
    count: int = 0
    page: int = 1
    search: str = ""
    status_filter: str = ALL
    loading: bool = False
    failed: bool = False
    saving: bool = False
    form_key: int = 0

    @rx.var
    def total_pages(self) -> int:
        return page_count(self.count, COUPONS_PAGE_SIZE)

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    @rx.var
    def heading(self) -> str:
        return f"Coupons ({self.count})"

    def _load_rows(self, admin: User) -> None:
        status = "" if self.status_filter == ALL else self.status_filter
        with session_scope() as session:
            found, count = coupons.list_coupons(
                session, admin, search=self.search, status=status,
                offset=(self.page - 1) * COUPONS_PAGE_SIZE, limit=COUPONS_PAGE_SIZE,
            )
            self.rows = [coupon_row(c) for c in found]
        self.count = count
        self.failed = False

    def _fetch(self, admin: User):
        """Load one page; the list shows its loading state first and its error state on failure."""
        return load_list(self, lambda: self._load_rows(admin), "admin coupon list")

    async def _admin_or_redirect(self):
        try:
            return await require_admin(self), None
        except NotAdmin as refused:
            return None, refused.redirect

    @rx.event
    async def load(self):
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def set_search(self, value: str):
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return
        self.search = (value or "").strip()[:64]
        self.page = 1
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def set_status_filter(self, value: str):
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return
        self.status_filter = value if value in dict(STATUS_FILTERS) else ALL
        self.page = 1
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def go_to_page(self, page: int):
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def create(self, form: dict[str, Any]):
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return
        data = coupon_payload(form)

        def create() -> str:
            with write_session() as session:
                code = coupons.admin_create_coupon(session, admin, data).code
            self.form_key += 1
            self.page = 1
            self._load_rows(admin)
            return code

        async for update in busy_call(
            self, "saving", create, success=lambda code: ("Coupon created", f"{code} is ready to use."),
            failure=("Error", "Could not create the coupon."), describe=error_text,
        ):
            yield update

    @rx.event
    async def set_active(self, coupon_id: str, active: bool):
        """Deactivate a coupon (no new order can use it) or reactivate it."""
        admin, redirect = await self._admin_or_redirect()
        if redirect is not None:
            yield redirect
            return

        def change() -> str:
            with write_session() as session:
                code = coupons.set_active(session, admin, coupon_id, bool(active)).code
            self._load_rows(admin)
            return code

        done = "Coupon reactivated" if active else "Coupon deactivated"
        async for update in busy_call(self, None, change, success=lambda code: (done, code),
                                      failure=("Error", "Could not change the coupon."), describe=error_text):
            yield update
