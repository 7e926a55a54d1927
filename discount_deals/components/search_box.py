"""The header's search: a plain GET form until the app has loaded, then a combobox (WAI-ARIA 1.2,
"list autocomplete") that suggests products and categories as the shopper types (issues 24, 31).

- Typing asks the server for suggestions after a 250 ms pause (one event); the list is a
  ``listbox`` of ``option``\\s under the input (``aria-expanded``, ``aria-controls``).
- The field is the browser's: no answer rewrites it. The list opens only for suggestions of the
  text as it is now (the list carries the text it answers, ``data-for``), and closes on Enter,
  Escape, leaving the field and every navigation; ArrowDown / ArrowUp move through it. All of
  that runs in the browser (``assets/shop.js``), so a key press costs no round trip.
- Enter searches in one navigation, made in the browser: /products with the words in the
  address, whose page load shows the results (one round trip).
"""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.shop.search import MAX_SEARCH, HeaderSearchState
from .ui import icon, search_field

LISTBOX_ID = "header-suggestions"
# The words' listing, worked out in the browser as search_url does on the server.
SEARCH_URL = rx.Var("window.dd.searchUrl(document.getElementById('header-search').value)", _var_type=str)


def _option(suggestion) -> rx.Component:
    return rx.el.li(
        rx.el.a(
            rx.cond(
                suggestion.image_url != "",
                rx.el.img(src=suggestion.image_url, alt="", width=32, height=32, loading="lazy",
                          class_name="h-8 w-8 flex-none rounded object-cover"),
                icon("tag", 18, class_name="flex-none text-gray-500"),
            ),
            rx.el.span(suggestion.label, class_name="min-w-0 flex-1 truncate"),
            rx.el.span(suggestion.detail, class_name="flex-none text-xs text-gray-600"),
            href=suggestion.href,
            tab_index=-1,
            # Keep the focus in the field: leaving it closes the list before the click lands.
            on_mouse_down=rx.prevent_default,
            class_name="flex items-center gap-3 px-3 py-2 text-sm text-gray-900 hover:bg-orange-50",
        ),
        id=suggestion.option_id,
        role="option",
        class_name="aria-selected:bg-orange-100",
    )


def search_box() -> rx.Component:
    return rx.el.form(
        *search_field(
            "Search all products",
            "header-search",
            role="combobox",
            placeholder="Search deals...",
            auto_complete="off",
            enter_key_hint="search",
            max_length=MAX_SEARCH,
            aria_autocomplete="list",
            aria_controls=LISTBOX_ID,
            aria_expanded="false",  # the browser's to change (assets/shop.js)
            on_change=HeaderSearchState.type_text.debounce(250),
            class_name="block h-10 w-full rounded-full border border-gray-300 bg-gray-50 pl-10 pr-4 text-sm "
            "text-gray-900 placeholder:text-gray-600 focus:border-orange-700 focus:bg-white focus:outline-none "
            "focus:ring-2 focus:ring-orange-200",
        ),
        rx.el.ul(
            rx.foreach(HeaderSearchState.suggestions, _option),
            id=LISTBOX_ID,
            role="listbox",
            aria_label="Suggestions",
            custom_attrs={"data-for": HeaderSearchState.suggested_for},
            class_name="absolute left-0 right-0 top-full z-40 mt-1 max-h-96 overflow-y-auto rounded-lg border "
            "border-gray-200 bg-white py-1 shadow-lg [&:not([data-open])]:hidden",
        ),
        action=routes.PRODUCTS,
        method="get",
        role="search",
        on_submit=lambda _form: rx.redirect(SEARCH_URL),
        reset_on_submit=False,
        class_name="relative order-last w-full md:order-none md:ml-4 md:w-auto md:max-w-sm md:flex-1",
    )
