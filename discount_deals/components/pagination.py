"""Pagination: page 1, the last page and two pages either side of the current, with ellipses."""

from __future__ import annotations

import reflex as rx

from .ui import button_class, icon


def pagination(page: rx.Var, total_pages: rx.Var, items: rx.Var, go_to) -> rx.Component:
    def item(label: rx.Var) -> rx.Component:
        return rx.cond(
            label == "…",
            rx.el.span("…", class_name="px-2 text-gray-600", aria_hidden="true"),
            rx.el.button(
                label,
                type="button",
                aria_label="Page " + label,
                aria_current=rx.cond(label == page.to_string(), "page", "false"),
                on_click=go_to(label.to(int)),
                class_name=rx.cond(
                    label == page.to_string(),
                    button_class("primary", "icon"),
                    button_class("outline", "icon"),
                ),
            ),
        )

    return rx.cond(
        total_pages > 1,
        rx.el.nav(
            rx.el.button(
                icon("chevron-left", 16),
                rx.el.span("Previous", class_name="hidden sm:inline"),
                type="button",
                aria_label="Previous page",
                disabled=page <= 1,
                on_click=go_to(page - 1),
                class_name=button_class("outline", "sm"),
            ),
            rx.foreach(items, item),
            rx.el.button(
                rx.el.span("Next", class_name="hidden sm:inline"),
                icon("chevron-right", 16),
                type="button",
                aria_label="Next page",
                disabled=page >= total_pages,
                on_click=go_to(page + 1),
                class_name=button_class("outline", "sm"),
            ),
            aria_label="Pagination",
            class_name="mt-8 flex flex-wrap items-center justify-center gap-1",
        ),
        rx.el.p("No pagination needed", class_name="mt-8 text-center text-xs text-gray-600"),
    )
