"""A cart line that wants more than is left: "Only 2 left" or "Sold out", with its one-tap fix
("Change to 2" or "Remove"). The cart and the checkout's review show the same mark."""

from __future__ import annotations

import reflex as rx

from .ui import button_class, icon


def stock_fix(text: rx.Var, available: rx.Var, name: rx.Var, on_fix, disabled: rx.Var) -> rx.Component:
    """The mark and its fix, in one alert-coloured line (shown only for a short line)."""
    sold_out = available == 0
    return rx.el.div(
        rx.el.p(
            icon("triangle-alert", 16, class_name="shrink-0"),
            rx.el.span(text),
            class_name="flex items-center gap-1.5 font-semibold",
        ),
        rx.el.button(
            rx.cond(sold_out, "Remove", "Change to " + available.to_string()),
            type="button",
            on_click=on_fix,
            disabled=disabled,
            aria_label=rx.cond(sold_out, "Remove " + name + " (" + text.lower() + ")",  # sold out, or no longer available
                               "Change " + name + " to " + available.to_string() + " (what is left)"),
            class_name=button_class("outline", "sm", "bg-white"),
        ),
        role="status",
        class_name=rx.cond(
            sold_out,
            "mt-2 flex flex-wrap items-center justify-between gap-2 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800",
            "mt-2 flex flex-wrap items-center justify-between gap-2 rounded-md bg-amber-50 px-3 py-2 text-sm "
            "text-amber-900",
        ),
    )
