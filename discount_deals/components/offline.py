"""The offline bar (issue 31): the page says the shop cannot be reached instead of going dead.

It shows while the browser knows it has no network (``html[data-offline]``, set by
assets/shop.js) or while the app's websocket cannot reconnect; what the page shows stays, what
was typed stays, and the app reconnects by itself (Reflex retries; a reconnection loads the
page's data again). It replaces Reflex's own connection toast, a developer's message ("Cannot
connect to server: ...") that covered the screen's bottom.
"""

from __future__ import annotations

import reflex as rx

from ..server.reflex_adapter import connection_lost
from .optimistic import ForgetLostTaps
from .ui import icon


def offline_bar() -> rx.Component:
    return rx.el.div(
        icon("wifi-off", 16, class_name="shrink-0"),
        rx.el.span(rx.el.strong("You're offline. "), "You can still read the pages you have seen; we reconnect by ourselves."),
        ForgetLostTaps.create(),  # renders nothing: see components/optimistic.py
        id="offline-bar",
        role="status",
        aria_live="polite",
        custom_attrs={"data-connection": rx.cond(connection_lost(), "lost", "ok")},
        # Fixed at the screen's bottom (assets/app.css), where the taps are; the page gets room for it.
        class_name="offline-bar items-center justify-center gap-2 bg-amber-100 px-3 py-2 "
        "text-center text-sm text-amber-950",
    )
