"""The profile's "Messages" card: how order updates, deal alerts and account notices reach you,
and whether a cart left behind reminds you."""

import reflex as rx

from ..state.account.notification_prefs import DEAL_OPTIONS, ORDER_OPTIONS, NotificationPrefsState as N
from .ui import FIELD_INPUT, FIELD_LABEL, submit_button


def _select(label: str, name: str, options: list[tuple[str, str]], value, hint: str) -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=f"prefs-{name}", class_name=FIELD_LABEL),
        rx.el.select(*[rx.el.option(text, value=key) for key, text in options], id=f"prefs-{name}", name=name,
                     default_value=value, aria_describedby=f"prefs-{name}-hint", class_name=FIELD_INPUT),
        rx.el.p(hint, id=f"prefs-{name}-hint", class_name="mt-1 text-xs text-gray-600"),
    )


def _checkbox(name: str, checked, text: str) -> rx.Component:
    return rx.el.label(
        rx.el.input(type="checkbox", name=name, default_checked=checked, class_name="h-4 w-4 accent-orange-700"),
        text,
        class_name="mt-4 flex items-center gap-2 text-sm text-gray-900 pointer-coarse:mt-2 pointer-coarse:min-h-11",
    )


HEADING = "text-lg font-semibold text-gray-900"
CARD = "mt-8 border-t border-gray-200 pt-6"


def notification_preferences() -> rx.Component:
    """The card, once this account's choices are in (``N.loaded``); until then its heading and a
    line saying they are on their way."""
    return rx.cond(
        N.loaded,
        _form(),
        rx.el.section(rx.el.h2("Messages", class_name=HEADING),
                      rx.el.p("Loading...", role="status", class_name="mt-1 text-sm text-gray-600"), class_name=CARD),
    )


def _form() -> rx.Component:
    return rx.el.form(
        rx.el.h2("Messages", class_name=HEADING),
        rx.el.p(
            rx.cond(N.sms_number != "", "Texts go to " + N.sms_number + ".",
                    "Add a Ghanaian mobile number above to get text messages."),
            class_name="mt-1 text-sm text-gray-600",
        ),
        rx.el.div(
            _select("Order updates", "order_updates", ORDER_OPTIONS, N.order_updates,
                    "Order placed, paid, ready, shipped, delivered or cancelled."),
            _select("Deal alerts", "deal_alerts", DEAL_OPTIONS, N.deal_alerts,
                    "When a favourite's price drops or it is back in stock."),
            class_name="mt-4 grid gap-4 sm:grid-cols-2",
        ),
        # An SMS choice's further alerts of the day; a deal email's unsubscribe link clears it.
        _checkbox("deal_emails", N.deal_emails, "After the day's deal text, the rest to my inbox"),
        _checkbox("account_email", N.account_email, "Security notices (password changed, login paused) to my inbox too"),
        # One message about a cart left for an hour, by the order updates' way (SMS first).
        _checkbox("cart_reminders", N.cart_reminders, "Remind me about my cart"),
        rx.cond(N.error != "", rx.el.p(N.error, role="alert", class_name="mt-3 text-sm text-red-700")),
        submit_button(N.saving, "Save Preferences", "Saving...", class_name="mt-4"),
        key=N.form_version,
        on_submit=N.save,
        aria_label="Message preferences",
        class_name=CARD,
    )
