"""The header's search: a plain GET form until the app has loaded, then a combobox (WAI-ARIA 1.2,
"list autocomplete") that suggests products and categories as the shopper types (issue 24).

- Typing asks the server for suggestions after a 250 ms pause (one event); the list is a
  ``listbox`` of ``option``\\s under the input (``aria-expanded``, ``aria-controls``).
- ArrowDown / ArrowUp move through the options (``aria-activedescendant``, ``aria-selected``),
  Enter opens the one chosen (else searches for the words), Escape closes the list: all in the
  browser (:data:`SEARCH_BOX_JS`), so a key press costs no round trip.
- A tap or click on an option opens it; leaving the field closes the list.
"""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..state.shop.search import MAX_SEARCH, HeaderSearchState
from .ui import icon

LISTBOX_ID = "header-suggestions"
CLOSE_ID = "header-suggestions-close"

# Keys in the search field, in the browser. The options' "selected" mark is the script's (React
# never sets it); typing again clears it, and Escape presses the hidden close button, so the
# list's open state stays the server's.
SEARCH_BOX_JS = """
(function () {
  function parts() {
    var input = document.getElementById('header-search');
    var list = document.getElementById('%(list)s');
    var options = list ? Array.prototype.slice.call(list.querySelectorAll('[role="option"]')) : [];
    return { input: input, options: options, open: !!input && input.getAttribute('aria-expanded') === 'true' && options.length > 0 };
  }
  function choose(p, index) {
    p.options.forEach(function (o, i) { o.setAttribute('aria-selected', i === index ? 'true' : 'false'); });
    if (index >= 0) { p.input.setAttribute('aria-activedescendant', p.options[index].id); p.options[index].scrollIntoView({ block: 'nearest' }); }
    else { p.input.removeAttribute('aria-activedescendant'); }
  }
  function current(p) {
    for (var i = 0; i < p.options.length; i++) { if (p.options[i].getAttribute('aria-selected') === 'true') return i; }
    return -1;
  }
  document.addEventListener('input', function (e) {
    if (e.target && e.target.id === 'header-search') { choose(parts(), -1); }
  });
  document.addEventListener('keydown', function (e) {
    if (!e.target || e.target.id !== 'header-search') return;
    var p = parts();
    if (!p.open) return;
    var at = current(p), last = p.options.length - 1;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      choose(p, e.key === 'ArrowDown' ? (at >= last ? 0 : at + 1) : (at <= 0 ? last : at - 1));
    } else if (e.key === 'Enter' && at >= 0) {
      e.preventDefault();
      var link = p.options[at].querySelector('a');
      if (link) link.click();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      choose(p, -1);
      var close = document.getElementById('%(close)s');
      if (close) close.click();
    }
  });
})();
""" % {"list": LISTBOX_ID, "close": CLOSE_ID}


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
            on_click=HeaderSearchState.close,
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
        rx.el.label("Search all products", html_for="header-search", class_name="sr-only"),
        icon("search", 18, class_name="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-gray-500"),
        rx.el.input(
            id="header-search",
            name="search",
            type="search",
            role="combobox",
            placeholder="Search deals...",
            auto_complete="off",
            enter_key_hint="search",
            max_length=MAX_SEARCH,
            aria_autocomplete="list",
            aria_controls=LISTBOX_ID,
            aria_expanded=rx.cond(HeaderSearchState.open, "true", "false"),
            on_change=HeaderSearchState.type_text.debounce(250),
            on_blur=HeaderSearchState.close,
            class_name="block h-10 w-full rounded-full border border-gray-300 bg-gray-50 pl-10 pr-4 text-sm "
            "text-gray-900 placeholder:text-gray-600 focus:border-orange-700 focus:bg-white focus:outline-none "
            "focus:ring-2 focus:ring-orange-200",
        ),
        rx.el.ul(
            rx.foreach(HeaderSearchState.suggestions, _option),
            id=LISTBOX_ID,
            role="listbox",
            aria_label="Suggestions",
            hidden=~HeaderSearchState.open,
            class_name="absolute left-0 right-0 top-full z-40 mt-1 max-h-96 overflow-y-auto rounded-lg border "
            "border-gray-200 bg-white py-1 shadow-lg",
        ),
        rx.el.button(type="button", id=CLOSE_ID, tab_index=-1, aria_hidden="true", hidden=True,
                     on_click=HeaderSearchState.close),
        action=routes.PRODUCTS,
        method="get",
        role="search",
        on_submit=HeaderSearchState.submit,
        reset_on_submit=False,
        class_name="relative order-last w-full md:order-none md:ml-4 md:w-auto md:max-w-sm md:flex-1",
    )
