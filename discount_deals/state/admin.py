"""The admin back office (/admin): the gate, the tabs, and the server-side admin check that every
admin state calls at the start of every event.

The browser can call any public event of any state, so hiding the page is not enough: each
admin event asks :func:`require_admin`, which validates the stored tokens (refreshing once) and
the user's role on the server. The services check the role again.
"""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..models import User
from ..services import PermissionDenied
from ..services.permissions import require_admin as require_admin_role
from .session import SessionExpired, SessionState

TABS: list[tuple[str, str, str]] = [
    ("overview", "Overview", "layout-dashboard"),
    ("orders", "Orders", "shopping-bag"),
    ("products", "Products", "package"),
    ("bulk-products", "Bulk Upload Products", "upload"),
    ("bulk-categories", "Bulk Upload Categories", "folder-up"),
    ("categories", "Categories", "folder"),
    ("users", "Users", "users"),
    ("coupons", "Coupons", "ticket-percent"),
    ("stores", "Pickup Stores", "store"),
    ("activity", "Activity", "history"),
]
TAB_IDS = [tab for tab, _label, _icon in TABS]


class NotAdmin(Exception):
    """The caller is not a logged-in admin; ``redirect`` sends the browser away (guests to
    /login?redirectTo=/admin, everyone else to /)."""

    def __init__(self, redirect):
        super().__init__("admin only")
        self.redirect = redirect


async def require_admin(state: rx.State) -> User:
    """The logged-in admin behind this event, or :class:`NotAdmin`."""
    session_state = await state.get_state(SessionState)
    try:
        user = await session_state._require_user()
    except SessionExpired:
        raise NotAdmin(session_state._login_redirect(routes.ADMIN)) from None
    try:
        return require_admin_role(user)
    except PermissionDenied:
        raise NotAdmin(rx.redirect(routes.HOME)) from None


class AdminState(rx.State):
    tab: str = "overview"
    # True once this browser's user was confirmed as an admin on the server (the page shows a
    # spinner until then).
    ready: bool = False

    async def _require_admin(self) -> User:
        return await require_admin(self)

    def _tab_load(self):
        from .admin_audit import AdminActivityState
        from .admin_catalog import AdminCategoriesState, AdminProductsState
        from .admin_coupons import AdminCouponsState
        from .admin_orders import AdminOrdersState
        from .admin_overview import AdminOverviewState
        from .admin_stores import AdminStoresState
        from .admin_users import AdminUsersState

        return {
            "overview": AdminOverviewState.load,
            "orders": AdminOrdersState.load,
            "stores": AdminStoresState.load,
            "products": AdminProductsState.load,
            "categories": AdminCategoriesState.load,
            "users": AdminUsersState.load,
            "coupons": AdminCouponsState.load,
            "activity": AdminActivityState.load,
        }.get(self.tab)

    async def _apply_query(self, tab: str, query: str) -> None:
        """``/admin?tab=products&q=Rice``: open a tab searched for one object (the Activity tab's
        links to what an event changed)."""
        from .admin_audit import AdminActivityState
        from .admin_catalog import AdminProductsState
        from .admin_coupons import AdminCouponsState
        from .admin_orders import AdminOrdersState
        from .admin_users import AdminUsersState

        query = query.strip()[:100]
        if tab == "activity":
            (await self.get_state(AdminActivityState))._apply_query(query)
            return
        target = {"products": AdminProductsState, "users": AdminUsersState, "orders": AdminOrdersState,
                  "coupons": AdminCouponsState}.get(tab)
        if target is not None:
            state = await self.get_state(target)
            state.search = query
            state.page = 1

    @rx.event
    async def load(self):
        """/admin: guests go to /login (and come back), other roles to /."""
        self.ready = False
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        parameters = self.router.url.query_parameters
        wanted = parameters.get("tab", "")
        if wanted in TAB_IDS:
            self.tab = wanted
            query = parameters.get("q", "")
            if isinstance(query, str) and query.strip():
                await self._apply_query(wanted, query)
        self.ready = True
        return self._tab_load()

    @rx.event
    async def set_tab(self, tab: str):
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        if tab not in TAB_IDS:
            return
        self.tab = tab
        return self._tab_load()
