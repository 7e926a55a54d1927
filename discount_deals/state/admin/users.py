"""Admin Users tab: search and role filter in SQL, one page at a time, immediate role changes, and
deactivating or reactivating an account."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import reflex as rx

from sqlmodel import Session

from ...db import write_session
from ...models import Role, User
from ...services import users as users_service
from ...services.users import full_name
from ..actions import busy_call, refusal_detail
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList

ALL_ROLES = "all"
ROLE_LABELS = {"customer": "Customer", "user": "User", "seller": "Seller", "manager": "Manager", "admin": "Admin"}
ROLE_CHOICES: list[tuple[str, str]] = list(ROLE_LABELS.items())  # a row's role select
ROLE_FILTERS: list[tuple[str, str]] = [
    (ALL_ROLES, "All Roles"), *((role, ROLE_LABELS[role]) for role in ("admin", "seller", "manager", "customer", "user"))
]
# SPEC §6: admin destructive, seller default, manager secondary, customer and user outline.
ROLE_BADGES = {"admin": "destructive", "seller": "default", "manager": "secondary", "customer": "outline", "user": "outline"}
ROLE_UPDATE_FAILED = "Failed to update user role. Please try again."
CLOSED_NAME = "Closed account"


@dataclasses.dataclass
class UserRow:
    id: str = ""
    name: str = ""
    email: str = ""
    username: str = ""
    role: str = "customer"
    badge: str = "outline"
    is_active: bool = True
    closed: bool = False  # closed by its owner: kept for the orders, never changed again


def user_row(user: User) -> UserRow:
    full = full_name(user)
    role = user.role if user.role in ROLE_BADGES else Role.CUSTOMER.value  # the select falls back to customer
    closed = users_service.is_closed(user)
    return UserRow(
        id=user.id,
        name=CLOSED_NAME if closed else full or user.username or user.email,
        email=user.email,
        username=user.username,
        role=role,
        badge=ROLE_BADGES[role],
        is_active=bool(user.is_active),
        closed=closed,
    )


@admin_tab("users")
class AdminUsersState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin user list"
    FILTERS: ClassVar[dict] = {"role_filter": (ROLE_FILTERS, ALL_ROLES)}
    role_filter: str = ALL_ROLES
    rows: list[UserRow] = []
    rows_version: int = 0  # bumped after each change: the role selects show the stored roles again

    @rx.var
    def showing_text(self) -> str:
        return f"Showing {len(self.rows)} of {self.total} users"

    @rx.var
    def filtered(self) -> bool:
        return self.search != "" or self.role_filter != ALL_ROLES

    def _query(self, session: Session, admin: User) -> tuple[list[User], int]:
        return users_service.list_users(session, admin, search=self.search, role=self.role_filter,
                                        offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: User) -> UserRow:
        return user_row(item)

    async def _change(self, admin: User, change, success, failure: str, describe=None):
        """One account changes; the list shows what is stored afterwards either way (the role
        selects are the browser's: the bump puts the stored roles back in them)."""
        async for update in busy_call(self, None, change, success=success, failure=("Error", failure),
                                      describe=describe or refusal_detail):
            yield update
        for update in self._reload(admin):
            yield update
        self.rows_version += 1

    @admin_event
    def change_role(self, admin: User, user_id: str, role: str):
        """Apply a role at once (SPEC §4); the row shows the stored role afterwards either way."""

        def change() -> None:
            with write_session() as session:
                users_service.change_role(session, admin, user_id, role)

        return self._change(admin, change, ("Role Updated", f"User role has been updated to {role}"),
                            ROLE_UPDATE_FAILED, describe=lambda _exc: ROLE_UPDATE_FAILED)

    @admin_event
    def set_active(self, admin: User, user_id: str, active: bool):
        """Deactivate an account (it can no longer log in) or reactivate it."""

        def change() -> str:
            with write_session() as session:
                return users_service.set_active(session, admin, user_id, bool(active)).email

        done = "User reactivated" if active else "User deactivated"
        return self._change(admin, change, lambda email: (done, email), "Could not change the account.")
