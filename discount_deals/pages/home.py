"""Home (/): hero, stats, featured deals, shop by brand, call to action."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.product_card import product_grid
from ..components.ui import icon, link_button
from ..state.catalog import HomeState

STATS = [
    ("500+", "Products", "package"),
    ("Up to 70%", "Discounts", "percent"),
    ("2", "Retailers", "store"),
    ("Daily", "Deals", "calendar-days"),
]


def hero() -> rx.Component:
    return rx.el.section(
        rx.el.p("Shoprite · Melcom · and more", class_name="text-sm font-semibold uppercase tracking-wide text-orange-100"),
        rx.el.h1("Discover Amazing Deals", class_name="mt-2 text-4xl font-extrabold leading-tight text-white sm:text-5xl"),
        rx.el.p(
            "Find discounted products from top retailers in Ghana, all in one place. Compare, save and shop smarter every day.",
            class_name="mt-4 max-w-2xl text-lg text-orange-50",
        ),
        link_button("Shop Now", icon("arrow-right", 18), href=routes.PRODUCTS, variant="dark", size="lg", class_name="mt-6"),
        class_name="rounded-2xl bg-gradient-to-br from-orange-700 to-red-800 px-6 py-12 sm:px-12 sm:py-16",
    )


def stats() -> rx.Component:
    return rx.el.section(
        *[
            rx.el.div(
                icon(tag, 22, class_name="text-orange-700"),
                rx.el.p(value, class_name="mt-2 text-2xl font-extrabold text-gray-900"),
                rx.el.p(label, class_name="text-sm text-gray-600"),
                class_name="rounded-lg border border-gray-200 bg-white p-4 text-center",
            )
            for value, label, tag in STATS
        ],
        aria_label="Why shop with us",
        class_name="mt-8 grid grid-cols-2 gap-4 md:grid-cols-4",
    )


def featured_section() -> rx.Component:
    return rx.el.section(
        rx.el.div(
            rx.el.h2("Featured Deals", class_name="text-2xl font-bold text-gray-900"),
            rx.el.a("View all", href=routes.PRODUCTS, class_name="text-sm font-medium text-orange-800 hover:underline"),
            class_name="mb-4 flex items-center justify-between",
        ),
        rx.cond(
            HomeState.featured.length() > 0,
            product_grid(HomeState.featured),
            rx.el.p(rx.cond(HomeState.loaded, "No featured deals right now.", "Loading deals..."), class_name="text-gray-600"),
        ),
        class_name="mt-12",
    )


def brand_tile(name: str, slug: str, count: rx.Var, colour: str) -> rx.Component:
    return rx.el.a(
        rx.el.span(name[0], class_name=f"flex h-14 w-14 items-center justify-center rounded-xl text-2xl font-black text-white {colour}"),
        rx.el.span(
            rx.el.span(name, class_name="block text-lg font-bold text-gray-900"),
            rx.el.span(count, " products", class_name="block text-sm text-gray-600"),
        ),
        icon("chevron-right", 20, class_name="ml-auto text-gray-500"),
        href=f"{routes.PRODUCTS}?brand={slug}",
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
    return layout(hero(), stats(), featured_section(), brands_section(), call_to_action())
