"""Admin Users tab: search, role filter, the list with role badges and role selectors."""

from __future__ import annotations

import reflex as rx

from ..state.admin.users import ROLE_CHOICES, ROLE_FILTERS, AdminUsersState
from .admin_ui import PANEL, pager, search_box
from .ui import FIELD_INPUT, badge_class, button_class, icon

U = AdminUsersState


def _role_badge(row) -> rx.Component:
    return rx.el.span(
        row.role,
        class_name=rx.match(
            row.badge,
            ("destructive", badge_class("destructive")),
            ("default", badge_class("default")),
            ("secondary", badge_class("secondary")),
            badge_class("outline"),
        ),
    )


def _user_row(row) -> rx.Component:
    select_id = "role_" + row.id
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.span(row.name, class_name="font-semibold text-gray-900"),
                _role_badge(row),
                rx.cond(~row.is_active, rx.el.span("Deactivated", class_name=badge_class("secondary"))),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.el.p(row.email, class_name="truncate text-sm text-gray-700"),
            rx.el.p("@" + row.username, class_name="truncate text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.el.label("Role for " + row.name, html_for=select_id, class_name="sr-only"),
            rx.el.select(
                *[rx.el.option(text, value=value) for value, text in ROLE_CHOICES],
                id=select_id,
                value=row.role,
                on_change=lambda value: U.change_role(row.id, value),
                class_name=FIELD_INPUT + " w-36",
            ),
            rx.el.button(
                rx.cond(row.is_active, "Deactivate", "Reactivate"),
                type="button",
                aria_label=rx.cond(row.is_active, "Deactivate ", "Reactivate ") + row.name,
                on_click=U.set_active(row.id, ~row.is_active),
                class_name=button_class("outline", "sm"),
            ),
            class_name="flex items-center gap-2",
        ),
        class_name="flex flex-col gap-3 border-b border-gray-200 py-3 last:border-b-0 sm:flex-row sm:items-center",
    )


def users_tab() -> rx.Component:
    return rx.el.section(
        rx.el.h2("User Management", class_name="text-lg font-semibold text-gray-900"),
        rx.el.div(
            rx.el.div(
                search_box(
                    "admin_user_search", "Search users", "Search users by email, username, or name...", U.search,
                    U.set_search,
                ),
                class_name="flex-1",
            ),
            rx.el.div(
                rx.el.label("Filter by role", html_for="admin_role_filter", class_name="sr-only"),
                rx.el.select(
                    *[rx.el.option(text, value=value) for value, text in ROLE_FILTERS],
                    id="admin_role_filter",
                    value=U.role_filter,
                    on_change=U.set_role_filter,
                    class_name=FIELD_INPUT + " sm:w-44",
                ),
            ),
            class_name="mt-4 flex flex-col gap-3 sm:flex-row",
        ),
        rx.cond(
            U.loading,
            rx.el.div(
                rx.el.span(class_name="h-6 w-6 animate-spin rounded-full border-4 border-gray-200 border-t-orange-700"),
                rx.el.p("Loading users...", class_name="text-sm text-gray-600"),
                role="status",
                class_name="flex items-center justify-center gap-3 py-10",
            ),
            rx.cond(
                U.failed,
                rx.el.div(
                    icon("circle-alert", 32, class_name="mx-auto text-red-700"),
                    rx.el.p("Failed to load users", class_name="mt-2 font-semibold text-gray-900"),
                    rx.el.button("Try Again", type="button", on_click=U.load, class_name=button_class("outline", "md", "mt-3")),
                    role="alert",
                    class_name="py-10 text-center",
                ),
                rx.cond(
                    U.rows.length() > 0,
                    rx.el.ul(rx.foreach(U.rows, _user_row), aria_label="Users", class_name="mt-2"),
                    rx.el.p(
                        rx.cond(U.filtered, "No users match your search criteria", "No users found"),
                        class_name="py-10 text-center text-gray-600",
                    ),
                ),
            ),
        ),
        rx.el.p(U.showing_text, class_name="mt-3 text-sm text-gray-700", aria_live="polite"),
        pager(U.page, U.total_pages, U.page_text, U.go_to_page, "Users pages"),
        aria_label="User Management",
        class_name=PANEL,
    )
