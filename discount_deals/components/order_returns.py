"""The order page's returns (issue 33): "Return items", its form, and the Returns box."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.account.order_returns import OrderReturnsState
from ..state.return_views import REASON_FIELD, REASON_LIMIT, ReturnCard, ReturnFormLine
from .ui import FIELD_INPUT, FIELD_LABEL, badge_class, button, button_class, icon, submit_button

S = OrderReturnsState
BADGES = ("success", "destructive", "warning", "brand")
QUANTITY_SELECT = FIELD_INPUT.replace("w-full", "w-20 shrink-0")  # the item's name keeps the rest of the line


def _error(text, error_id: str) -> rx.Component:
    return rx.cond(text != "", rx.el.p(text, id=error_id, role="alert", class_name="mt-1 text-sm text-red-700"))


def _line(line: ReturnFormLine) -> rx.Component:
    return rx.el.li(
        rx.el.label(
            rx.el.span(line.name, class_name="block break-words font-medium text-gray-900"),
            rx.el.span("Bought ", line.bought, " · up to ", line.returnable, " can go back",
                       class_name="block text-xs text-gray-600"),
            html_for=line.field,
            class_name="min-w-0 flex-1",
        ),
        rx.el.select(
            rx.foreach(line.choices, lambda n: rx.el.option(n, value=n)),
            id=line.field, name=line.field, default_value="0", aria_describedby="return-items-error",
            key=line.field + "-" + S.form_version.to_string(),
            class_name=QUANTITY_SELECT,
        ),
        class_name="flex items-center gap-3 border-b border-gray-200 py-2 last:border-b-0",
    )


def return_form() -> rx.Component:
    return rx.el.form(
        rx.el.h3("Return items", class_name="text-base font-bold text-gray-900"),
        rx.el.p("Choose how many of each item you are sending back.", class_name="mt-1 text-sm text-gray-600"),
        rx.el.ul(rx.foreach(S.lines, _line), aria_label="Items to return", class_name="mt-2"),
        _error(S.items_error, "return-items-error"),
        rx.el.div(
            rx.el.label("Why are you returning them?", html_for="return-reason", class_name=FIELD_LABEL),
            rx.el.textarea(id="return-reason", name=REASON_FIELD, required=True, max_length=REASON_LIMIT, rows=3,
                           placeholder="For example: the tin was dented", aria_describedby="return-reason-error",
                           key="return-reason-" + S.form_version.to_string(), class_name=FIELD_INPUT),
            _error(S.reason_error, "return-reason-error"),
            class_name="mt-3",
        ),
        _error(S.form_error, "return-form-error"),
        rx.el.div(
            submit_button(S.sending, "Send return request", "Sending..."),
            button("Cancel", variant="ghost", on_click=S.close_form, disabled=S.sending),
            class_name="mt-3 flex flex-wrap gap-2",
        ),
        on_submit=S.send_request,
        aria_label="Return items",
        class_name="mt-3 rounded-md border border-gray-200 p-4",
    )


def return_entry(card: ReturnCard, withdraw=None) -> rx.Component:
    """One return: its date and status, its items, what it refunds and its credit note (the
    customer's order page and the back office's alike); ``withdraw``, the customer's event that
    takes it back while nothing has moved."""
    return rx.el.li(
        rx.el.div(
            rx.el.span(card.date_text, class_name="text-xs text-gray-600"),
            rx.el.span(card.status_text, class_name=rx.match(
                card.badge, *[(name, badge_class(name)) for name in BADGES], badge_class("secondary"))),
            class_name="flex items-center justify-between gap-2",
        ),
        rx.el.ul(rx.foreach(card.item_lines, lambda text: rx.el.li(text, class_name="break-words")),
                 class_name="mt-1 text-gray-900"),
        rx.cond(card.refund_text != "", rx.el.p(card.refund_label, ": ", rx.el.strong(card.refund_text),
                                                class_name="mt-1")),
        rx.cond(card.note != "", rx.el.p("Not approved: ", card.note, class_name="mt-1 text-red-800")),
        rx.cond(card.credit_note != "", rx.el.a(
            icon("file-text", 16), "Credit note ", card.credit_note, href=routes.credit_note_path(card.id),
            class_name="mt-1 inline-flex items-center gap-1 font-semibold text-orange-700 hover:underline")),
        rx.cond(card.can_withdraw, button("Withdraw request", variant="outline", size="sm", class_name="mt-2",
                                          on_click=withdraw(card.id), disabled=S.sending,
                                          aria_label="Withdraw the return of " + card.date_text)
                ) if withdraw is not None else rx.fragment(),
        class_name="border-b border-gray-200 py-2 last:border-b-0",
    )


def returns_box(cards=S.returns, title=S.box_title, heading=rx.el.h2, *extra: rx.Component,
                withdraw=S.withdraw) -> rx.Component:
    """The order's returns, when it has any (a cancelled order's: its refund). The back office's
    order page passes its own (``cards``, ``title``, an ``h3``, and what it adds below; no
    ``withdraw``: the customer's step)."""
    return rx.cond(
        cards.length() > 0,
        rx.el.section(
            heading(icon("undo-2", 16), title, class_name="flex items-center gap-2 text-sm font-bold text-gray-900"),
            rx.el.ul(rx.foreach(cards, lambda card: return_entry(card, withdraw)), aria_label=title),
            *extra,
            aria_label=title,
            class_name="mt-6 rounded-md border border-gray-200 p-4 text-sm text-gray-700",
        ),
    )


def return_items() -> rx.Component:
    """"Returns open until ..." and "Return items" (its form once pressed), while returns are open."""
    return rx.cond(
        S.can_return,
        rx.el.div(
            rx.el.div(
                rx.el.p(S.open_until, class_name="text-sm text-gray-700"),
                rx.cond(~S.form_open, rx.el.button(icon("undo-2", 16), "Return items", type="button",
                                                   on_click=S.open_form, class_name=button_class("outline", "md"))),
                class_name="flex flex-wrap items-center justify-between gap-3",
            ),
            rx.cond(S.form_open, return_form()),
            class_name="mt-6",
        ),
    )
