"""Admin Reviews tab: published and hidden reviews, newest first, each with Hide or Show."""

from __future__ import annotations

import reflex as rx

from ..state.admin.reviews import AdminReviewsState
from . import card_style as S
from .admin_ui import filter_select, heading_bar, list_panel
from .ui import badge_class, button_class

R = AdminReviewsState


def _review(row) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(row.product_name, class_name="font-semibold text-gray-900"),
            rx.cond(row.is_hidden, rx.el.span("Hidden", class_name=badge_class("secondary")),
                    rx.el.span("Published", class_name=badge_class("brand"))),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(
            rx.el.span(rx.el.span(row.stars_on, class_name=S.STAR_ON), rx.el.span(row.stars_off, class_name=S.STAR_OFF),
                       aria_hidden="true", class_name=S.STARS),
            rx.el.span("Rated ", row.rating, " out of 5", class_name=S.SR_ONLY),
            " ", row.reviewer, " (", row.email, ") · ", row.when,
            class_name="mt-1 text-sm text-gray-700",
        ),
        rx.el.p(row.text, class_name="mt-1 whitespace-pre-line break-words text-gray-800"),
        rx.el.button(
            rx.cond(row.is_hidden, "Show", "Hide"),
            type="button",
            aria_label=rx.cond(row.is_hidden, "Show review by ", "Hide review by ") + row.reviewer,
            on_click=R.set_hidden(row.id, ~row.is_hidden),
            class_name=button_class("outline", "sm", "mt-2"),
        ),
        class_name="border-b border-gray-200 py-3 last:border-b-0",
    )


def reviews_tab() -> rx.Component:
    return list_panel(
        R,
        heading_bar("Reviews", filter_select("Show", "reviews-shown", R, "shown_filter"), class_name=""),
        rx.el.p("Reviews from customers who received the product. A hidden review leaves the product's page and "
                "rating.", class_name="mt-1 text-sm text-gray-600"),
        rx.el.ul(rx.foreach(R.rows, _review), aria_label="Reviews", class_name="mt-4"),
        "reviews", "No reviews yet",
        label="Reviews", pages_label="Review pages",
    )
