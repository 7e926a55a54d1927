"""The not-found page for every unknown route (the 404 is logged on the server)."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.ui import link_button


def not_found_content() -> rx.Component:
    """The message, also shown by pages whose item does not exist (an unknown product)."""
    return rx.el.div(
        rx.el.p("404", class_name="text-7xl font-black text-orange-700"),
        rx.el.h1("Oops! Page not found", class_name="mt-4 text-2xl font-bold text-gray-900"),
        rx.el.p("The page you are looking for does not exist or has moved.", class_name="mt-2 text-gray-600"),
        link_button("Return to Home", href=routes.HOME, class_name="mt-6"),
        class_name="py-20 text-center",
    )


def not_found() -> rx.Component:
    return layout(not_found_content())
