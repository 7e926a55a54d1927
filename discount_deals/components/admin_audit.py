"""Admin Activity tab: filters (who, what, which object, when) and the audit trail, newest first."""

from __future__ import annotations

import reflex as rx

from ..state.admin.activity import ACTION_FILTERS, TARGET_FILTERS, AdminActivityState
from .admin_ui import form_input, heading_bar, labelled, list_panel
from .ui import FIELD_INPUT, badge_class, button, button_class, icon

A = AdminActivityState


def _select(text: str, name: str, options: list[tuple[str, str]], value) -> rx.Component:
    return labelled(
        text,
        name,
        rx.el.select(*[rx.el.option(label, value=key) for key, label in options], id=name, name=name,
                     default_value=value, class_name=FIELD_INPUT),
    )


def activity_filters() -> rx.Component:
    return rx.el.form(
        rx.el.div(
            form_input("Who (email)", "activity_actor", default_value=A.actor, placeholder="admin@example.com",
                       auto_complete="off", class_name="col-span-2 lg:col-span-1"),
            _select("Action", "activity_action", ACTION_FILTERS, A.action),
            _select("Changed", "activity_target_type", TARGET_FILTERS, A.target_type),
            form_input("Object id", "activity_target_id", default_value=A.target_id, auto_complete="off",
                       class_name="col-span-2 lg:col-span-1"),
            form_input("From", "activity_date_from", type="date", default_value=A.date_from),
            form_input("To", "activity_date_to", type="date", default_value=A.date_to),
            class_name="grid grid-cols-2 gap-3 lg:grid-cols-6",
        ),
        rx.el.div(
            rx.el.button(icon("filter", 16), "Apply filters", type="submit", class_name=button_class("primary", "sm")),
            rx.cond(A.filtered, button("Clear filters", variant="ghost", size="sm", on_click=A.clear_filters)),
            class_name="mt-3 flex items-center gap-2",
        ),
        key=A.form_key,
        on_submit=A.apply_filters,
        aria_label="Filter activity",
        class_name="mt-4",
    )


def _event(row) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(row.action_label, class_name=badge_class("brand")),
            rx.el.span(row.target_type, class_name="text-xs font-medium uppercase tracking-wide text-gray-600"),
            rx.cond(
                row.target_href != "",
                rx.el.a(row.target_label, href=row.target_href,
                        class_name="tap-line font-semibold text-orange-800 underline-offset-2 hover:underline"),
                rx.el.span(row.target_label, class_name="font-semibold text-gray-900"),
            ),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(
            "By ", rx.el.span(row.actor, class_name="font-medium text-gray-900"), " · ",
            rx.el.time(row.when, date_time=row.when_iso),
            class_name="mt-1 text-sm text-gray-700",
        ),
        rx.cond(
            row.changes.length() > 0,
            rx.el.ul(
                rx.foreach(row.changes, lambda line: rx.el.li(line, class_name="break-words")),
                aria_label="Changes",
                class_name="mt-2 space-y-0.5 rounded-md bg-gray-50 px-3 py-2 font-mono text-xs text-gray-800",
            ),
        ),
        class_name="border-b border-gray-200 py-3 last:border-b-0",
    )


def activity_tab() -> rx.Component:
    return list_panel(
        A,
        heading_bar("Activity", rx.el.span(A.summary, class_name="text-sm text-gray-600", aria_live="polite"),
                    class_name=""),
        rx.fragment(
            rx.el.p("Every change made in the back office: who, what, when, and what it was before.",
                    class_name="text-sm text-gray-600"),
            activity_filters(),
            rx.cond(A.error != "", rx.el.p(A.error, role="alert", class_name="mt-3 text-sm text-red-700")),
        ),
        rx.el.ol(rx.foreach(A.rows, _event), aria_label="Activity events", class_name="mt-4"),
        "activity", rx.cond(A.filtered, "No activity matches these filters", "No activity yet"),
        label="Activity", pages_label="Activity pages",
    )
