"""A flash sale on a card and the product page (issue 34): the countdown badge and the limit.

Texts come from ``display.ProductView`` (``ends_text``, ``limit_text``; services.flash_sales);
the browser keeps the countdown ticking from ``data-ends-at`` (assets/shop.js).
``web/first_html/markup.py`` renders the same markup for the first HTML.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from ..display import ProductView
from . import card_style as S


def countdown_badge(product: ProductView) -> rx.Component:
    """"Ends in 5h 12m", shown from a day before the sale ends."""
    return rx.cond(
        product.ends_text != "",
        rx.el.span(product.ends_text, class_name=S.COUNTDOWN, custom_attrs={"data-ends-at": product.ends_at}),
    )


def flash_sale_notes(product: ProductView) -> rx.Component:
    """The product page's row: the countdown and "Limit 2 per customer"."""
    return rx.cond(
        (product.ends_text != "") | (product.limit_text != ""),
        rx.el.div(
            countdown_badge(product),
            rx.cond(product.limit_text != "", rx.el.span(product.limit_text, class_name=S.LIMIT)),
            class_name=S.FLASH_ROW,
        ),
    )


def on_sale_end(reload: Any) -> rx.Component:
    """A hidden control that assets/shop.js presses when a countdown on the page reaches its end:
    ``reload`` shows the page's prices again (the sale's price stayed on screen after "Sale
    ended", and Add to Cart then added at the full price)."""
    return rx.el.button(type="button", hidden=True, tab_index=-1, aria_hidden="true",
                        custom_attrs={"data-sale-ended": ""}, on_click=reload)
