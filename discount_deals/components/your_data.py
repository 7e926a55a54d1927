"""The profile's "Your data" tab (issue 32): download it all, or close the account."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.account.privacy import PrivacyState
from .ui import FIELD_INPUT, FIELD_LABEL, button, icon

P = PrivacyState
TEXT = "mt-2 text-sm text-gray-700"


def your_data() -> rx.Component:
    return rx.el.div(
        rx.el.h2("Download your data", class_name="text-base font-semibold text-gray-900"),
        rx.el.p("One file (JSON) with everything we keep about you: your account, addresses, orders, cart, "
                "favourites and the messages we sent you.", class_name=TEXT),
        button(icon("download", 16), rx.cond(P.working == "download", "Preparing...", "Download my data"),
               variant="outline", on_click=P.download, disabled=P.working != "", class_name="mt-3"),
        rx.el.p("How we use it: ", rx.el.a("Privacy Policy", href=routes.PRIVACY,
                                           class_name="font-medium text-orange-800 underline"), ".", class_name=TEXT),
        rx.el.h2("Close your account", class_name="mt-8 border-t border-gray-200 pt-6 text-base font-semibold "
                                                 "text-gray-900"),
        rx.el.p("Your name, email, phone, addresses, cart and favourites are erased and you are signed out everywhere. "
                "Your past orders stay, without your name, for our books. Orders on their way must be delivered or "
                "cancelled first.", class_name=TEXT),
        rx.el.form(
            rx.el.label("Your password", html_for="close-password", class_name=FIELD_LABEL),
            rx.el.input(id="close-password", name="password", type="password", auto_complete="current-password",
                        required=True, max_length=256, aria_describedby="close-password-note",
                        aria_invalid=rx.cond(P.password_error != "", "true", "false"),
                        class_name=FIELD_INPUT + " sm:max-w-xs"),
            rx.cond(P.password_error != "",
                    rx.el.p(P.password_error, id="close-password-note", role="alert",
                            class_name="mt-1 text-sm text-red-700")),
            button(rx.cond(P.working == "close", "Closing...", "Close my account"), type="submit", variant="danger",
                   disabled=P.working != "", class_name="mt-3"),
            on_submit=P.close_account,
            reset_on_submit=False,
            aria_label="Close my account",
            class_name="mt-3",
        ),
    )
