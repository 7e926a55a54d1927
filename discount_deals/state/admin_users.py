"""Admin Users tab: search and role filter in SQL, one page at a time, immediate role changes, and
deactivating or reactivating an account."""

from __future__ import annotations

import dataclasses
import logging

import reflex as rx

from ..db import session_scope, write_session
from ..models import Role, User
from ..services import users as users_service
from .actions import busy_call, load_list
from .admin import NotAdmin, require_admin
from .paging import page_count, page_label

log = logging.getLogger("discount_deals.admin")

USERS_PAGE_SIZE = 20
ALL_ROLES = "all"
ROLE_FILTERS: list[tuple[str, str]] = [
    (ALL_ROLES, "All Roles"),
    ("admin", "Admin"),
    ("seller", "Seller"),
    ("manager", "Manager"),
    ("customer", "Customer"),
    ("user", "User"),
]
ROLE_CHOICES: list[tuple[str, str]] = [
    ("customer", "Customer"),
    ("user", "User"),
    ("seller", "Seller"),
    ("manager", "Manager"),
    ("admin", "Admin"),
]
# SPEC §6: admin destructive, seller default, manager secondary, customer and user outline.
ROLE_BADGES = {"admin": "destructive", "seller": "default", "manager": "secondary", "customer": "outline", "user": "outline"}
ROLE_UPDATE_FAILED = "Failed to update user role. Please try again."


@dataclasses.dataclass
class UserRow:
    id: str = ""
    name: str = ""
    email: str = ""
    username: str = ""
    role: str = "customer"
    badge: str = "outline"
    is_active: bool = True


def user_row(user: User) -> UserRow:
    full = f"{user.first_name} {user.last_name}".strip()
    role = user.role if user.role in ROLE_BADGES else Role.CUSTOMER.value  # the select falls back to customer
    return UserRow(
        id=user.id,
        name=full or user.username or user.email,
        email=user.email,
        username=user.username,
        role=role,
        badge=ROLE_BADGES[role],
        is_active=bool(user.is_active),
    )


class AdminUsersState(rx.State):
    search: str = ""
    role_filter: str = ALL_ROLES
    page: int = 1
    rows: list[UserRow] = []
    total: int = 0
    loading: bool = False
    failed: bool = False

    @rx.var
    def total_pages(self) -> int:
        return page_count(self.total, USERS_PAGE_SIZE)

    @rx.var
    def showing_text(self) -> str:
        return f"Showing {len(self.rows)} of {self.total} users"

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    @rx.var
    def filtered(self) -> bool:
        return self.search != "" or self.role_filter != ALL_ROLES

    def _load_rows(self, admin: User) -> None:
        with session_scope() as session:
            found, total = users_service.list_users(
                session,
                admin,
                search=self.search,
                role=self.role_filter,
                offset=(self.page - 1) * USERS_PAGE_SIZE,
                limit=USERS_PAGE_SIZE,
            )
        self.rows = [user_row(user) for user in found]
        self.total = total

    def _fetch(self, admin: User):
        """Load one page; the list shows its loading state first and its error state on failure."""
        return load_list(self, lambda: self._load_rows(admin), "admin user list")

    @rx.event
    async def load(self):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def set_search(self, value: str):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.search = (value or "").strip()[:100]
        self.page = 1
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def set_role_filter(self, value: str):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.role_filter = value if value in dict(ROLE_FILTERS) else ALL_ROLES
        self.page = 1
        for update in self._fetch(admin):
            yield update

    @rx.event
    async def go_to_page(self, page: int):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        for update in self._fetch(admin):
            yield update

    def _reload(self, admin: User) -> None:
        try:
            self._load_rows(admin)
        except Exception:
            log.exception("admin user list failed")
            self.failed = True

    @rx.event
    async def change_role(self, user_id: str, role: str):
        """Apply a role at once (SPEC §4); the row shows the stored role afterwards either way."""
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return

        def change() -> None:
            with write_session() as session:
                users_service.change_role(session, admin, user_id, role)

        async for update in busy_call(
            self, None, change, success=("Role Updated", f"User role has been updated to {role}"),
            failure=("Error", ROLE_UPDATE_FAILED), describe=lambda _exc: ROLE_UPDATE_FAILED,
        ):
            yield update
        self._reload(admin)

    @rx.event
    async def set_active(self, user_id: str, active: bool):
        """Deactivate an account (it can no longer log in) or reactivate it."""
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return

        def change() -> str:
            with write_session() as session:
                return users_service.set_active(session, admin, user_id, bool(active)).email

        done = "User reactivated" if active else "User deactivated"
        async for update in busy_call(self, None, change, success=lambda email: (done, email),
                                      failure=("Error", "Could not change the account.")):
            yield update
        self._reload(admin)
