"""Admin Orders tab: filters, the paged list, and one order's page with its actions and timeline."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.order_views import TEST_PAYMENT_NOTE
from ..state.admin.order_views import AdminOrderView, StatusAction
from ..state.admin.orders import AdminOrdersState
from .order_returns import returns_box
from .blocks import kept_whole, line_item, tax_rows, test_payment_badge, timeline, total_row
from .admin_ui import PANEL, filter_select, heading_bar, list_panel, order_number, search_box, showing, status_badge
from .ui import FIELD_INPUT, FIELD_LABEL, browser_owned, button, button_class, icon

ORDERS = AdminOrdersState
P = AdminOrdersState.shown  # the order on screen


def call_link(text, href, class_name: str = "") -> rx.Component:
    """The customer's contact phone as a tap-to-call link ("tel:+233..."), when there is one."""
    return rx.cond(
        href != "",
        rx.el.a(icon("phone", 14), text, href=href, aria_label="Call " + text,
                class_name="inline-flex items-center gap-1 whitespace-nowrap font-medium text-orange-800 underline "
                "pointer-coarse:min-h-11 " + class_name),
    )


def _badge(text, variant) -> rx.Component:
    return status_badge(text, variant, ("success", "destructive", "warning"))


def _date_input(label: str, control_id: str, value, on_change) -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=control_id, class_name=FIELD_LABEL),
        rx.el.input(type="date", id=control_id, on_change=on_change.debounce(300), class_name=FIELD_INPUT,
                    **browser_owned(control_id, value, ORDERS.filters_version)),
    )


def filters() -> rx.Component:
    return rx.el.div(
        search_box("admin_order_search", "Search orders", "Search by order number, name, email or phone...", ORDERS),
        rx.el.div(
            filter_select("Status", "admin_order_status", ORDERS, "status_filter", "", visible_label=True),
            filter_select("Payment", "admin_order_payment", ORDERS, "payment_filter", "", visible_label=True),
            filter_select("Delivery", "admin_order_delivery", ORDERS, "delivery_filter", "", visible_label=True),
            _date_input("From", "admin_order_from", ORDERS.date_from, ORDERS.set_date_from),
            _date_input("To", "admin_order_to", ORDERS.date_to, ORDERS.set_date_to),
            class_name="grid grid-cols-2 gap-3 md:grid-cols-5",
        ),
        rx.el.div(
            rx.el.div(
                rx.el.input(type="checkbox", id="admin_order_attention", on_change=ORDERS.set_attention_only,
                            class_name="h-4 w-4 accent-orange-700",
                            **browser_owned("admin_order_attention", ORDERS.attention_only, ORDERS.filters_version,
                                            checked=True)),
                rx.el.label("Needs attention only", html_for="admin_order_attention",
                            class_name="text-sm font-medium text-gray-800 pointer-coarse:inline-flex "
                                       "pointer-coarse:min-h-11 pointer-coarse:items-center"),
                class_name="flex items-center gap-2",
            ),
            rx.cond(ORDERS.filtered, rx.el.button("Clear filters", type="button", on_click=ORDERS.clear_filters,
                                             class_name=button_class("ghost", "sm"))),
            class_name="flex items-center justify-between",
        ),
        class_name="mt-4 space-y-3",
    )


def _row(row: AdminOrderView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            order_number("#", row.short_id,
                         rx.cond(row.attention, rx.el.span(icon("triangle-alert", 14), "Needs attention",
                                                           class_name="inline-flex items-center gap-1 text-xs "
                                                           "font-semibold text-amber-800"))),
            rx.el.p(row.created_text, class_name="text-xs text-gray-600"),
            class_name="min-w-0 md:w-40",
        ),
        rx.el.div(
            rx.el.p(row.customer, class_name="truncate text-sm font-medium text-gray-900"),
            rx.el.p(row.email, class_name="truncate text-xs text-gray-600"),
            call_link(row.phone_text, row.phone_href, "text-xs"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.el.span(row.delivery_text, class_name="text-xs text-gray-700"),
            _badge(row.payment_text, row.payment_badge),
            test_payment_badge(row.test_payment),
            _badge(row.status_text, row.status_badge),
            class_name="flex flex-wrap items-center gap-2 md:w-72",
        ),
        rx.el.span(row.total_text, class_name="font-semibold text-gray-900 md:w-24 md:text-right"),
        rx.el.button(
            "View", type="button", on_click=ORDERS.open_order(row.id), aria_label="View order #" + row.short_id,
            class_name=button_class("outline", "sm"),
        ),
        class_name="flex flex-col gap-2 border-b border-gray-200 py-3 last:border-b-0 md:flex-row md:items-center "
        "md:gap-4",
    )


def order_list() -> rx.Component:
    return list_panel(
        ORDERS,
        heading_bar("Orders", rx.el.div(
            rx.el.a(icon("printer", 16), "Delivery sheet", href=routes.DELIVERY_SHEET,
                    title="Today's home deliveries by region, to print for the riders",
                    class_name=button_class("outline", "sm")),
            button(icon("download", 16), "Export CSV", variant="outline", size="sm", on_click=ORDERS.export,
                   title="The order lines of the orders placed in the chosen dates"),
            button(icon("file-spreadsheet", 16), "Receipts & credit notes", variant="outline", size="sm",
                   on_click=ORDERS.export_documents,
                   title="Every receipt and credit note issued in the chosen dates, for the accounts"),
            class_name="flex flex-wrap gap-2 sm:justify-end",  # a phone: one row under the heading
        ), class_name="flex-wrap"),
        filters(),
        rx.el.ul(rx.foreach(ORDERS.rows, _row), aria_label="Orders", class_name="mt-4"),
        "orders", rx.cond(ORDERS.filtered, "No orders match these filters", "No orders yet"),
        label="Orders", pages_label="Orders pages", replace=True, footer=showing(ORDERS.showing_text),
    )


# --- one order ---------------------------------------------------------------------------------


def _action(action: StatusAction) -> rx.Component:
    return rx.el.button(
        rx.cond((ORDERS.confirming == action.status) & action.danger, "Confirm: cancel order", action.label),
        type="button",
        on_click=ORDERS.change_status(action.status, ORDERS.shown.status_text),
        disabled=ORDERS.working,
        class_name=rx.cond(action.danger, button_class("danger", "md"), button_class("primary", "md")),
    )


def _order_header() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.h2("Order #", P.short_id, class_name="font-mono text-xl font-bold text-gray-900"),
            rx.el.p(P.created_text, " · ", P.customer, " · ", P.email, class_name="text-sm text-gray-600"),
        ),
        rx.el.div(_badge(P.payment_status_text, P.payment_badge), _badge(P.status_text, P.status_badge),
                  rx.el.a(icon("printer", 16), "Delivery sheet", href=routes.DELIVERY_SHEET + "?order=" + ORDERS.order_id,
                          class_name=button_class("outline", "sm")),
                  class_name="flex flex-wrap items-center gap-2"),
        class_name="mt-3 flex flex-wrap items-start justify-between gap-3",
    )


def _attention() -> rx.Component:
    """The order's flag (e.g. a refund is due), with "Refund GH₵…" (a cancelled, paid order: the
    money goes back with a credit note) or "Mark refunded" (money beyond its total) when it is."""
    return rx.cond(
        P.attention_text != "",
        rx.el.div(
            rx.el.p(icon("triangle-alert", 16), P.attention_text, class_name="flex items-start gap-2"),
            rx.cond(P.refund_due, button(P.refund_label, variant="outline", on_click=ORDERS.mark_refunded,
                                         disabled=ORDERS.working),
                    button("Mark resolved", variant="outline", on_click=ORDERS.resolve_flag(P.attention),
                           disabled=ORDERS.working)),
            role="alert",
            class_name="mt-4 flex flex-wrap items-center justify-between gap-3 rounded-md bg-amber-50 px-4 "
            "py-3 text-sm text-amber-900",
        ),
    )


def _status_actions() -> rx.Component:
    return rx.el.div(
        rx.cond(
            ORDERS.actions.length() > 0,
            rx.el.div(rx.foreach(ORDERS.actions, _action), class_name="flex flex-wrap gap-2"),
            rx.el.p("No further status changes.", class_name="text-sm text-gray-600"),
        ),
        rx.cond(ORDERS.confirming != "",
                rx.el.button("Keep order", type="button", on_click=ORDERS.cancel_confirm,
                             class_name=button_class("ghost", "md"))),
        role="group",
        aria_label="Change status",
        class_name="mt-4 flex flex-wrap items-center gap-2",
    )


def _items() -> rx.Component:
    return rx.el.section(
        rx.el.h3("Items", class_name="font-semibold text-gray-900"),
        rx.el.ul(rx.foreach(ORDERS.lines, line_item), aria_label="Order items", class_name="divide-y divide-gray-100"),
        rx.el.dl(
            total_row("Subtotal", ORDERS.totals.subtotal_text),
            rx.cond(ORDERS.totals.has_discount, total_row("Coupon", "-" + ORDERS.totals.discount_text)),
            total_row(rx.cond(P.pickup, "Pickup", "Delivery"), ORDERS.totals.shipping_text),
            tax_rows(ORDERS.totals.tax_lines),
            total_row("Total", ORDERS.totals.total_text, "border-t border-gray-200 pt-2 font-bold"),
            rx.cond(P.refunded_text != "", rx.fragment(
                total_row("Refunded", "-" + P.refunded_text),
                total_row("Total after refunds", P.net_text, "font-semibold"),
            )),
            class_name="mt-3 space-y-1",
        ),
        returns_box(ORDERS.returns, ORDERS.returns_title, rx.el.h3, rx.el.p(
            rx.el.a("Returns tab", href=routes.admin_path("returns", list_view=True),
                    class_name="font-semibold text-orange-700 hover:underline"),
            ": approve, receive and refund them.", class_name="mt-2 text-xs text-gray-600"), withdraw=None),
    )


def _delivery_and_payment() -> rx.Component:
    return rx.el.div(
        rx.el.section(
            rx.el.h3(rx.cond(P.pickup, "Pickup", "Delivery"), class_name="font-semibold text-gray-900"),
            rx.el.p(P.delivery_title, class_name="text-sm font-medium"),
            rx.el.p(P.delivery_detail, class_name="text-sm text-gray-700"),
            rx.cond(P.phone_href != "",
                    rx.el.p("Contact phone: ", call_link(P.phone_text, P.phone_href), class_name="mt-1 text-sm"),
                    rx.el.p("No contact phone recorded.", class_name="mt-1 text-sm text-gray-600")),
        ),
        rx.el.section(
            rx.el.h3("Payment", class_name="font-semibold text-gray-900"),
            rx.el.p(kept_whole(P.payment_text), class_name="text-sm"),
            rx.cond(P.test_payment, rx.el.p(icon("flask-conical", 14), TEST_PAYMENT_NOTE,
                                            class_name="mt-1 inline-flex items-center gap-1 rounded bg-amber-100 px-2 "
                                                       "py-0.5 text-xs font-semibold text-amber-950")),
            rx.cond(P.payment_reference != "",
                    rx.el.p("Reference: ", P.payment_reference, class_name="break-all text-xs text-gray-600")),
        ),
        timeline(ORDERS.timeline, rx.el.h3("Timeline", class_name="font-semibold text-gray-900")),
        class_name="space-y-4",
    )


def order_page() -> rx.Component:
    return rx.el.div(
        rx.el.button(icon("arrow-left", 16), "Back to orders", type="button", on_click=ORDERS.back_to_list,
                     class_name=button_class("ghost", "sm")),
        _order_header(),
        _attention(),
        _status_actions(),
        rx.el.div(_items(), _delivery_and_payment(), class_name="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-2"),
        class_name=PANEL,
    )


def orders_tab() -> rx.Component:
    return rx.cond(ORDERS.order_id != "", order_page(), order_list())
