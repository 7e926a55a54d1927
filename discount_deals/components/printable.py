"""A printable document of an order at a phone's width and on paper (the controls disappear
when printed): the receipt (/orders/{id}/receipt) and a return's credit note
(/returns/{id}/credit-note) are one layout, each given its view (state.account.receipt.ReceiptView)
and its state (``order_id``, ``loading``, ``failed``, ``print_document``, ``download_pdf``)."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.order_views import OrderLineView
from .blocks import order_totals_list
from .layout import layout
from .ui import button, button_class, card, icon


def controls(state) -> rx.Component:
    return rx.el.div(
        rx.el.a(icon("arrow-left", 16), "Back to order", href=routes.order_path(state.order_id),
                class_name=button_class("ghost", "sm")),
        rx.el.div(
            button(icon("download", 16), "Download PDF", variant="outline", on_click=state.download_pdf),
            button(icon("printer", 16), "Print", on_click=state.print_document),
            class_name="flex gap-2",
        ),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3 print:hidden",
    )


def _line(line: OrderLineView) -> rx.Component:
    return rx.el.tr(
        rx.el.td(line.name, class_name="break-words py-1 pr-2"),
        rx.el.td(line.quantity, class_name="py-1 pr-2 text-right"),
        rx.el.td(line.unit_text, class_name="py-1 pr-2 text-right"),
        rx.el.td(line.line_text, class_name="py-1 text-right"),
    )


def _parties(view) -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.p(view.seller_name, class_name="text-lg font-bold"),
            rx.cond(view.seller_address != "", rx.el.p(view.seller_address)),
            rx.cond(view.seller_tin != "", rx.el.p("TIN: ", view.seller_tin)),
        ),
        rx.el.div(
            rx.el.h1(view.title, " ", view.number, class_name="font-mono text-xl font-bold"),
            rx.el.p("Issued ", view.issued_text),
            rx.el.p("Order #", rx.el.span(view.short_id, class_name="font-mono")),
            rx.cond(view.reference_text != "", rx.el.p(view.reference_text)),
            class_name="sm:text-right",
        ),
        class_name="flex flex-wrap justify-between gap-4 text-sm",
    )


def _buyer(view) -> rx.Component:
    return rx.el.div(
        rx.el.p("Customer: ", view.buyer_name, class_name="font-semibold"),
        rx.cond(view.buyer_email != "", rx.el.p(view.buyer_email, class_name="break-words")),
        rx.cond(view.buyer_phone != "", rx.el.p(view.buyer_phone)),
        rx.cond(view.where_text != "", rx.el.p(view.where_label, ": ", view.where_text)),
        class_name="mt-4 text-sm",
    )


def document_body(view, totals_label: str) -> rx.Component:
    return card(
        _parties(view),
        _buyer(view),
        rx.el.table(
            rx.el.thead(rx.el.tr(
                rx.el.th("Item", class_name="py-1 pr-2 text-left"), rx.el.th("Qty", class_name="py-1 pr-2 text-right"),
                rx.el.th("Unit price", class_name="py-1 pr-2 text-right"),
                rx.el.th("Total", class_name="py-1 text-right"),
                class_name="border-b border-gray-300")),
            rx.el.tbody(rx.foreach(view.lines, _line)),
            class_name="mt-4 w-full text-sm",
        ),
        order_totals_list(view.totals, discount_label="Coupon", label=totals_label),
        rx.el.p(view.payment_label, ": ", view.payment_text, class_name="mt-4 text-sm"),
        rx.cond(view.test_payment, rx.el.p("Test payment: no money moved.", class_name="mt-1 text-sm font-bold")),
        class_name="p-6 print:border-0 print:p-0 print:shadow-none",
    )


def failed_to_load(what: str) -> rx.Component:
    return rx.el.div(
        rx.el.h1(f"Failed to load {what}.", class_name="text-xl font-bold text-gray-900"),
        rx.el.a("Back to My Orders", href=routes.ORDERS, class_name=button_class("outline", "md") + " mt-6"),
        role="alert",
        class_name="mx-auto max-w-md py-16 text-center",
    )


def not_yet(title: str, text: str, state) -> rx.Component:
    """The document does not exist yet (an unpaid order's receipt, an unrefunded return's credit note)."""
    return rx.el.div(
        rx.el.h1(title, class_name="text-xl font-bold text-gray-900"),
        rx.el.p(text, class_name="mt-2 text-gray-600"),
        rx.el.a("Back to order", href=routes.order_path(state.order_id), class_name=button_class("outline", "md") + " mt-6"),
        role="status",
        class_name="mx-auto max-w-md py-16 text-center",
    )


def printable_page(state, view, *, what: str, totals_label: str, missing, instead: rx.Component,
                   gone=False, gone_face: rx.Component | None = None) -> rx.Component:
    """The page: "Loading <what>...", then ``gone_face`` while ``gone`` (not the shopper's to
    see), ``instead`` while ``missing``, the failure, or the document."""
    document = rx.cond(missing, instead, rx.cond(state.failed, failed_to_load(what),
                                                 rx.fragment(controls(state), document_body(view, totals_label))))
    return layout(
        rx.el.div(
            rx.cond(
                state.loading,
                rx.el.p(f"Loading {what}...", role="status", class_name="py-12 text-center text-gray-600"),
                rx.cond(gone, gone_face, document) if gone_face is not None else document,
            ),
            class_name="mx-auto max-w-3xl print:max-w-none",
        )
    )
