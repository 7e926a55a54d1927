"""An order's receipt (/orders/{orderId}/receipt): printable (the controls disappear on paper),
with "Print" and "Download PDF". Guests are sent to /login."""

import reflex as rx

from .. import routes
from ..components.blocks import grand_total_row, tax_rows, total_row
from ..components.layout import layout
from ..components.ui import button, button_class, card, icon
from ..state.account.order_views import OrderLineView
from ..state.account.receipt import ReceiptState

R = ReceiptState
V = ReceiptState.receipt


def _controls() -> rx.Component:
    return rx.el.div(
        rx.el.a(icon("arrow-left", 16), "Back to order", href="/orders/" + R.order_id,
                class_name=button_class("ghost", "sm")),
        rx.el.div(
            button(icon("download", 16), "Download PDF", variant="outline", on_click=R.download_pdf),
            button(icon("printer", 16), "Print", on_click=R.print_receipt),
            class_name="flex gap-2",
        ),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3 print:hidden",
    )


def _line(line: OrderLineView) -> rx.Component:
    return rx.el.tr(
        rx.el.td(line.name, class_name="py-1 pr-2"),
        rx.el.td(line.quantity, class_name="py-1 pr-2 text-right"),
        rx.el.td(line.unit_text, class_name="py-1 pr-2 text-right"),
        rx.el.td(line.line_text, class_name="py-1 text-right"),
    )


def _parties() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.p(V.seller_name, class_name="text-lg font-bold"),
            rx.cond(V.seller_address != "", rx.el.p(V.seller_address)),
            rx.cond(V.seller_tin != "", rx.el.p("TIN: ", V.seller_tin)),
        ),
        rx.el.div(
            rx.el.h1("Receipt ", V.number, class_name="font-mono text-xl font-bold"),
            rx.el.p("Issued ", V.issued_text),
            rx.el.p("Order #", rx.el.span(V.short_id, class_name="font-mono")),
            class_name="sm:text-right",
        ),
        class_name="flex flex-wrap justify-between gap-4 text-sm",
    )


def _buyer() -> rx.Component:
    return rx.el.div(
        rx.el.p("Customer: ", V.buyer_name, class_name="font-semibold"),
        rx.cond(V.buyer_email != "", rx.el.p(V.buyer_email)),
        rx.cond(V.buyer_phone != "", rx.el.p(V.buyer_phone)),
        rx.cond(V.where_text != "", rx.el.p(V.where_label, ": ", V.where_text)),
        class_name="mt-4 text-sm",
    )


def receipt_body() -> rx.Component:
    return card(
        _parties(),
        _buyer(),
        rx.el.table(
            rx.el.thead(rx.el.tr(
                rx.el.th("Item", class_name="py-1 text-left"), rx.el.th("Qty", class_name="py-1 text-right"),
                rx.el.th("Unit price", class_name="py-1 text-right"), rx.el.th("Total", class_name="py-1 text-right"),
                class_name="border-b border-gray-300")),
            rx.el.tbody(rx.foreach(V.lines, _line)),
            class_name="mt-4 w-full text-sm",
        ),
        rx.el.dl(
            total_row("Subtotal", V.totals.subtotal_text),
            rx.cond(V.totals.has_discount, total_row("Coupon", "-" + V.totals.discount_text)),
            total_row("Shipping", V.totals.shipping_text),
            tax_rows(V.totals.tax_lines),
            grand_total_row(V.totals.total_text),
            aria_label="Receipt total",
            class_name="mt-4 space-y-2",
        ),
        rx.el.p("Paid: ", V.payment_text, class_name="mt-4 text-sm"),
        rx.cond(V.test_payment, rx.el.p("Test payment: no money moved.", class_name="mt-1 text-sm font-bold")),
        class_name="p-6 print:border-0 print:p-0 print:shadow-none",
    )


def _not_paid() -> rx.Component:
    return rx.el.div(
        rx.el.h1("No receipt yet", class_name="text-xl font-bold text-gray-900"),
        rx.el.p("This order gets its receipt when we receive your money.", class_name="mt-2 text-gray-600"),
        rx.el.a("Back to order", href="/orders/" + R.order_id, class_name=button_class("outline", "md") + " mt-6"),
        role="status",
        class_name="mx-auto max-w-md py-16 text-center",
    )


def _failed() -> rx.Component:
    return rx.el.div(
        rx.el.h1("Failed to load receipt.", class_name="text-xl font-bold text-gray-900"),
        rx.el.a("Back to My Orders", href=routes.ORDERS, class_name=button_class("outline", "md") + " mt-6"),
        role="alert",
        class_name="mx-auto max-w-md py-16 text-center",
    )


def order_receipt() -> rx.Component:
    return layout(
        rx.el.div(
            rx.cond(
                R.loading,
                rx.el.p("Loading receipt...", role="status", class_name="py-12 text-center text-gray-600"),
                rx.cond(R.not_paid, _not_paid(),
                        rx.cond(R.failed, _failed(), rx.fragment(_controls(), receipt_body()))),
            ),
            class_name="mx-auto max-w-3xl print:max-w-none",
        )
    )
