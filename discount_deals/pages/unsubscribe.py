"""/unsubscribe: the one-click unsubscribe link of every email."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.ui import card
from ..state.account.unsubscribe import UnsubscribeState


def unsubscribe() -> rx.Component:
    return layout(
        rx.el.div(
            card(
                rx.el.h1("Email preferences", class_name="text-2xl font-bold text-gray-900"),
                rx.el.p(UnsubscribeState.message, role="status", class_name="mt-3 text-gray-800"),
                rx.el.a("Your profile", href=routes.PROFILE, class_name="mt-4 inline-block font-semibold "
                        "text-orange-700 underline"),
                class_name="p-6 sm:p-8",
            ),
            class_name="mx-auto w-full max-w-md py-8",
        )
    )
