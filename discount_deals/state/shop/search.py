"""The header's search field: every page can search the catalogue, with suggestions as you type
(issue 24): products and categories for the words typed so far, typo-tolerant on the last word.

The suggestions come from the server (one event per pause in typing); moving through them with
the arrow keys, Enter and Escape happen in the browser (components/search_box.py), so a key
press costs no round trip.
"""

from __future__ import annotations

import dataclasses
from urllib.parse import urlencode

import reflex as rx

from ... import routes
from ...services.catalog.suggestions import MIN_TYPED
from ..actions import load_list
from .shared_views import SuggestionView, suggestions_for

MAX_SEARCH = 100  # as /products reads it


def search_url(text: str) -> str:
    """/products with ``search`` set (or the whole listing for blank text)."""
    text = " ".join((text or "").split())[:MAX_SEARCH]
    return f"{routes.PRODUCTS}?{urlencode({'search': text})}" if text else routes.PRODUCTS


@dataclasses.dataclass
class Suggestion:
    option_id: str = ""  # the listbox option's element id ("suggestion-2")
    kind: str = ""  # "product" or "category"
    label: str = ""
    detail: str = ""  # a product's price, or "Category"
    image_url: str = ""
    href: str = ""


def _shown(views: tuple[SuggestionView, ...]) -> list[Suggestion]:
    return [Suggestion(option_id=f"suggestion-{n}", **dataclasses.asdict(view)) for n, view in enumerate(views)]


class HeaderSearchState(rx.State):
    suggestions: list[Suggestion] = []
    open: bool = False

    @rx.event
    def type_text(self, value: str):
        """The words typed so far (after a pause): the suggestions for them."""
        typed = " ".join(str(value or "").split())[:MAX_SEARCH]

        def suggest() -> None:
            found = _shown(suggestions_for(typed)) if len(typed) >= MIN_TYPED else []
            self.suggestions = found
            self.open = bool(found)

        return load_list(self, suggest, "search suggestions", loading=None, failed=None)

    @rx.event
    def close(self):
        if self.open:
            self.open = False

    @rx.event
    def submit(self, form_data: dict):
        self.open = False
        return rx.redirect(search_url(str(form_data.get("search", ""))))
