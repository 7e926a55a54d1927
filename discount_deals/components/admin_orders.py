"""Admin Orders tab: filters, the paged list, and one order's page with its actions and timeline."""

from __future__ import annotations

import reflex as rx

from ..state.account.order_views import OrderLineView, TimelineEntry
from ..state.admin.order_views import DELIVERY_FILTERS, PAYMENT_FILTERS, STATUS_FILTERS, AdminOrderView, StatusAction
from ..state.admin.orders import AdminOrdersState
from .admin_ui import PANEL, pager, search_box
from .ui import FIELD_INPUT, FIELD_LABEL, badge_class, button, button_class, icon

O = AdminOrdersState


def _badge(text, variant) -> rx.Component:
    return rx.el.span(
        text,
        class_name=rx.match(
            variant,
            ("success", badge_class("success")),
            ("destructive", badge_class("destructive")),
            ("warning", badge_class("warning")),
            badge_class("secondary"),
        ),
    )


def _select(label: str, control_id: str, choices: list[tuple[str, str]], value, on_change) -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=control_id, class_name=FIELD_LABEL),
        rx.el.select(
            *[rx.el.option(text, value=code) for code, text in choices],
            id=control_id, value=value, on_change=on_change, class_name=FIELD_INPUT,
        ),
    )


def _date_input(label: str, control_id: str, value, on_change) -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=control_id, class_name=FIELD_LABEL),
        rx.el.input(type="date", id=control_id, value=value, on_change=on_change, class_name=FIELD_INPUT),
    )


def filters() -> rx.Component:
    return rx.el.div(
        search_box("admin_order_search", "Search orders", "Search by order number or customer email...", O.search,
                   O.set_search),
        rx.el.div(
            _select("Status", "admin_order_status", STATUS_FILTERS, O.status_filter, O.set_status_filter),
            _select("Payment", "admin_order_payment", PAYMENT_FILTERS, O.payment_filter, O.set_payment_filter),
            _select("Delivery", "admin_order_delivery", DELIVERY_FILTERS, O.delivery_filter, O.set_delivery_filter),
            _date_input("From", "admin_order_from", O.date_from, O.set_date_from),
            _date_input("To", "admin_order_to", O.date_to, O.set_date_to),
            class_name="grid grid-cols-2 gap-3 md:grid-cols-5",
        ),
        rx.el.div(
            rx.el.div(
                rx.el.input(type="checkbox", id="admin_order_attention", checked=O.attention_only,
                            on_change=O.set_attention_only, class_name="h-4 w-4 accent-orange-700"),
                rx.el.label("Needs attention only", html_for="admin_order_attention",
                            class_name="text-sm font-medium text-gray-800"),
                class_name="flex items-center gap-2",
            ),
            rx.cond(O.filtered, rx.el.button("Clear filters", type="button", on_click=O.clear_filters,
                                             class_name=button_class("ghost", "sm"))),
            class_name="flex items-center justify-between",
        ),
        class_name="mt-4 space-y-3",
    )


def _row(row: AdminOrderView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.span("#", row.short_id, class_name="font-mono font-semibold text-gray-900"),
                rx.cond(row.attention, rx.el.span(icon("triangle-alert", 14), "Needs attention",
                                                  class_name="inline-flex items-center gap-1 text-xs font-semibold "
                                                  "text-amber-800")),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.el.p(row.created_text, class_name="text-xs text-gray-600"),
            class_name="min-w-0 md:w-40",
        ),
        rx.el.div(
            rx.el.p(row.customer, class_name="truncate text-sm font-medium text-gray-900"),
            rx.el.p(row.email, class_name="truncate text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.el.span(row.delivery_text, class_name="text-xs text-gray-700"),
            _badge(row.payment_text, row.payment_badge),
            _badge(row.status_text, row.status_badge),
            class_name="flex flex-wrap items-center gap-2 md:w-72",
        ),
        rx.el.span(row.total_text, class_name="font-semibold text-gray-900 md:w-24 md:text-right"),
        rx.el.button(
            "View", type="button", on_click=O.open_order(row.id), aria_label="View order #" + row.short_id,
            class_name=button_class("outline", "sm"),
        ),
        class_name="flex flex-col gap-2 border-b border-gray-200 py-3 last:border-b-0 md:flex-row md:items-center "
        "md:gap-4",
    )


def order_list() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h2("Orders", class_name="text-lg font-semibold text-gray-900"),
            button(icon("download", 16), "Export CSV", variant="outline", size="sm", on_click=O.export,
                   title="The order lines of the orders placed in the chosen dates"),
            class_name="flex items-center justify-between gap-2",
        ),
        filters(),
        rx.cond(
            O.loading,
            rx.el.p("Loading orders...", role="status", class_name="py-10 text-center text-gray-600"),
            rx.cond(
                O.failed,
                rx.el.div(
                    rx.el.p("Failed to load orders", class_name="font-semibold text-gray-900"),
                    rx.el.button("Try Again", type="button", on_click=O.load,
                                 class_name=button_class("outline", "md", "mt-3")),
                    role="alert",
                    class_name="py-10 text-center",
                ),
                rx.cond(
                    O.rows.length() > 0,
                    rx.el.ul(rx.foreach(O.rows, _row), aria_label="Orders", class_name="mt-4"),
                    rx.el.p(rx.cond(O.filtered, "No orders match these filters", "No orders yet"),
                            class_name="py-10 text-center text-gray-600"),
                ),
            ),
        ),
        rx.el.p(O.showing_text, class_name="mt-3 text-sm text-gray-700", aria_live="polite"),
        pager(O.page, O.total_pages, O.page_text, O.go_to_page, "Orders pages"),
        class_name=PANEL,
    )


# --- one order ---------------------------------------------------------------------------------


def _line(line: OrderLineView) -> rx.Component:
    return rx.el.li(
        rx.el.img(src=line.image_url, alt="", width="40", height="40", loading="lazy",
                  class_name="h-10 w-10 shrink-0 rounded bg-gray-100 object-cover"),
        rx.el.div(
            rx.el.p(line.name, class_name="text-sm font-medium text-gray-900"),
            rx.el.p("Qty: ", line.quantity, " × ", line.unit_text, class_name="text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.span(line.line_text, class_name="text-sm font-semibold"),
        class_name="flex items-center gap-3 py-2",
    )


def _total(label, value, class_name: str = "") -> rx.Component:
    return rx.el.div(rx.el.dt(label, class_name="text-gray-700"), rx.el.dd(value, class_name="font-medium"),
                     class_name=f"flex justify-between text-sm {class_name}")


def _event(entry: TimelineEntry) -> rx.Component:
    return rx.el.li(
        rx.el.span(
            aria_hidden="true",
            class_name=rx.match(
                entry.tone,
                ("good", "absolute -left-[5px] top-1.5 h-2.5 w-2.5 rounded-full bg-green-700"),
                ("bad", "absolute -left-[5px] top-1.5 h-2.5 w-2.5 rounded-full bg-red-700"),
                "absolute -left-[5px] top-1.5 h-2.5 w-2.5 rounded-full bg-gray-400",
            ),
        ),
        rx.el.p(entry.title, class_name="text-sm font-semibold text-gray-900"),
        rx.el.p(entry.when, class_name="text-xs text-gray-600"),
        rx.cond(entry.note != "", rx.el.p(entry.note, class_name="text-sm text-gray-700")),
        class_name="relative pb-3 pl-5 last:pb-0",
    )


def _action(action: StatusAction) -> rx.Component:
    return rx.el.button(
        rx.cond((O.confirming == action.status) & action.danger, "Confirm: cancel order", action.label),
        type="button",
        on_click=O.change_status(action.status),
        disabled=O.working,
        class_name=rx.cond(action.danger, button_class("danger", "md"), button_class("primary", "md")),
    )


def order_page() -> rx.Component:
    return rx.el.div(
        rx.el.button(icon("arrow-left", 16), "Back to orders", type="button", on_click=O.close_order,
                     class_name=button_class("ghost", "sm")),
        rx.el.div(
            rx.el.div(
                rx.el.h2("Order #", O.shown.short_id, class_name="font-mono text-xl font-bold text-gray-900"),
                rx.el.p(O.shown.created_text, " · ", O.shown.customer, " · ", O.shown.email, class_name="text-sm text-gray-600"),
            ),
            rx.el.div(_badge(O.shown.payment_status_text, O.shown.payment_badge), _badge(O.shown.status_text, O.shown.status_badge),
                      class_name="flex gap-2"),
            class_name="mt-3 flex flex-wrap items-start justify-between gap-3",
        ),
        rx.cond(
            O.shown.attention_text != "",
            rx.el.div(
                rx.el.p(icon("triangle-alert", 16), O.shown.attention_text, class_name="flex items-start gap-2"),
                rx.cond(O.shown.refund_due, button("Mark refunded", variant="outline", on_click=O.mark_refunded,
                                             disabled=O.working)),
                role="alert",
                class_name="mt-4 flex flex-wrap items-center justify-between gap-3 rounded-md bg-amber-50 px-4 "
                "py-3 text-sm text-amber-900",
            ),
        ),
        rx.el.div(
            rx.cond(
                O.actions.length() > 0,
                rx.el.div(rx.foreach(O.actions, _action), class_name="flex flex-wrap gap-2"),
                rx.el.p("No further status changes.", class_name="text-sm text-gray-600"),
            ),
            rx.cond(O.confirming != "",
                    rx.el.button("Keep order", type="button", on_click=O.cancel_confirm,
                                 class_name=button_class("ghost", "md"))),
            role="group",
            aria_label="Change status",
            class_name="mt-4 flex flex-wrap items-center gap-2",
        ),
        rx.el.div(
            rx.el.section(
                rx.el.h3("Items", class_name="font-semibold text-gray-900"),
                rx.el.ul(rx.foreach(O.lines, _line), aria_label="Order items", class_name="divide-y divide-gray-100"),
                rx.el.dl(
                    _total("Subtotal", O.totals.subtotal_text),
                    rx.cond(O.totals.has_discount, _total("Coupon", "-" + O.totals.discount_text)),
                    _total(rx.cond(O.shown.pickup, "Pickup", "Delivery"), O.totals.shipping_text),
                    _total("Tax", O.totals.tax_text),
                    _total("Total", O.totals.total_text, "border-t border-gray-200 pt-2 font-bold"),
                    class_name="mt-3 space-y-1",
                ),
            ),
            rx.el.div(
                rx.el.section(
                    rx.el.h3(rx.cond(O.shown.pickup, "Pickup", "Delivery"), class_name="font-semibold text-gray-900"),
                    rx.el.p(O.shown.delivery_title, class_name="text-sm font-medium"),
                    rx.el.p(O.shown.delivery_detail, class_name="text-sm text-gray-700"),
                ),
                rx.el.section(
                    rx.el.h3("Payment", class_name="font-semibold text-gray-900"),
                    rx.el.p(O.shown.payment_text, class_name="text-sm"),
                    rx.cond(O.shown.payment_reference != "",
                            rx.el.p("Reference: ", O.shown.payment_reference, class_name="break-all text-xs text-gray-600")),
                ),
                rx.el.section(
                    rx.el.h3("Timeline", class_name="font-semibold text-gray-900"),
                    rx.el.ol(rx.foreach(O.timeline, _event), aria_label="Order timeline",
                             class_name="mt-2 ml-1 border-l-2 border-gray-200"),
                ),
                class_name="space-y-4",
            ),
            class_name="mt-6 grid gap-6 lg:grid-cols-2",
        ),
        class_name=PANEL,
    )


def orders_tab() -> rx.Component:
    return rx.cond(O.order_id != "", order_page(), order_list())
