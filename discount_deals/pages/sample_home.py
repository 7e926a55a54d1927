"""Alternative landing (/test-home): logo hero, featured grid and partner tiles."""

import reflex as rx

from ..components.layout import layout
from .home import featured_grid
from ..state.shop.catalog import HomeState

PARTNERS = [
    ("Shoprite", "bg-red-700"),
    ("Melcom", "bg-blue-800"),
    ("Game", "bg-emerald-800"),
    ("Makro", "bg-yellow-700"),
    ("Pick n Pay", "bg-sky-800"),
    ("Checkers", "bg-teal-800"),
]


def sample_home() -> rx.Component:
    return layout(
        rx.el.section(
            rx.el.div(
                rx.el.span("%", class_name="flex h-20 w-20 items-center justify-center rounded-3xl bg-orange-700 text-5xl font-black text-white"),
                class_name="flex justify-center",
            ),
            rx.el.h1("Discover Amazing Deals", class_name="mt-6 text-center text-4xl font-extrabold text-gray-900"),
            rx.el.p(
                "Find discounted products from top retailers, all in one place.",
                class_name="mt-3 text-center text-lg text-gray-600",
            ),
            class_name="py-10",
        ),
        rx.el.section(
            rx.el.h2("Featured Deals", class_name="mb-4 text-2xl font-bold"),
            featured_grid(),
        ),
        rx.el.section(
            rx.el.h2("Our Partners", class_name="mb-4 text-2xl font-bold"),
            rx.el.div(
                *[
                    rx.el.button(
                        rx.el.span(name[0], class_name=f"flex h-12 w-12 items-center justify-center rounded-xl text-xl font-black text-white {colour}"),
                        rx.el.span(name, class_name="text-sm font-semibold text-gray-900"),
                        type="button",
                        on_click=HomeState.select_partner(name),
                        class_name="flex flex-col items-center gap-2 rounded-lg border border-gray-200 bg-white p-4 hover:border-orange-700",
                    )
                    for name, colour in PARTNERS
                ],
                class_name="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6",
            ),
            class_name="mt-12",
        ),
    )
