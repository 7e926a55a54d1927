"""Admin Categories tab: the paged list, adding a category and deleting an empty one. Every event
is for admins only; the services check again (and refuse to delete a category in use)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from ...db import write_session
from ...models import Category, User
from ...services import catalog
from ..actions import busy_call, load_list, toast
from ..forms import form_text
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList
from .products import AdminProductsState

FETCH_FAILED = ("Failed to fetch categories", None, "error")


@dataclasses.dataclass
class CategoryRow:
    id: str = ""
    name: str = ""
    slug: str = ""
    description: str = ""


@admin_tab("categories")
class AdminCategoriesState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin category list"
    rows: list[CategoryRow] = []
    form_key: int = 0

    def _query(self, session: Session, admin: User) -> tuple[list[Category], int]:
        return catalog.list_categories(session, offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: Category) -> CategoryRow:
        return CategoryRow(id=item.id, name=item.name, slug=item.slug, description=item.description)

    def _fetch(self, admin: User, fill: Callable[[User], None] | None = None):
        """Refill the list in place (no loading state); a failure says so in a toast too."""
        return load_list(self, lambda: (fill or self._fill)(admin), self.LIST_NAME, loading=None,
                         on_error=lambda _error: toast(FETCH_FAILED))

    @admin_event
    async def refresh(self, admin: User):
        """The list's Refresh button."""
        for update in self._fetch(admin):
            yield update
        if not self.failed:
            yield toast(("Categories fetched successfully", None, "success"))

    async def _changed(self, admin: User) -> None:
        """The categories changed: this list and the product form's select show it."""
        for _update in self._fetch(admin):
            pass
        (await self.get_state(AdminProductsState))._load_categories()

    @admin_event
    def add(self, admin: User, form: dict[str, Any]):
        """Add a category; nothing happens while the name is empty (SPEC §5)."""
        name = form_text(form, "category_name", strip=True)
        if not name:
            return None
        data = {"name": name, "slug": catalog.slugify(name),
                "description": form_text(form, "category_description", strip=True)}

        async def add() -> None:
            with write_session() as session:
                catalog.create_category(session, admin, data)
            self.form_key += 1
            await self._changed(admin)

        return busy_call(self, None, add, success=("Category created successfully", None),
                         failure=("Failed to create category", None))

    @admin_event
    def delete(self, admin: User, category_id: str):
        """Delete a category that holds no products (the service refuses otherwise and says why)."""

        async def delete() -> None:
            with write_session() as session:
                catalog.delete_category(session, admin, category_id)
            await self._changed(admin)

        return busy_call(self, None, delete, success=("Category deleted", None),
                         failure=("Failed to delete category", None))
