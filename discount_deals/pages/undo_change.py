"""/undo-change: undo a change of email or phone from the link sent to the old ones (issue 32)."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.ui import card, submit_button
from ..state.account.undo_change import UndoChangeState


def undo_change() -> rx.Component:
    return layout(
        rx.el.div(
            card(
                rx.el.h1("Undo a change to your account", class_name="text-2xl font-bold text-gray-900"),
                rx.el.p("Your email address or phone number was changed. If it was not you, undo it: the old "
                        "details come back and every device is signed out.", class_name="mt-3 text-gray-800"),
                rx.cond(
                    UndoChangeState.done,
                    rx.el.a("Log in", href=routes.LOGIN, class_name="mt-4 inline-block font-semibold "
                            "text-orange-700 underline"),
                    rx.el.form(
                        submit_button(UndoChangeState.busy, "Undo the change", "Undoing...", class_name="mt-4"),
                        on_submit=UndoChangeState.undo,
                    ),
                ),
                rx.el.p(UndoChangeState.message, role="status", class_name="mt-3 text-gray-800"),
                class_name="p-6 sm:p-8",
            ),
            class_name="mx-auto w-full max-w-md py-8",
        )
    )
