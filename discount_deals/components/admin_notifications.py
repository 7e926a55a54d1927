"""Admin Notifications tab: filters, the messages newest first, each with its text and a retry."""

from __future__ import annotations

import reflex as rx

from ..state.admin.notifications import AdminNotificationsState
from .admin_ui import filter_select, list_panel, search_and_filter, search_box
from .ui import badge_class, button_class

N = AdminNotificationsState
_BADGES = {"queued": "secondary", "sending": "brand", "sent": "success", "failed": "warning", "dead": "destructive"}


def _row(row) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(row.status, class_name=rx.match(row.status, *[(s, badge_class(v)) for s, v in _BADGES.items()],
                                                      badge_class("outline"))),
            rx.el.span(row.channel, class_name=badge_class("outline")),
            rx.el.span(row.kind, class_name="font-semibold text-gray-900"),
            rx.el.span("to ", row.recipient, class_name="break-all text-sm text-gray-700"),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(rx.el.time(row.when, date_time=row.when_iso), " · ", row.attempts,
                rx.cond(row.error != "", " · " + row.error, ""), class_name="mt-1 text-xs text-gray-600"),
        rx.el.div(
            rx.el.button(rx.cond(N.opened == row.id, "Hide text", "Show text"), type="button",
                         aria_expanded=rx.cond(N.opened == row.id, "true", "false"),
                         on_click=N.toggle(row.id), class_name=button_class("ghost", "sm")),
            rx.cond(row.retryable, rx.el.button("Send again", type="button", aria_label="Send again to " + row.recipient,
                                                on_click=N.retry(row.id), class_name=button_class("outline", "sm"))),
            class_name="mt-2 flex flex-wrap gap-2",
        ),
        rx.cond(
            N.opened == row.id,
            rx.el.div(
                rx.cond(row.subject != "", rx.el.p(row.subject, class_name="font-semibold")),
                rx.el.pre(row.text, class_name="mt-1 whitespace-pre-wrap break-words font-sans"),
                class_name="mt-2 rounded-md bg-gray-50 px-3 py-2 text-sm text-gray-800",
            ),
        ),
        class_name="border-b border-gray-200 py-3 last:border-b-0",
    )


def notifications_tab() -> rx.Component:
    return list_panel(
        N,
        rx.el.div(
            rx.el.h2(N.heading, class_name="text-lg font-semibold text-gray-900"),
            rx.el.p(N.summary, class_name="text-sm text-gray-600", aria_live="polite"),
            class_name="mb-3",
        ),
        search_and_filter(
            search_box("admin_message_search", "Search messages", "Recipient, or order / product number...", N),
            filter_select("Status", "admin_message_status", N, "status_filter"),
            filter_select("Channel", "admin_message_channel", N, "channel_filter"),
            filter_select("Kind", "admin_message_kind", N, "kind_filter"),
        ),
        rx.el.ul(rx.foreach(N.rows, _row), aria_label="Messages", class_name="mt-2"),
        "messages", "No messages match these filters", label="Notifications", pages_label="Message pages",
    )
