"""The header's search field: every page can search the catalogue."""

from __future__ import annotations

from urllib.parse import urlencode

import reflex as rx

from ... import routes

MAX_SEARCH = 100  # as /products reads it


def search_url(text: str) -> str:
    """/products with ``search`` set (or the whole listing for blank text)."""
    text = " ".join((text or "").split())[:MAX_SEARCH]
    return f"{routes.PRODUCTS}?{urlencode({'search': text})}" if text else routes.PRODUCTS


class HeaderSearchState(rx.State):
    @rx.event
    def submit(self, form_data: dict):
        return rx.redirect(search_url(str(form_data.get("search", ""))))
