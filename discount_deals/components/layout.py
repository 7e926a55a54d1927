"""The page frame: skip link, header, main content, footer and the mobile menu."""

from __future__ import annotations

import reflex as rx
from reflex.experimental.client_state import ClientStateVar

from .. import routes
from ..state.account.session import SessionState
from .deal_offer import deal_offer_sheet
from .optimistic import cart_count, favourites_count
from .search_box import search_box
from .ui import badge_class, button_class, icon

ACCOUNT_MENU_ID = "account-menu"
MOBILE_MENU_ID = "mobile-menu"
# The account entries are in the page once: in the header's menu, or in the mobile menu while it is
# open (a closed menu's copy would still be in the page, read by a screen reader's search and by
# anything that finds "Log out" by its text). A React state in the browser: no round trip.
DRAWER_OPEN = ClientStateVar.create("drawer_open", default=False)
CLOSE_ACCOUNT_MENU = [rx.call_script(f"document.getElementById('{ACCOUNT_MENU_ID}')?.hidePopover?.()")]
CLOSE_MOBILE_MENU = [rx.call_script(f"document.getElementById('{MOBILE_MENU_ID}')?.close?.()"),
                     DRAWER_OPEN.set_value(False)]
OPEN_MOBILE_MENU = [DRAWER_OPEN.set_value(True),
                    rx.call_script(f"document.getElementById('{MOBILE_MENU_ID}')?.showModal?.()")]

FOOTER_CATEGORIES = ["Groceries", "Beverages", "Household", "Electronics", "Baby & Kids", "Beauty & Personal Care"]


def logo() -> rx.Component:
    return rx.el.a(
        rx.el.span(
            "%",
            aria_hidden="true",
            class_name="flex h-8 w-8 items-center justify-center rounded-lg bg-orange-700 text-lg font-black text-white",
        ),
        rx.el.span(
            rx.el.span("Discount", class_name="text-gray-900"),
            rx.el.span("Deals", class_name="text-orange-700"),
            class_name="text-lg font-extrabold tracking-tight max-[359px]:text-base",
        ),
        href=routes.HOME,
        aria_label="DiscountDeals home",
        class_name="flex items-center gap-2 rounded-md pointer-coarse:min-h-11",
    )


def items_text(count: rx.Var) -> rx.Var:
    """"1 item" / "3 items" (as CartState.item_count_text says it, for the count shown)."""
    return rx.cond(count == 1, "1 item", count.to_string() + " items")


def saved_text(count: rx.Var) -> rx.Var:
    """"1 saved item" / "3 saved items"."""
    return rx.cond(count == 1, "1 saved item", count.to_string() + " saved items")


def count_badge(count: rx.Var) -> rx.Component:
    """The number on an icon link (hidden from screen readers: the link's name says it)."""
    return rx.cond(
        count > 0,
        rx.el.span(
            count,
            aria_hidden="true",
            class_name="absolute -right-1 -top-1 flex h-5 min-w-5 items-center justify-center rounded-full "
            "bg-red-700 px-1 text-[11px] font-bold text-white",
        ),
    )


def spoken_count(label: str, count: rx.Var, spoken: rx.Var) -> rx.Var:
    """A link's name with its count: "Cart" or "Cart, 3 items"."""
    return rx.cond(count > 0, f"{label}, " + spoken, label)


def _icon_link(tag: str, href: str, label: str, count: rx.Var, spoken: rx.Var, extra: str = "") -> rx.Component:
    # The name is in one hidden span: an aria-label would hide the count, and separate spans
    # would read "Cart , 3 items".
    return rx.el.a(
        icon(tag, 22),
        rx.el.span(spoken_count(label, count, spoken), class_name="sr-only"),
        count_badge(count),
        href=href,
        class_name="relative flex h-10 w-10 items-center justify-center rounded-md text-gray-800 hover:bg-gray-100 "
                   "tap-inset " + extra,
    )


def _menu_link(text: str, href: str, tag: str, close=CLOSE_ACCOUNT_MENU) -> rx.Component:
    return rx.el.a(
        icon(tag, 16),
        text,
        href=href,
        on_click=close,
        class_name="flex items-center gap-2 rounded px-3 py-2 text-sm text-gray-800 hover:bg-gray-100",
    )


def _logout_button(close=CLOSE_ACCOUNT_MENU) -> rx.Component:
    return rx.el.button(
        icon("log-out", 16),
        "Log out",
        type="button",
        on_click=[*close, SessionState.logout(routes.HOME)],
        class_name="flex w-full items-center gap-2 rounded px-3 py-2 text-left text-sm text-red-700 hover:bg-red-50",
    )


def account_items(close=CLOSE_ACCOUNT_MENU) -> rx.Component:
    """The account entries, shared by the header's menu and the mobile menu."""
    return rx.cond(
        SessionState.is_logged_in,
        rx.fragment(
            rx.el.div(
                rx.el.p(SessionState.full_name, class_name="truncate text-sm font-semibold text-gray-900"),
                rx.el.p(SessionState.email, class_name="truncate text-xs text-gray-600"),
                class_name="border-b border-gray-200 px-3 pb-2 pt-1",
            ),
            _menu_link("Profile", routes.PROFILE, "user", close),
            _menu_link("Orders", routes.ORDERS, "package", close),
            rx.cond(SessionState.is_admin, _menu_link("Admin Dashboard", routes.ADMIN, "layout-dashboard", close)),
            _logout_button(close),
        ),
        rx.fragment(
            _menu_link("Login", routes.LOGIN, "log-in", close),
            _menu_link("Register", routes.REGISTER, "user-plus", close),
        ),
    )


def account_menu() -> rx.Component:
    return rx.fragment(
        rx.el.button(
            icon("circle-user-round", 22),
            type="button",
            aria_label="Account menu",
            aria_haspopup="menu",
            custom_attrs={"popoverTarget": ACCOUNT_MENU_ID},
            # The mobile menu may have been closed by Escape: its entries come back here.
            on_click=DRAWER_OPEN.set_value(False),
            class_name="tap-inset flex h-10 w-10 items-center justify-center rounded-md text-gray-800 hover:bg-gray-100",
        ),
        rx.el.div(
            rx.cond(DRAWER_OPEN.value, rx.fragment(), account_items()),
            id=ACCOUNT_MENU_ID,
            custom_attrs={"popover": "auto"},
            class_name="account-popover w-60 rounded-lg border border-gray-200 bg-white p-2 shadow-lg",
        ),
    )


def header() -> rx.Component:
    nav_link = "rounded-md px-3 py-2 text-sm font-medium text-gray-800 hover:bg-gray-100"
    return rx.el.header(
        rx.el.div(
            rx.el.button(
                icon("menu", 22),
                type="button",
                aria_label="Open menu",
                on_click=OPEN_MOBILE_MENU,
                class_name="tap-inset flex h-10 w-10 items-center justify-center rounded-md text-gray-800 hover:bg-gray-100 "
                           "md:hidden",
            ),
            logo(),
            rx.el.nav(
                rx.el.a("Home", href=routes.HOME, class_name=nav_link),
                rx.el.a("Products", href=routes.PRODUCTS, class_name=nav_link),
                aria_label="Main",
                class_name="ml-4 hidden items-center gap-1 md:flex",
            ),
            rx.cond(
                SessionState.is_logged_in,
                rx.el.span(SessionState.greeting, class_name="mr-1 hidden text-sm font-medium text-gray-800 sm:inline"),
            ),
            search_box(),
            rx.el.div(class_name="flex-1"),
            # Under 360 px the heart lives in the menu only: cart and account keep one row (issue 32).
            _icon_link("heart", routes.FAVORITES, "Favorites", favourites_count(), saved_text(favourites_count()),
                       "max-[359px]:hidden"),
            _icon_link("shopping-cart", routes.CART, "Cart", cart_count(), items_text(cart_count())),
            account_menu(),
            class_name="mx-auto flex max-w-7xl flex-wrap items-center gap-x-1 gap-y-2 px-3 py-2 max-[359px]:gap-x-0 "
                       "max-[359px]:px-2 sm:px-6 md:flex-nowrap md:py-3",
        ),
        class_name="sticky top-0 z-30 border-b border-gray-200 bg-white/95 backdrop-blur",
    )


def _mobile_link(text: str, href: str, tag: str, count: rx.Var | None = None, spoken: rx.Var | None = None) -> rx.Component:
    return rx.el.a(
        icon(tag, 18),
        rx.el.span(
            text,
            rx.el.span(rx.cond(count > 0, ", " + spoken, ""), class_name="sr-only") if count is not None else rx.fragment(),
            class_name="flex-1",
        ),
        rx.cond(count > 0, rx.el.span(count, aria_hidden="true", class_name=badge_class("destructive")))
        if count is not None
        else rx.fragment(),
        href=href,
        on_click=CLOSE_MOBILE_MENU,
        class_name="flex items-center gap-3 rounded-md px-3 py-3 text-base text-gray-900 hover:bg-gray-100",
    )


def mobile_menu() -> rx.Component:
    """The slide-out menu. Its entries are in the page only while it is open (see DRAWER_OPEN)."""
    return rx.el.dialog(
        rx.cond(DRAWER_OPEN.value, rx.el.div(
            rx.el.div(logo(), class_name="mb-4 px-1"),
            rx.el.nav(
                _mobile_link("Home", routes.HOME, "house"),
                _mobile_link("Products", routes.PRODUCTS, "store"),
                _mobile_link("Favorites", routes.FAVORITES, "heart", favourites_count(), saved_text(favourites_count())),
                _mobile_link("Cart", routes.CART, "shopping-cart", cart_count(), items_text(cart_count())),
                aria_label="Mobile",
                class_name="flex flex-col",
            ),
            rx.el.div(
                rx.el.h2("Account", class_name="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-gray-600"),
                account_items(CLOSE_MOBILE_MENU),
                class_name="mt-4 border-t border-gray-200 pt-4",
            ),
            rx.el.button(
                icon("x", 18),
                "Close Menu",
                type="button",
                on_click=CLOSE_MOBILE_MENU,
                class_name=button_class("outline", "md", "mt-6 w-full justify-center"),
            ),
            class_name="flex min-h-full flex-col p-4",
        )),
        id=MOBILE_MENU_ID,
        aria_label="Menu",
        class_name="drawer",
    )


def footer() -> rx.Component:
    heading = "mb-3 text-sm font-semibold text-white"
    item = "tap-line text-sm text-gray-300 hover:text-white"
    return rx.el.footer(
        rx.el.div(
            rx.el.div(
                rx.el.p("DiscountDeals", class_name="text-lg font-extrabold text-white"),
                rx.el.p(
                    "Discounted products from top retailers across Ghana, in one place.",
                    class_name="mt-2 text-sm text-gray-300",
                ),
            ),
            rx.el.div(
                rx.el.h2("Quick Links", class_name=heading),
                rx.el.ul(
                    *[
                        rx.el.li(rx.el.a(text, href=href, class_name=item))
                        for text, href in (
                            ("Home", routes.HOME),
                            ("All Products", routes.PRODUCTS),
                            ("My Favorites", routes.FAVORITES),
                            ("Shopping Cart", routes.CART),
                        )
                    ],
                    class_name="space-y-2 pointer-coarse:space-y-0",
                ),
            ),
            rx.el.div(
                rx.el.h2("Categories", class_name=heading),
                rx.el.ul(*[rx.el.li(name, class_name="text-sm text-gray-300") for name in FOOTER_CATEGORIES], class_name="space-y-2"),
            ),
            rx.el.div(
                rx.el.h2("Contact Us", class_name=heading),
                rx.el.ul(
                    rx.el.li("Oxford Street, Osu, Accra, Ghana", class_name="text-sm text-gray-300"),
                    rx.el.li("+233 30 290 0000", class_name="text-sm text-gray-300"),
                    rx.el.li("support@discountdeals.com.gh", class_name="text-sm text-gray-300"),
                    rx.el.li("Mon – Sat, 8:00 – 18:00", class_name="text-sm text-gray-300"),
                    class_name="space-y-2",
                ),
            ),
            class_name="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:grid-cols-2 sm:px-6 lg:grid-cols-4",
        ),
        rx.el.div(
            rx.el.div(
                rx.el.p("© 2026 DiscountDeals. All rights reserved.", class_name="text-xs text-gray-300"),
                rx.el.div(
                    *[rx.el.a(text, href=href, class_name="tap-line text-xs text-gray-300 hover:text-white")
                      for text, href in (("Privacy Policy", routes.PRIVACY), ("Terms of Service", routes.TERMS),
                                         ("Cookie Policy", routes.COOKIES))],
                    class_name="flex gap-4",
                ),
                class_name="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-4 sm:flex-row sm:justify-between sm:px-6",
            ),
            class_name="border-t border-gray-800",
        ),
        class_name="bg-gray-900",
    )


def layout(*children: rx.Component) -> rx.Component:
    return rx.el.div(
        rx.el.a(
            "Skip to content",
            href="#main",
            class_name="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded "
            "focus:bg-white focus:px-3 focus:py-2",
        ),
        header(),
        # At least a screen tall: content that arrives after the first paint must not push the
        # footer up and down (layout shift).
        rx.el.main(
            *children, id="main", class_name="mx-auto min-h-[calc(100vh-4rem)] w-full max-w-7xl flex-1 px-3 py-6 sm:px-6"
        ),
        footer(),
        mobile_menu(),
        deal_offer_sheet(),
        # Room under the footer for the cart's fixed checkout bar on phones.
        class_name="flex min-h-screen flex-col bg-gray-50 text-gray-900 max-lg:has-[#checkout-bar]:pb-24",
    )
