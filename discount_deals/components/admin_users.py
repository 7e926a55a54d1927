"""Admin Users tab: search, role filter, the list with role badges and role selectors."""

from __future__ import annotations

import reflex as rx

from ..state.admin.users import ROLE_CHOICES, AdminUsersState
from .admin_ui import filter_select, list_panel, search_and_filter, search_box, showing, status_badge
from .ui import FIELD_INPUT, badge_class, button_class

U = AdminUsersState


def _role_badge(row) -> rx.Component:
    return status_badge(row.role, row.badge, ("destructive", "default", "secondary"), default="outline")


def _suspended_badge(row) -> rx.Component:
    """"Deactivated" on a suspended account (a closed one says so where its controls would be)."""
    return rx.cond(row.closed | row.is_active, rx.fragment(), rx.el.span("Deactivated", class_name=badge_class("secondary")))


def _who(row) -> rx.Component:
    """The name with its role and state; the email and username under it."""
    name_line = rx.el.div(rx.el.span(row.name, class_name="font-semibold text-gray-900"), _role_badge(row),
                          _suspended_badge(row), class_name="flex flex-wrap items-center gap-2")
    return rx.el.div(
        name_line,
        rx.el.p(row.email, class_name="truncate text-sm text-gray-700"),
        rx.el.p("@" + row.username, class_name="truncate text-xs text-gray-600"),
        class_name="min-w-0 flex-1",
    )


def _user_row(row) -> rx.Component:
    return rx.el.li(
        _who(row),
        rx.cond(row.closed, rx.el.p("Closed by its owner", class_name="text-sm text-gray-600"), _controls(row)),
        class_name="flex flex-col gap-3 border-b border-gray-200 py-3 last:border-b-0 sm:flex-row sm:items-center",
    )


def _controls(row) -> rx.Component:
    """The role select and (de)activation: a closed account takes neither (services.users.admin)."""
    select_id = "role_" + row.id
    return rx.el.div(
        rx.el.label("Role for " + row.name, html_for=select_id, class_name="sr-only"),
        rx.el.select(
            *[rx.el.option(text, value=value) for value, text in ROLE_CHOICES],
            id=select_id,
            on_change=lambda value: U.change_role(row.id, value),
            default_value=row.role,
            key=select_id + "-" + row.role + "-" + U.rows_version.to_string(),
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
    )


def users_tab() -> rx.Component:
    return list_panel(
        U,
        rx.el.h2("User Management", class_name="text-lg font-semibold text-gray-900"),
        search_and_filter(
            search_box("admin_user_search", "Search users", "Search users by email, username, or name...", U),
            filter_select("Filter by role", "admin_role_filter", U, "role_filter"),
            class_name="mt-4",
        ),
        rx.el.ul(rx.foreach(U.rows, _user_row), aria_label="Users", class_name="mt-2"),
        "users", rx.cond(U.filtered, "No users match your search criteria", "No users found"),
        label="User Management", pages_label="Users pages", replace=True, footer=showing(U.showing_text),
    )
