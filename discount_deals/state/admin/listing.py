"""What the back office's paged lists share: one page of rows in state, filled through
:func:`..actions.load_list` (loading and error states), paging, and a search box. Each list
tab is its own flat state built from :class:`AdminList` (a Reflex mixin) and says how to load
one page (:meth:`AdminList._load_rows`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from ...db import session_scope, write_session
from ...models import User
from ..actions import load_list
from ..guards import admin_event
from ..paging import clamp_page, page_count, page_label


class AdminList(rx.State, mixin=True):
    PAGE_SIZE: ClassVar[int] = 20
    SEARCH_LIMIT: ClassVar[int] = 100
    LIST_NAME: ClassVar[str] = "admin list"  # as the log names a failure
    # The list's filter selects: state field -> (its choices, the default).
    FILTERS: ClassVar[dict[str, tuple[list[tuple[str, str]], str]]] = {}

    page: int = 1
    total: int = 0
    total_pages: int = 0
    search: str = ""
    loading: bool = False
    failed: bool = False
    # The search box and filter selects are the browser's (components.ui.browser_owned): bumped
    # when the server changes what they show (the tab opens, a link's search, cleared, refused).
    filters_version: int = 0

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    def _offset(self) -> int:
        return (self.page - 1) * self.PAGE_SIZE

    def _filter_value(self, name: str) -> str:
        """Filter ``name``'s choice as the service takes it: "" for its default (every row)."""
        value = getattr(self, name)
        return "" if value == self.FILTERS[name][1] else value

    def _query(self, session: Session, admin: User) -> tuple[list[Any], int]:
        """The current page's items (what the service lists) and how many match in all."""
        raise NotImplementedError

    def _row(self, item: Any) -> Any:
        """One item as the list shows it."""
        raise NotImplementedError

    def _fill(self, admin: User) -> None:
        with session_scope() as session:
            found, total = self._query(session, admin)
            self.rows = [self._row(item) for item in found]
        self.total = total
        self.total_pages = page_count(total, self.PAGE_SIZE)

    def _fetch(self, admin: User, fill: Callable[[User], None] | None = None):
        """Load the current page (``fill`` it; by default :meth:`_fill`): the loading state shows
        first, the error state on failure."""
        return load_list(self, lambda: (fill or self._fill)(admin), self.LIST_NAME)

    def _reload(self, admin: User):
        """Refresh the page in place after a change (no loading state: the rows stay meanwhile)."""
        return load_list(self, lambda: self._fill(admin), self.LIST_NAME, loading=None)

    def _refetch(self, admin: User):
        """The filters changed: back to the first page."""
        self.page = 1
        return self._fetch(admin)

    def _apply_query(self, query: str) -> None:
        """A link from elsewhere in the back office (``/admin?tab=...&q=...``): search for it."""
        self.search = query
        self.page = 1
        self.filters_version += 1

    def _open(self, admin: User) -> None:
        """The tab opens (or its Try Again is pressed): load the page, and anything else it shows."""
        self._fill(admin)

    @admin_event
    def load(self, admin: User):
        self.filters_version += 1
        return self._fetch(admin, self._open)

    @admin_event
    def go_to_page(self, admin: User, page: int):
        self.page = clamp_page(page, self.total_pages)
        return self._fetch(admin)

    @admin_event
    def set_filter(self, admin: User, name: str, value: str):
        """A filter select changed (``name`` is one of the list's FILTERS; anything else is ignored)."""
        if not isinstance(name, str) or name not in self.FILTERS:
            return None
        choices, default = self.FILTERS[name]
        setattr(self, name, choice(value, choices, default))
        if getattr(self, name) != value:
            self.filters_version += 1  # not a choice: the select shows the one in force
        return self._refetch(admin)

    @admin_event
    def set_search(self, admin: User, value: str):
        search = str(value or "").strip()[: self.SEARCH_LIMIT]
        if search == self.search:
            return None  # Enter after the pause already searched for it
        self.search = search
        return self._refetch(admin)


def choice(value: Any, choices: list[tuple[str, str]], default: str) -> str:
    """``value`` when it is one of a select's choices, else ``default``."""
    return value if isinstance(value, str) and value in dict(choices) else default


def create_or_update(admin: User, editing: str, data: Any, create: Callable, update: Callable) -> None:
    """Save a tab's form in one transaction: update the object being edited (``editing``, its id)
    or, when nothing is, create one (``create(session, admin, data)`` / ``update(..., id, data)``)."""
    with write_session() as session:
        if editing:
            update(session, admin, editing, data)
        else:
            create(session, admin, data)
