"""Admin Returns tab (issue 33): filter by status, the paged list, and each return's steps."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.return_views import AdminReturnRow
from ..state.admin.returns import CASH_BUSY, NOTE_LIMIT, AdminReturnsState
from .admin_ui import filter_select, heading_bar, list_panel, order_number, showing, status_badge
from .blocks import test_payment_badge
from .ui import FIELD_INPUT, FIELD_LABEL, button_class, icon

RETURNS = AdminReturnsState
BADGES = ("success", "destructive", "warning", "brand")



def _step_button(text: str, on_click, row: AdminReturnRow, variant: str = "outline") -> rx.Component:
    return rx.el.button(text, type="button", on_click=on_click, disabled=RETURNS.working != "",
                        aria_label=text + " return for order #" + row.short_order,
                        class_name=button_class(variant, "sm"))


def _reject_form(row: AdminReturnRow) -> rx.Component:
    return rx.el.form(
        rx.el.label("Why is it not approved? The customer is told.", html_for="return-note-" + row.id,
                    class_name=FIELD_LABEL),
        rx.el.textarea(id="return-note-" + row.id, name="note", required=True, max_length=NOTE_LIMIT, rows=2,
                       class_name=FIELD_INPUT),
        rx.cond(RETURNS.note_error != "", rx.el.p(RETURNS.note_error, role="alert", class_name="mt-1 text-sm text-red-700")),
        rx.el.div(
            rx.el.button("Reject return", type="submit", disabled=RETURNS.working != "",
                         class_name=button_class("danger", "sm")),
            rx.el.button("Keep it", type="button", on_click=RETURNS.cancel_reject, class_name=button_class("ghost", "sm")),
            class_name="mt-2 flex flex-wrap gap-2",
        ),
        on_submit=RETURNS.reject,
        aria_label="Reject return",
        class_name="mt-2 w-full",
    )


def _refund_button(row: AdminReturnRow) -> rx.Component:
    busy = RETURNS.working == row.id
    return rx.el.button(
        rx.cond(busy, rx.el.span(class_name="h-4 w-4 animate-spin rounded-full border-2 border-white/40 border-t-white",
                                 aria_hidden="true")),
        rx.cond(busy, "Refunding...", rx.cond(row.refund_pending, "Check refund", "Refund")),
        type="button", on_click=RETURNS.refund(row.id), disabled=RETURNS.working != "",
        aria_label=rx.cond(busy, "Refunding", rx.cond(row.refund_pending, "Check refund", "Refund")
                           + " return for order #" + row.short_order),
        class_name=button_class("primary", "sm"),
    )


def _cash_button(row: AdminReturnRow) -> rx.Component:
    """Beside the retry of a mobile-money refund that failed: pay it back in cash instead."""
    busy = RETURNS.working == CASH_BUSY + row.id
    return rx.el.button(
        rx.cond(busy, rx.el.span(class_name="h-4 w-4 animate-spin rounded-full border-2 border-gray-400 "
                                            "border-t-gray-900", aria_hidden="true")),
        rx.cond(busy, "Recording...", "Refund in cash"),
        type="button", on_click=RETURNS.refund_in_cash(row.id), disabled=RETURNS.working != "",
        aria_label=rx.cond(busy, "Recording the cash refund", "Refund in cash return for order #" + row.short_order),
        class_name=button_class("outline", "sm"),
    )


def _steps(row: AdminReturnRow) -> rx.Component:
    # Reject: a requested return, or an approved one whose items never came back.
    return rx.el.div(
        rx.cond(row.can_reject & (RETURNS.rejecting == row.id), _reject_form(row), rx.fragment(
            rx.cond(row.can_decide, _step_button("Approve", RETURNS.approve(row.id), row, "primary")),
            rx.cond(row.can_receive, _step_button("Mark received", RETURNS.receive(row.id), row, "primary")),
            rx.cond(row.can_reject, _step_button("Reject", RETURNS.ask_reject(row.id), row)),
        )),
        rx.cond(row.can_refund, _refund_button(row)),
        rx.cond(row.can_refund_in_cash, _cash_button(row)),
        role="group",
        aria_label="Steps",
        class_name="flex flex-wrap items-center gap-2",
    )


def _row(row: AdminReturnRow) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            order_number("Order #", row.short_order, status_badge(row.status_text, row.badge, BADGES)),
            rx.el.p(row.customer, " · ", row.date_text, class_name="break-words text-xs text-gray-600"),
            class_name="min-w-0",
        ),
        rx.el.ul(rx.foreach(row.item_lines, lambda text: rx.el.li(text, class_name="break-words")),
                 class_name="text-sm text-gray-900"),
        rx.el.p("Reason: ", row.reason, class_name="break-words text-sm text-gray-700"),
        rx.el.div(
            rx.el.span(row.refund_text, class_name="font-semibold text-gray-900"),
            rx.el.span(row.method_text, class_name="text-xs text-gray-700"),
            test_payment_badge(row.test_payment),
            rx.cond(row.credit_note != "", rx.el.a(icon("file-text", 14), row.credit_note,
                                                  href=routes.credit_note_path(row.id),
                                                  class_name="inline-flex items-center gap-1 text-xs font-semibold "
                                                             "text-orange-800 underline pointer-coarse:min-h-11")),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.cond(row.note != "", rx.el.p("Note: ", row.note, class_name="break-words text-sm text-gray-700")),
        rx.cond(row.refund_problem != "", rx.el.p(icon("triangle-alert", 14), "Last refund did not go through: ",
                                                  row.refund_problem, role="status",
                                                  class_name="break-words text-sm text-red-800")),
        _steps(row),
        class_name="flex flex-col gap-2 border-b border-gray-200 py-3 last:border-b-0",
    )


def returns_tab() -> rx.Component:
    return list_panel(
        RETURNS,
        heading_bar("Returns", class_name=""),
        rx.el.div(filter_select("Status", "admin_return_status", RETURNS, "status_filter", "sm:w-52",
                                visible_label=True), class_name="mt-3"),
        rx.el.ul(rx.foreach(RETURNS.rows, _row), aria_label="Returns", class_name="mt-4"),
        "returns", rx.cond(RETURNS.status_filter != "all", "No returns with this status", "No returns yet"),
        label="Returns", pages_label="Returns pages", replace=True, footer=showing(RETURNS.showing_text),
    )
