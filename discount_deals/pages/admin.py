"""Admin back office (/admin): a sidebar of tabs (a top bar on phones) and the selected tab.

Nothing but a spinner renders until the server has confirmed an admin; guests are sent to
/login and other roles to / by AdminState.load.
"""

import reflex as rx

from .. import routes
from ..components.admin_audit import activity_tab
from ..components.admin_reviews import reviews_tab
from ..components.admin_bulk import bulk_tab
from ..components.admin_catalog import categories_tab, products_tab
from ..components.admin_coupons import coupons_tab
from ..components.admin_notifications import notifications_tab
from ..components.admin_orders import orders_tab
from ..components.admin_overview import overview_tab
from ..components.admin_returns import returns_tab
from ..components.admin_stores import stores_tab
from ..components.admin_users import users_tab
from ..components.ui import history_follower, icon, spinner, tab_button
from ..state.admin.gate import TABS, AdminState
from ..state.account.session import SessionState


def _tab_button(tab: str, text: str, tag: str) -> rx.Component:
    selected = AdminState.tab == tab
    return tab_button(
        icon(tag, 18),
        rx.el.span(text, class_name="whitespace-nowrap"),
        tab_id=f"admin-tab-{tab}",
        panel_id="admin-panel",
        selected=selected,
        on_click=AdminState.set_tab(tab),
        selected_class="flex items-center gap-3 rounded-md bg-orange-700 px-3 py-2 text-sm font-medium text-white",
        idle_class="flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium text-gray-800 hover:bg-gray-100",
    )


def sidebar() -> rx.Component:
    """The back office's frame: a top bar on a phone (brand and Logout, the tabs below), a left
    sidebar from 768 px (brand, tabs, Logout at the foot). One Logout button serves both, last in
    the page's order (after the tabs, as a keyboard reaches it); on a phone the tabs wrap to a row
    of their own below it. Two buttons, one hidden, made a search of the page for "Logout" find two."""
    return rx.el.aside(
        rx.el.div(
            rx.el.a(
                rx.el.span("%", class_name="flex h-8 w-8 items-center justify-center rounded-lg bg-orange-700 "
                           "text-lg font-black text-white"),
                href=routes.HOME,
                aria_label="Discount Deals home",
                class_name="shrink-0 rounded-md",
            ),
            rx.el.h1("Admin Dashboard", class_name="flex-1 text-lg font-bold text-gray-900"),
            class_name="flex flex-1 items-center gap-3 px-3 py-3 md:flex-none md:px-4 md:py-5",
        ),
        rx.el.nav(
            rx.el.div(
                *[_tab_button(tab, text, tag) for tab, text, tag in TABS],
                role="tablist",
                aria_label="Admin sections",
                class_name="flex gap-1 overflow-x-auto px-2 pb-2 md:flex-col md:overflow-visible md:px-3",
            ),
            aria_label="Admin",
            class_name="order-last w-full md:order-none",
        ),
        rx.el.div(
            rx.el.button(
                icon("log-out", 18),
                rx.el.span("Logout", class_name="sr-only sm:not-sr-only"),
                type="button",
                on_click=SessionState.logout(routes.LOGIN),
                class_name="flex items-center gap-2 rounded-md px-2 py-2 text-sm font-medium text-red-700 "
                "hover:bg-red-50 md:w-full md:gap-3 md:px-3",
            ),
            class_name="pr-3 md:mt-auto md:border-t md:border-gray-200 md:p-3",
        ),
        class_name="flex flex-wrap items-center border-b border-gray-200 bg-white md:fixed md:inset-y-0 md:left-0 "
        "md:w-64 md:flex-col md:flex-nowrap md:items-stretch md:border-b-0 md:border-r",
    )


def test_mode_banner() -> rx.Component:
    return rx.cond(
        AdminState.test_payments,
        rx.el.p(
            icon("flask-conical", 18, class_name="shrink-0"),
            rx.el.span(rx.el.strong("Payments are in test mode: "),
                       "mobile money goes through the fake provider and no money moves. Orders paid this way are "
                       "marked Test. Set DD_PAYMENT_PROVIDER=paystack to take real payments."),
            role="note",
            class_name="mx-auto mb-4 flex max-w-7xl items-start gap-2 rounded-md border border-amber-300 bg-amber-100 "
                       "px-3 py-2 text-sm text-amber-950",
        ),
    )


def panel() -> rx.Component:
    return rx.el.main(
        test_mode_banner(),
        rx.el.div(
            rx.match(
                AdminState.tab,
                ("orders", orders_tab()),
                ("returns", returns_tab()),
                ("products", products_tab()),
                ("bulk-products", bulk_tab("products")),
                ("bulk-categories", bulk_tab("categories")),
                ("categories", categories_tab()),
                ("users", users_tab()),
                ("stores", stores_tab()),
                ("coupons", coupons_tab()),
                ("notifications", notifications_tab()),
                ("activity", activity_tab()),
                ("reviews", reviews_tab()),
                overview_tab(),
            ),
            id="admin-panel",
            role="tabpanel",
            aria_labelledby="admin-tab-" + AdminState.tab,
            class_name="mx-auto max-w-7xl",
        ),
        id="main",
        class_name="px-3 py-6 sm:px-6 md:ml-64",
    )


def admin() -> rx.Component:
    return rx.cond(
        SessionState.is_admin & AdminState.ready,
        rx.el.div(sidebar(), panel(), history_follower(routes.ADMIN, AdminState.follow_address),
                  class_name="min-h-screen bg-gray-50 text-gray-900"),
        rx.el.div(spinner("Checking your session..."), class_name="flex min-h-screen items-center justify-center"),
    )
