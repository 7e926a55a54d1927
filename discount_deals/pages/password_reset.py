"""Forgot password (/reset-password): ask for a link or a code, then set a new password."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.ui import FIELD_INPUT, FIELD_LABEL, button_class
from ..state.account.password_reset import ASK, CODE, DONE, LINK, PasswordResetState as R
from .auth import _auth_card, _input, _submit


def _alert() -> rx.Component:
    return rx.cond(R.error != "", rx.el.p(R.error, role="alert",
                                          class_name="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800"))


def _notice() -> rx.Component:
    return rx.cond(R.notice != "", rx.el.p(R.notice, role="status",
                                           class_name="rounded-md bg-green-50 px-3 py-2 text-sm text-green-900"))


def _choice(value: str, text: str) -> rx.Component:
    return rx.el.label(
        rx.el.input(type="radio", name="reset-by", value=value, on_change=R.choose(value),
                    class_name="h-4 w-4 accent-orange-700", default_checked=R.by == value),
        text,
        class_name="flex items-center gap-2 text-sm font-medium text-gray-900 pointer-coarse:min-h-11",
    )


def _ask() -> rx.Component:
    return rx.el.form(
        rx.el.fieldset(
            rx.el.legend("Send me", class_name=FIELD_LABEL),
            rx.el.div(_choice("email", "A link by email"), _choice("phone", "A code by SMS"),
                      class_name="flex flex-wrap gap-4"),
        ),
        rx.el.div(
            rx.el.label(rx.cond(R.by == "email", "Email", "Phone Number"), html_for="reset-identifier",
                        class_name=FIELD_LABEL),
            rx.el.input(id="reset-identifier", name="identifier", type=rx.cond(R.by == "email", "email", "tel"),
                        auto_complete=rx.cond(R.by == "email", "email", "tel"),
                        placeholder=rx.cond(R.by == "email", "you@example.com", "024 123 4567"),
                        class_name=FIELD_INPUT),
        ),
        _alert(),
        _submit(R, "Send", "Sending..."),
        _notice(),
        on_submit=R.ask,
        no_validate=True,
        class_name="mt-6 space-y-4",
    )


def _new_password(with_code: bool) -> rx.Component:
    return rx.el.form(
        _notice() if with_code else rx.fragment(),
        _input("6-digit code", "code", "reset-code", input_mode="numeric", auto_complete="one-time-code",
               max_length=6) if with_code else rx.fragment(),
        _input("New password", "password", "reset-password", type="password", auto_complete="new-password"),
        _input("New password again", "password_again", "reset-password-again", type="password",
               auto_complete="new-password"),
        _alert(),
        _submit(R, "Set new password", "Saving..."),
        on_submit=R.confirm,
        no_validate=True,
        class_name="mt-6 space-y-4",
    )


def _done() -> rx.Component:
    return rx.el.div(
        _notice(),
        rx.el.a("Go to login", href=routes.LOGIN, class_name=button_class("primary", "lg", "w-full justify-center")),
        class_name="mt-6 space-y-4",
    )


def reset_password() -> rx.Component:
    return layout(
        _auth_card(
            rx.match(R.step, (ASK, _ask()), (CODE, _new_password(True)), (LINK, _new_password(False)),
                     (DONE, _done()), _ask()),
            rx.el.p(
                rx.cond(R.step == CODE, rx.el.button("Send a new code", type="button", on_click=R.start_over,
                                                      class_name="font-semibold text-orange-700 underline"),
                        rx.el.a("Back to login", href=routes.LOGIN,
                                class_name="tap-line font-semibold text-orange-700 underline")),
                class_name="mt-6 text-center text-sm text-gray-700",
            ),
            heading="Reset your password",
            subtitle=rx.match(R.step, (LINK, "Choose a new password."), (CODE, "Enter the code we texted you."),
                              (DONE, "All set."), "We will send you a link by email or a code by SMS."),
        )
    )
