"""Home (/): hero, stats, featured deals, shop by brand, call to action."""

import reflex as rx

from .. import routes
from ..components.flash_sale import on_sale_end
from ..components.layout import layout
from ..components.card_style import SKELETON_LINE
from ..components.product_card import product_grid, server_rendered, skeleton_grid_html
from ..page_slots import SLOT_BRAND_COUNT, SLOT_FEATURED
from ..components.ui import icon, link_button
from ..state.shop.catalog import HomeState

STATS = [
    ("500+", "Products", "package"),
    ("Up to 70%", "Discounts", "percent"),
    ("2", "Retailers", "store"),
    ("Daily", "Deals", "calendar-days"),
]


def hero() -> rx.Component:
    return rx.el.section(
        rx.el.p(
            "Shoprite · Melcom · and more",
            class_name="text-xs font-semibold uppercase tracking-wide text-orange-100 sm:text-sm",
        ),
        rx.el.h1(
            "Discover Amazing Deals",
            class_name="mt-1 text-3xl font-extrabold leading-tight text-white sm:mt-2 sm:text-5xl",
        ),
        rx.el.p(
            "Find discounted products from top retailers in Ghana, all in one place. Compare, save and shop smarter every day.",
            class_name="mt-3 max-w-2xl text-base text-orange-50 sm:mt-4 sm:text-lg",
        ),
        link_button(
            "Shop Now", icon("arrow-right", 18), href=routes.PRODUCTS, variant="dark", size="lg", class_name="mt-5 sm:mt-6"
        ),
        # Compact on phones: the first featured deal must start within a 390 x 844 first screen.
        class_name="rounded-2xl bg-gradient-to-br from-orange-700 to-red-800 px-5 py-6 sm:px-12 sm:py-16",
    )


def stats() -> rx.Component:
    return rx.el.section(
        *[
            rx.el.div(
                icon(tag, 22, class_name="hidden text-orange-700 sm:inline"),
                rx.el.p(value, class_name="text-sm font-extrabold text-gray-900 sm:mt-2 sm:text-2xl"),
                rx.el.p(label, class_name="text-xs text-gray-600 sm:text-sm"),
                class_name="flex flex-col items-center justify-center rounded-lg border border-gray-200 bg-white px-1 py-2 "
                "text-center sm:p-4",
            )
            for value, label, tag in STATS
        ],
        aria_label="Why shop with us",
        class_name="mt-4 grid grid-cols-4 gap-2 sm:mt-8 sm:gap-4",
    )


def featured_grid() -> rx.Component:
    """Up to four featured products; in the first HTML, as the server rendered them."""
    return rx.cond(
        HomeState.loaded,
        rx.cond(
            HomeState.featured.length() > 0,
            product_grid(HomeState.featured),
            rx.el.p("No featured deals right now.", class_name="text-gray-600"),
        ),
        server_rendered(SLOT_FEATURED, skeleton_grid_html(4)),
    )


def featured_section() -> rx.Component:
    return rx.el.section(
        rx.el.div(
            rx.el.h2("Featured Deals", class_name="text-2xl font-bold text-gray-900"),
            rx.el.a("View all", href=routes.PRODUCTS, class_name="tap-line text-sm font-medium text-orange-800 hover:underline"),
            class_name="mb-4 flex items-center justify-between",
        ),
        featured_grid(),
        class_name="mt-8 sm:mt-12",
    )


def brand_tile(name: str, slug: str, count: rx.Var, colour: str) -> rx.Component:
    return rx.el.a(
        rx.el.span(name[0], class_name=f"flex h-14 w-14 items-center justify-center rounded-xl text-2xl font-black text-white {colour}"),
        rx.el.div(
            rx.el.span(name, class_name="block text-lg font-bold text-gray-900"),
            rx.cond(
                HomeState.loaded,
                rx.el.span(count, " products", class_name="block text-sm text-gray-600"),
                server_rendered(f"{SLOT_BRAND_COUNT}-{slug}", f'<span class="{SKELETON_LINE} w-24"></span>', class_name="text-sm text-gray-600"),
            ),
        ),
        icon("chevron-right", 20, class_name="ml-auto text-gray-500"),
        href=routes.products_path(brand=slug),
        class_name="flex items-center gap-4 rounded-lg border border-gray-200 bg-white p-5 hover:border-orange-700",
    )


def brands_section() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Shop by Brand", class_name="mb-4 text-2xl font-bold text-gray-900"),
        rx.el.div(
            brand_tile("Shoprite", "shoprite", HomeState.shoprite_count, "bg-red-700"),
            brand_tile("Melcom", "melcom", HomeState.melcom_count, "bg-blue-800"),
            class_name="grid gap-4 sm:grid-cols-2",
        ),
        class_name="mt-12",
    )


def call_to_action() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Ready to start saving?", class_name="text-2xl font-bold text-gray-900"),
        rx.el.p("New deals land every day. Browse the full catalogue and never pay full price again.", class_name="mt-2 text-gray-600"),
        link_button("Browse All Products", href=routes.PRODUCTS, size="lg", class_name="mt-6"),
        class_name="mt-12 rounded-2xl border border-orange-200 bg-orange-50 px-6 py-10 text-center",
    )


def home() -> rx.Component:
    return layout(hero(), stats(), featured_section(), brands_section(), call_to_action(), on_sale_end(HomeState.load))
