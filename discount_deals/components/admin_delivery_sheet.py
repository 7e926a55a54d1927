"""The printable delivery sheet: stops grouped by region, each with the customer's tap-to-call
phone, the address as a rider reads it (street, landmark, town and region, GhanaPost GPS), the
items and what to collect. On paper the controls disappear and no stop is split across pages."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.admin.delivery_sheet import DeliverySheetState, SheetGroupView, SheetStopView
from .admin_orders import call_link
from .ui import FIELD_INPUT, FIELD_LABEL, button, button_class, icon, spinner

S = DeliverySheetState


def _controls() -> rx.Component:
    return rx.el.div(
        rx.el.a(icon("arrow-left", 16), "Back to orders", href=routes.admin_path("orders", list_view=True),
                class_name=button_class("ghost", "sm")),
        rx.cond(
            S.order_id == "",
            rx.el.div(
                rx.el.label("Day", html_for="sheet-day", class_name=FIELD_LABEL + " mb-0"),
                rx.el.input(type="date", id="sheet-day", on_change=S.set_day.debounce(300),
                            class_name=FIELD_INPUT + " w-auto", default_value=S.day, key=S.day),
                class_name="flex items-center gap-2",
            ),
        ),
        button(icon("printer", 16), "Print", on_click=S.print_sheet),
        class_name="mb-4 flex flex-wrap items-center justify-between gap-3 print:hidden",
    )


def _address(stop: SheetStopView) -> rx.Component:
    return rx.el.div(
        rx.el.p(stop.street, class_name="font-medium"),
        rx.cond(stop.landmark != "", rx.el.p("Landmark: ", stop.landmark)),
        rx.cond(stop.place != "", rx.el.p(stop.place)),
        rx.cond(stop.gps != "", rx.el.p("GhanaPost GPS: ", rx.el.span(stop.gps, class_name="font-mono font-semibold"))),
        class_name="text-sm text-gray-800",
    )


def _stop(stop: SheetStopView) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.h3("Order #", stop.short_id, class_name="font-mono text-base font-bold"),
            rx.el.span(stop.placed_text, " · ", stop.status_text, class_name="text-xs text-gray-600"),
            class_name="flex flex-wrap items-baseline justify-between gap-2",
        ),
        rx.el.div(
            rx.el.div(
                rx.el.p(stop.customer, class_name="font-semibold"),
                rx.cond(stop.phone_href != "", call_link(stop.phone_text, stop.phone_href, "text-base"),
                        rx.el.p("No phone recorded", class_name="text-sm text-gray-600")),
                _address(stop),
                class_name="space-y-1",
            ),
            rx.el.div(
                rx.el.ul(rx.foreach(stop.lines, lambda line: rx.el.li(line)), aria_label="Items",
                         class_name="list-disc pl-5 text-sm"),
                rx.el.p(stop.payment_text, class_name=rx.cond(
                    stop.collect, "mt-2 font-bold text-gray-900",
                    rx.cond(stop.test_payment, "mt-2 inline-block rounded bg-amber-100 px-2 py-0.5 text-sm font-bold "
                            "text-amber-950 print:border print:border-gray-900", "mt-2 text-sm text-gray-700"))),
                rx.el.p("Received by: ________________________", class_name="mt-3 text-sm text-gray-700"),
            ),
            class_name="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-2",
        ),
        class_name="break-inside-avoid rounded-lg border border-gray-300 bg-white p-4 print:rounded-none "
        "print:border-x-0 print:border-t-0",
    )


def _group(group: SheetGroupView) -> rx.Component:
    return rx.el.section(
        rx.el.h2(group.region, rx.el.span(" · ", group.count_text, class_name="font-normal text-gray-600"),
                 class_name="text-lg font-bold text-gray-900"),
        rx.el.ol(rx.foreach(group.stops, _stop), class_name="mt-2 space-y-3"),
        aria_label=group.region,
        class_name="mt-6 first:mt-0",
    )


def delivery_sheet() -> rx.Component:
    return rx.el.main(
        _controls(),
        rx.el.h1(S.title, class_name="text-2xl font-bold text-gray-900"),
        rx.cond(S.summary != "", rx.el.p(S.summary, class_name="mt-1 text-sm text-gray-700")),
        rx.cond(
            S.loading,
            spinner("Loading the delivery sheet..."),
            rx.cond(
                S.failed,
                rx.el.p("Could not load the delivery sheet.", role="alert", class_name="mt-6 text-red-700"),
                rx.el.div(rx.foreach(S.groups, _group), class_name="mt-4"),
            ),
        ),
        id="main",
        class_name="mx-auto max-w-4xl px-3 py-6 text-gray-900 sm:px-6 print:max-w-none print:p-0",
    )
