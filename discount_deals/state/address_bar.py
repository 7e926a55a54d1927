"""The browser's address bar, changed by an event handler without a navigation: no page load and
no on-load events. Reflex's next events read the query string from the bar."""

from __future__ import annotations

import json

import reflex as rx


def push_url(url: str):
    """Put ``url`` in the bar as a new history entry (Back returns through the router's on-load)."""
    return rx.call_script(f"window.history.pushState(null, '', {json.dumps(url)})")


def replace_url(url: str):
    """Put ``url`` in the bar in place of the current entry (no new history entry)."""
    return rx.call_script(f"window.history.replaceState(window.history.state, '', {json.dumps(url)})")
