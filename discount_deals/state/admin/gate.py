"""The admin back office (/admin): the gate and the tab bar.

The page renders nothing but a spinner until :class:`AdminState` has confirmed an admin on the
server. Each tab's state registers itself here with :func:`admin_tab` (the gate does not import
the tabs): opening a tab runs that state's ``load``, and ``/admin?tab=products&q=Rice`` hands
the query to its ``_apply_query``. Every admin event is guarded (:func:`..guards.admin_event`);
the services check the role again.
"""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from ... import routes
from ...config.settings import get_settings
from ...models import User
from ..account.session import per_user
from ..address_bar import replace_url
from ..guards import admin_event

# The tab the address names, in sight in the phone's scrolling row of tabs (opened by a link or a
# reload on /admin?tab=activity, it sat at x = 1,658 px of a 390 px screen).
SHOW_CHOSEN_TAB = ("requestAnimationFrame(() => document.querySelector('[role=tablist] [aria-selected=\"true\"]')"
                   "?.scrollIntoView({block: 'nearest', inline: 'center'}))")

TABS: list[tuple[str, str, str]] = [
    ("overview", "Overview", "layout-dashboard"),
    ("orders", "Orders", "shopping-bag"),
    ("returns", "Returns", "undo-2"),
    ("products", "Products", "package"),
    ("bulk-products", "Bulk Upload Products", "upload"),
    ("bulk-categories", "Bulk Upload Categories", "folder-up"),
    ("categories", "Categories", "folder"),
    ("users", "Users", "users"),
    ("coupons", "Coupons", "ticket-percent"),
    ("stores", "Pickup Stores", "store"),
    ("notifications", "Notifications", "mail"),
    ("reviews", "Reviews", "star"),
    ("activity", "Activity", "history"),
]
TAB_IDS = [tab for tab, _label, _icon in TABS]
MAX_QUERY = 100

_TAB_STATES: dict[str, type[rx.State]] = {}


def admin_tab(tab: str) -> Callable[[type[rx.State]], type[rx.State]]:
    """Class decorator: this state is the ``tab`` tab (its ``load`` runs when the tab opens). A
    tab holds what an admin saw (users, orders and their addresses): it is per user, emptied when
    they log out (a probe found the Users list sent to the tab's next guest on a reload)."""
    if tab not in TAB_IDS:
        raise ValueError(f"unknown admin tab {tab!r}")

    def register(state_class: type[rx.State]) -> type[rx.State]:
        _TAB_STATES[tab] = state_class
        return per_user(state_class)

    return register


@per_user
class AdminState(rx.State):
    tab: str = "overview"
    # True once this browser's user was confirmed as an admin on the server (the page shows a
    # spinner until then).
    ready: bool = False
    # Mobile money goes through the fake provider: the back office says no money moves.
    test_payments: bool = False

    def _forget(self) -> None:
        self.ready = False

    def _tab_load(self):
        state_class = _TAB_STATES.get(self.tab)
        return state_class.load if state_class is not None and "load" in state_class.event_handlers else None

    async def _apply_query(self, tab: str, query: str) -> None:
        """``/admin?tab=products&q=Rice``: open a tab searched for one object (the Activity tab's
        links to what an event changed)."""
        state_class = _TAB_STATES.get(tab)
        if state_class is not None and hasattr(state_class, "_apply_query"):
            (await self.get_state(state_class))._apply_query(query.strip()[:MAX_QUERY])

    async def _open_object(self, tab: str, object_id: str) -> bool:
        """``/admin?tab=orders&open=<id>``: that tab with one of its objects open (its ``_opened``);
        False when the tab opens none."""
        state_class = _TAB_STATES.get(tab)
        if state_class is None or not hasattr(state_class, "_opened"):
            return False
        (await self.get_state(state_class))._opened(object_id.strip()[:MAX_QUERY])
        return True

    async def _choose(self, tab: str) -> None:
        """The tab starts from its list (``_chosen``: an order open there closes)."""
        state_class = _TAB_STATES.get(tab)
        if state_class is not None and hasattr(state_class, "_chosen"):
            (await self.get_state(state_class))._chosen()

    @admin_event
    async def load(self, admin: User):
        """/admin: guests go to /login (and come back), other roles to /."""
        self.ready = False
        parameters = self.router.url.query_parameters
        wanted = parameters.get("tab", "")
        tidy = None
        if wanted in TAB_IDS:
            self.tab = wanted
            query, opened = parameters.get("q", ""), parameters.get("open", "")
            if isinstance(query, str) and query.strip():
                await self._apply_query(wanted, query)
            elif isinstance(opened, str) and opened.strip():
                await self._open_object(wanted, opened)
            elif parameters.get("view") == routes.ADMIN_LIST_VIEW:
                # A link's "Back to orders": the list. Without it, this load is a reconnection's
                # or a reload's, and what was open stays open.
                await self._choose(wanted)
                tidy = replace_url(routes.admin_path(wanted))
        self.test_payments = get_settings().checkout.payment_provider == "fake"
        self.ready = True
        load = self._tab_load()
        return [step for step in (tidy, rx.call_script(SHOW_CHOSEN_TAB), load) if step is not None]

    @admin_event
    async def follow_address(self, admin: User):
        """Back or Forward between the back office's own addresses (an order opened is one, put
        in the bar beside the router: coming back to the address it loaded, the router runs no
        on-load). Pressed by the page's history listener (assets/shop.js): the tab the address
        names, with what it names open, else its list."""
        parameters = self.router.url.query_parameters
        wanted, opened = parameters.get("tab", ""), parameters.get("open", "")
        if self.router.url.path.rstrip("/") != routes.ADMIN or wanted not in TAB_IDS:
            return None
        self.tab = wanted
        if not (isinstance(opened, str) and opened.strip() and await self._open_object(wanted, opened)):
            await self._choose(wanted)
        load = self._tab_load()
        return [step for step in (rx.call_script(SHOW_CHOSEN_TAB), load) if step is not None]

    @admin_event
    async def set_tab(self, admin: User, tab: str):
        """The address follows the tab (replaced, no new history entry): the page's on-load,
        which runs again after every reconnect and on a reload, opens the tab it names. A tab
        chosen in the menu starts from its list (``_chosen``: an order open there closes)."""
        if tab not in TAB_IDS:
            return None
        self.tab = tab
        await self._choose(tab)
        address = replace_url(routes.admin_path(tab))
        load = self._tab_load()
        return [address, load] if load is not None else address
