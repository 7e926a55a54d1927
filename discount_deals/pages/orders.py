"""My Orders (/orders) and Order details (/orders/{orderId}). Guests are sent to /login."""

import reflex as rx

from .. import routes
from ..components.whatsapp import whatsapp_chat, whatsapp_share
from ..components.layout import layout
from ..components.order_returns import return_items, returns_box
from ..components.payment_step import payment_step
from ..components.blocks import empty_state, kept_whole, line_item, order_totals_list, test_payment_badge, timeline
from ..components.ui import badge_class, button, card, icon
from ..state.account.order_detail import OrderDetailState
from ..state.order_views import OrderCard
from ..state.account.orders import OrdersState

D = OrderDetailState

FILTER_BUTTONS = (("all", "All"), ("pending", "Pending"), ("completed", "Completed"))
PAYMENT_VARIANTS = ("success", "destructive", "secondary")


def status_badge(text, completed, cancelled) -> rx.Component:
    return rx.el.span(
        text,
        class_name=rx.cond(
            completed, badge_class("success"), rx.cond(cancelled, badge_class("destructive"), badge_class("warning"))
        ),
    )


def payment_badges(text, variant, test) -> rx.Component:
    """The payment state ("Paid", "Awaiting payment", ...: order_views.payment_badge's colour) and,
    for a payment through the fake provider, the test mark."""
    return rx.fragment(
        rx.el.span(text, class_name=rx.match(variant, *[(v, badge_class(v)) for v in PAYMENT_VARIANTS],
                                             badge_class("warning"))),
        test_payment_badge(test),
    )


def _filter_button(value: str, label: str) -> rx.Component:
    selected = OrdersState.filter == value
    return rx.el.button(
        label,
        type="button",
        aria_pressed=rx.cond(selected, "true", "false"),
        on_click=OrdersState.set_filter(value),
        class_name=rx.cond(
            selected,
            "h-9 rounded-md bg-orange-700 px-4 text-sm font-semibold text-white",
            "h-9 rounded-md border border-gray-300 bg-white px-4 text-sm font-medium text-gray-800 hover:bg-gray-100",
        ),
    )


def order_card(order: OrderCard) -> rx.Component:
    return rx.el.li(
        card(
            rx.el.div(
                rx.el.div(
                    # One line: at 390 px beside the badges "Order" and "#87a2c449" fell on two.
                    rx.el.h2("Order #", order.short_id,
                             class_name="whitespace-nowrap font-mono text-base font-bold text-gray-900"),
                    rx.el.p(order.date_text, class_name="text-sm text-gray-600"),
                    class_name="shrink-0",
                ),
                rx.el.div(
                    status_badge(order.status_text, order.completed, order.cancelled),
                    payment_badges(order.payment_text, order.payment_badge, order.test_payment),
                    class_name="flex flex-wrap items-center justify-end gap-2",
                ),
                class_name="flex items-start justify-between gap-4",
            ),
            rx.el.div(
                rx.el.span(order.items_text, class_name="text-sm text-gray-700"),
                rx.el.span(order.total_text, class_name="text-lg font-bold text-gray-900"),
                class_name="mt-3 flex items-center justify-between",
            ),
            rx.el.a(
                "View Details",
                icon("arrow-right", 16),
                href=routes.order_path(order.id),
                class_name="mt-3 inline-flex items-center gap-1 text-sm font-semibold text-orange-700 hover:underline "
                           "pointer-coarse:min-h-11",
            ),
            class_name="p-5",
        ),
    )


def orders() -> rx.Component:
    return layout(
        rx.el.div(
            rx.el.h1("My Orders", class_name="text-3xl font-bold text-gray-900"),
            rx.el.div(
                *[_filter_button(value, label) for value, label in FILTER_BUTTONS],
                role="group",
                aria_label="Filter orders",
                class_name="mt-4 flex gap-2",
            ),
            rx.cond(
                OrdersState.loading,
                rx.el.p("Loading orders...", role="status", class_name="py-12 text-center text-gray-600"),
                rx.cond(
                    OrdersState.visible.length() > 0,
                    rx.el.ul(
                        rx.foreach(OrdersState.visible, order_card),
                        aria_label="Orders",
                        class_name="mt-6 grid gap-4 md:grid-cols-2",
                    ),
                    empty_state("package", "No orders yet", "When you place an order, it will show up here.", "Start Shopping", heading="h2"),
                ),
            ),
            class_name="mx-auto max-w-4xl",
        )
    )


def order_details() -> rx.Component:
    return card(
        rx.el.div(
            rx.el.div(
                rx.el.h1("Order #", OrderDetailState.short_id, class_name="font-mono text-2xl font-bold text-gray-900"),
                rx.el.p(OrderDetailState.date_text, class_name="text-sm text-gray-600"),
            ),
            rx.el.div(
                rx.el.span("Status: ", class_name="text-sm text-gray-700"),
                status_badge(OrderDetailState.status_text, OrderDetailState.completed, OrderDetailState.cancelled),
                rx.el.span("Payment: ", class_name="ml-2 text-sm text-gray-700"),
                payment_badges(D.payment_status_text, D.payment_badge, D.payment_test),
                class_name="flex flex-wrap items-center gap-2",
            ),
            class_name="flex flex-wrap items-start justify-between gap-4",
        ),
        payment_step(),
        rx.el.h2("Items", class_name="mt-6 text-lg font-bold text-gray-900"),
        rx.el.ul(rx.foreach(OrderDetailState.lines, lambda line: line_item(line, large=True)), aria_label="Order items"),
        order_totals_list(OrderDetailState.totals, discount_label="Discount", label="Order total"),
        rx.el.div(delivery_box(), payment_box(), class_name="mt-6 grid gap-4 sm:grid-cols-2"),
        rx.cond(D.refund_text != "", rx.el.p(D.refund_text, role="status",
                class_name="mt-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900")),
        actions(),
        return_items(),
        returns_box(),
        order_timeline(),
        class_name="p-6",
    )


def _box(title: str, tag: str, *children) -> rx.Component:
    return rx.el.section(
        rx.el.h2(icon(tag, 16), title, class_name="flex items-center gap-2 text-sm font-bold text-gray-900"),
        *children,
        class_name="rounded-md border border-gray-200 p-4 text-sm text-gray-700",
    )


def delivery_box() -> rx.Component:
    return rx.cond(
        D.pickup,
        _box(
            "Pickup", "store",
            rx.el.p(D.store_name, class_name="mt-2 font-semibold text-gray-900"),
            rx.el.p(D.store_text),
            rx.cond(D.store_hours != "", rx.el.p(D.store_hours, class_name="text-gray-600")),
        ),
        _box(
            "Home delivery", "truck",
            rx.el.p(rx.cond(D.address_text != "", D.address_text, "No address recorded"), class_name="mt-2"),
        ),
    )


def payment_box() -> rx.Component:
    return _box(
        "Payment", "wallet",
        rx.el.p(kept_whole(D.payment_text), class_name="mt-2"),
        rx.cond(D.payment_reference != "", rx.el.p("Reference: ", D.payment_reference, class_name="mt-1 break-all text-xs text-gray-600")),
        rx.cond(D.payment_due_text != "", rx.el.p("Pay by ", D.payment_due_text, ", or the order is cancelled.",
                                                   class_name="mt-1 text-xs text-gray-600")),
        rx.cond(D.receipt_number != "", rx.el.a(
            icon("receipt", 16), "View receipt ", D.receipt_number, href=routes.receipt_path(D.order_id),
            class_name="mt-2 inline-flex items-center gap-1 text-sm font-semibold text-orange-700 hover:underline")),
    )


def actions() -> rx.Component:
    return rx.el.div(
        rx.cond(
            D.can_cancel,
            rx.cond(
                D.confirming_cancel,
                rx.el.div(
                    rx.el.p("Cancel this order? Its items go back on sale.", class_name="text-sm text-gray-800"),
                    button(rx.cond(D.working == "cancel", "Cancelling...", "Yes, cancel order"), variant="danger",
                           on_click=D.cancel, disabled=D.working != ""),
                    button("Keep order", variant="outline", on_click=D.keep_order, disabled=D.working != ""),
                    role="group",
                    aria_label="Confirm cancellation",
                    class_name="flex flex-wrap items-center gap-2",
                ),
                button("Cancel order", variant="outline", on_click=D.ask_cancel, disabled=D.working != "",
                       class_name="text-red-700"),
            ),
        ),
        rx.cond(~D.cancelled, whatsapp_share(D.share_url)),
        whatsapp_chat(D.chat_url),
        class_name="mt-6 flex flex-wrap items-center gap-3 [&>div]:mt-0",
    )


def order_timeline() -> rx.Component:
    return rx.el.div(timeline(D.timeline, rx.el.h2("Timeline", class_name="text-lg font-bold text-gray-900")),
                     class_name="mt-6")


def order_error() -> rx.Component:
    return rx.el.div(
        icon("circle-alert", 48, class_name="mx-auto text-red-700"),
        rx.el.h1("Failed to load order.", class_name="mt-4 text-xl font-bold text-gray-900"),
        rx.el.p(
            "The order might still be processing or the order ID might be invalid.",
            class_name="mt-2 text-gray-600",
        ),
        button("Try Again", on_click=rx.call_script("window.location.reload()"), class_name="mt-6"),
        role="alert",
        class_name="mx-auto max-w-md py-16 text-center",
    )


def order_detail() -> rx.Component:
    return layout(
        rx.el.div(
            rx.el.a(
                icon("arrow-left", 16),
                "Back to Orders",
                href=routes.ORDERS,
                class_name="mb-4 inline-flex items-center gap-1 text-sm font-semibold text-orange-700 hover:underline "
                           "pointer-coarse:min-h-11",
            ),
            rx.cond(
                OrderDetailState.loading,
                rx.el.p("Loading order...", role="status", class_name="py-12 text-center text-gray-600"),
                rx.cond(OrderDetailState.failed, order_error(), order_details()),
            ),
            class_name="mx-auto max-w-3xl",
        )
    )
