"""Blocks several screens share: an empty state, a list or the sentence saying it is empty, the rows of a totals list (and an order's whole
totals list), the test payment mark, an order line, an order's timeline."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.order_views import TEST_PAYMENT, TEST_PAYMENT_NOTE
from .ui import badge_class, icon, link_button, picture


def empty_state(tag: str, title: str, text: str, action: str, href: str = routes.PRODUCTS,
                heading: str = "h1") -> rx.Component:
    """Nothing to show yet: an icon, a heading, a sentence and a way on."""
    make_heading = rx.el.h1 if heading == "h1" else rx.el.h2
    size = "text-2xl" if heading == "h1" else "text-xl"
    return rx.el.div(
        icon(tag, 48, class_name="mx-auto text-gray-400"),
        make_heading(title, class_name=f"mt-4 {size} font-bold text-gray-900"),
        rx.el.p(text, class_name="mt-2 text-gray-600"),
        link_button(action, href=href, class_name="mt-6"),
        class_name="mx-auto max-w-md py-16 text-center",
    )


def list_or_note(items, item, note, *, note_class: str, **list_props) -> rx.Component:
    """``items`` as a list (``item`` renders each; ``list_props`` go on the ``ul``), or ``note``,
    a sentence, when there are none."""
    return rx.cond(
        items.length() > 0,
        rx.el.ul(rx.foreach(items, item), **list_props),
        rx.el.p(note, class_name=note_class),
    )


def kept_whole(text: rx.Var, separator: str = " · ") -> rx.Component:
    """"Mobile money · MTN MoMo · 024 123 4567" breaking only between its parts: a cheap phone's
    narrow screen broke the number ("024 123 / 4567"). The text stays the same to the letter."""
    return rx.foreach(text.split(separator), lambda part, index: rx.fragment(
        rx.cond(index > 0, separator, ""), rx.el.span(part, class_name="whitespace-nowrap")))


def total_row(label, value, class_name: str = "") -> rx.Component:
    """One line of a totals list (a ``dl``): "Subtotal ... $12.00"."""
    return rx.el.div(
        rx.el.dt(label, class_name="text-gray-700"),
        rx.el.dd(value, class_name="font-medium text-gray-900"),
        class_name=f"flex justify-between text-sm {class_name}",
    )


def tax_rows(lines) -> rx.Component:
    """The tax rows of a totals list, one a tax (a list of display.TaxLineView)."""
    return rx.foreach(lines, lambda line: total_row(line.label_text, line.amount_text))


def grand_total_row(value) -> rx.Component:
    """The last, large line of a totals list."""
    return rx.el.div(
        rx.el.dt("Total", class_name="text-base font-bold"),
        rx.el.dd(value, class_name="text-xl font-extrabold"),
        class_name="flex items-center justify-between border-t border-gray-200 pt-3",
    )


def order_totals_list(totals, *, discount_label: str, label: str) -> rx.Component:
    """An order's totals (a state/order_views.OrderTotals) as a ``dl``: the subtotal, the
    coupon's discount when there is one (``discount_label``), shipping, the taxes and the total."""
    return rx.el.dl(
        total_row("Subtotal", totals.subtotal_text),
        rx.cond(totals.has_discount, total_row(discount_label, "-" + totals.discount_text)),
        total_row("Shipping", totals.shipping_text),
        tax_rows(totals.tax_lines),
        grand_total_row(totals.total_text),
        aria_label=label,
        class_name="mt-4 space-y-2",
    )


def test_payment_badge(shown) -> rx.Component:
    """"Test payment" beside a payment, when ``shown``: it went through the fake provider and no
    money moved."""
    return rx.cond(shown, rx.el.span(TEST_PAYMENT, title=TEST_PAYMENT_NOTE, class_name=badge_class("warning")))


def line_item(line, *, large: bool = False) -> rx.Component:
    """An order (or review) line: picture, name, "Qty: 2 × $4.00" and the line's total."""
    size = 56 if large else 48
    return rx.el.li(
        picture(line.image_url, "", size, loading="lazy",
                class_name=f"{'h-14 w-14' if large else 'h-12 w-12'} shrink-0 rounded-md bg-gray-100 object-cover"),
        rx.el.div(
            # Whole names: a size or a pack count is often at the end ("... 25kg").
            rx.el.p(line.name, class_name="font-semibold text-gray-900" if large
                    else "break-words text-sm font-medium text-gray-900"),
            rx.el.p("Qty: ", line.quantity, " × ", line.unit_text,
                    class_name="text-sm text-gray-600" if large else "text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.span(line.line_text, class_name="font-semibold text-gray-900" if large
                   else "text-sm font-semibold text-gray-900"),
        class_name="flex items-center gap-4 border-b border-gray-200 py-3 last:border-b-0" if large
        else "flex items-center gap-3 py-2",
    )


def _timeline_entry(entry) -> rx.Component:
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
        class_name="relative pb-4 pl-5 last:pb-0",
    )


def timeline(entries, heading: rx.Component) -> rx.Component:
    """An order's timeline, oldest first, each entry dotted green (good), red (bad) or grey."""
    return rx.el.section(
        heading,
        rx.el.ol(rx.foreach(entries, _timeline_entry), aria_label="Order timeline",
                 class_name="mt-2 ml-1 border-l-2 border-gray-200"),
    )
