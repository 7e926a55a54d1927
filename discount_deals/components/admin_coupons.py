"""Admin Coupons tab: the create form on the left, the list (searchable, by status) on the right."""

from __future__ import annotations

import reflex as rx

from ..state.admin.coupons import KINDS, AdminCouponsState
from .admin_ui import PANEL, filter_select, form_beside_list, form_input, labelled, list_panel, search_and_filter, search_box
from ..config.settings import get_settings
from .ui import FIELD_INPUT, badge_class, button_class, submit_button

C = AdminCouponsState


def coupon_form() -> rx.Component:
    return rx.el.form(
        rx.el.h2("Create Coupon", class_name="text-lg font-semibold text-gray-900"),
        rx.el.p("Fields marked * are required.", class_name="mb-4 text-xs text-gray-600"),
        rx.el.div(
            form_input("Code", "coupon_code", required=True, placeholder="e.g. WELCOME10", auto_complete="off",
                       hint="Letters, digits, - and _ (stored in capitals).", class_name="sm:col-span-2"),
            labelled(
                "Type",
                "coupon_kind",
                rx.el.select(*[rx.el.option(text, value=value) for value, text in KINDS], id="coupon_kind",
                             name="coupon_kind", default_value="percent", class_name=FIELD_INPUT),
            ),
            form_input("Value", "coupon_value", required=True, placeholder="10", input_mode="decimal",
                       hint=f"A percentage, or an amount in {get_settings().currency.code}."),
            form_input("Expires on", "coupon_expires", type="date", hint="Valid through that day (GMT, Accra time)."),
            form_input("Usage limit", "coupon_usage_limit", type="number", min="1", step="1",
                       placeholder="No limit", hint="How many orders may use it."),
            form_input("Minimum basket", "coupon_min_subtotal", placeholder="0.00", input_mode="decimal",
                       hint="The smallest subtotal it applies to.", class_name="sm:col-span-2"),
            class_name="grid gap-4 sm:grid-cols-2",
        ),
        submit_button(C.saving, "Create Coupon", "Creating...", class_name="mt-6 w-full justify-center"),
        id="coupon-form",
        key=C.form_key,
        on_submit=C.create,
        aria_label="Create Coupon",
        class_name=PANEL + " scroll-mt-20",
    )


_STATUS_BADGES = {"active": "success", "inactive": "secondary", "expired": "outline"}


def _status(row) -> rx.Component:
    return rx.el.span(
        row.status_text,
        class_name=rx.match(row.status, *[(status, badge_class(variant)) for status, variant in _STATUS_BADGES.items()],
                            badge_class("warning")),
    )


def _row(row) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.h3(row.code, class_name="font-mono font-semibold text-gray-900"),
                _status(row),
                rx.el.span(row.effect, class_name=badge_class("brand")),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.el.p(row.usage_text, " · ", row.minimum_text, class_name="mt-1 text-sm text-gray-700"),
            rx.el.p(row.expires_text, class_name="text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.button(
            rx.cond(row.active, "Deactivate", "Reactivate"),
            type="button",
            aria_label=rx.cond(row.active, "Deactivate ", "Reactivate ") + row.code,
            on_click=C.set_active(row.id, ~row.active),
            class_name=rx.cond(row.active, button_class("outline", "sm", "justify-center text-red-700 hover:bg-red-50"),
                               button_class("outline", "sm", "justify-center")),
        ),
        class_name="flex flex-col gap-3 border-b border-gray-200 py-3 last:border-b-0 sm:flex-row sm:items-center",
    )


def coupon_list() -> rx.Component:
    return list_panel(
        C,
        rx.el.h2(C.heading, class_name="mb-3 text-lg font-semibold text-gray-900"),
        search_and_filter(
            search_box("admin_coupon_search", "Search coupons", "Search by code...", C),
            filter_select("Show", "admin_coupon_status", C, "status_filter"),
        ),
        rx.el.ul(rx.foreach(C.rows, _row), aria_label="Coupons", class_name="mt-2"),
        "coupons", "No coupons found", label="Coupon list", pages_label="Coupon pages",
    )


def coupons_tab() -> rx.Component:
    return form_beside_list(coupon_form(), coupon_list(), ("Create a coupon", "coupon-form"))
