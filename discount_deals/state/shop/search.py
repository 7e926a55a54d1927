"""The header's search field: every page can search the catalogue, with suggestions as you type
(issue 24): products and categories for the words typed so far, typo-tolerant on the last word.

The suggestions come from the server (one event per pause in typing), with the text they answer;
whether the list shows, moving through it with the arrow keys, Enter and Escape, and the search
itself happen in the browser (components/search_box.py), so a key press costs no round trip and
no answer touches the field.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

from ...services.catalog.suggestions import MIN_TYPED
from ..actions import load_list
from .shared_views import SuggestionView, suggestions_for

MAX_SEARCH = 100  # as /products reads it


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
    suggested_for: str = ""  # the words the suggestions answer (the browser shows them only for those)

    @rx.event
    def type_text(self, value: str):
        """The words typed so far (after a pause): the suggestions for them."""
        typed = " ".join(str(value or "").split())[:MAX_SEARCH]

        def suggest() -> None:
            self.suggestions = _shown(suggestions_for(typed)) if len(typed) >= MIN_TYPED else []
            self.suggested_for = typed

        return load_list(self, suggest, "search suggestions", loading=None, failed=None)
