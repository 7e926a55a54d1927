"""The product card used by the home pages, /products and /favorites."""

from __future__ import annotations

import reflex as rx

from ..state.shop.cart import CartState
from ..state.shop.favorites import FavoritesState
from ..display import ProductView
from .flash_sale import countdown_badge
from .optimistic import expect_cart, expect_favourite_toggle, is_favourite
from . import card_style as S
from .ui import icon, picture


def stars(product: ProductView) -> rx.Component:
    """Five stars as text (two spans, not five icons: ten cards render and hydrate faster)."""
    return rx.el.div(
        rx.el.span(
            rx.el.span(product.stars_on, class_name=S.STAR_ON),
            rx.el.span(product.stars_off, class_name=S.STAR_OFF),
            aria_hidden="true",
            class_name=S.STARS,
        ),
        rx.el.span(product.rating_text, class_name=S.RATING, aria_hidden="true"),
        rx.el.span("Rated ", product.rating_text, " out of 5", class_name=S.SR_ONLY),
        class_name=S.STARS_ROW,
    )


def favourite_button(product_id: rx.Var, name: rx.Var, class_name: str = S.FAVOURITE) -> rx.Component:
    """The heart: it fills (or empties) at the tap; the server's answer follows (optimistic.py)."""
    on = is_favourite(product_id)
    return rx.el.button(
        rx.icon("heart", size=18, aria_hidden="true", class_name=rx.cond(on, S.FAVOURITE_ICON_ON, S.FAVOURITE_ICON_OFF)),
        type="button",
        aria_label=rx.cond(on, "Remove " + name + " from favorites", "Add " + name + " to favorites"),
        aria_pressed=rx.cond(on, "true", "false"),
        on_click=FavoritesState.toggle(product_id, expect_favourite_toggle(product_id)),
        class_name=class_name,
    )


def price_block(product: ProductView, price_class: str = S.PRICE, show_saving: bool = True) -> rx.Component:
    """The price paid, the old price announced as such ("was $38.50"), and the saving."""
    return rx.el.p(
        rx.el.span(product.price_text, class_name=price_class),
        rx.cond(
            product.has_discount,
            rx.fragment(
                rx.el.span(" was", class_name=S.SR_ONLY),
                rx.el.s(product.original_text, class_name=S.OLD_PRICE),
                rx.el.span("Save ", product.save_text, class_name=S.SAVE) if show_saving else rx.fragment(),
            ),
        ),
        class_name=S.PRICE_ROW,
    )


def add_to_cart_label(product: ProductView) -> rx.Var:
    """The button's accessible name names the product (ten identical "Add to Cart" buttons do
    not) and starts with its visible text, so that voice control users can say what they see
    (WCAG 2.5.3 Label in Name; axe's label-content-name-mismatch)."""
    return rx.cond(product.stock <= 0, "Out of Stock: " + product.name, "Add to Cart: " + product.name)


def product_card(product: ProductView, index: rx.Var) -> rx.Component:
    out_of_stock = product.stock <= 0
    return rx.el.article(
        rx.el.div(
            # The name below is the card's link for keyboards and screen readers; the picture is a
            # second, mouse-only target to the same page.
            rx.el.a(
                picture(
                    product.image_url,
                    product.name,
                    320,
                    loading=rx.cond(index < 4, "eager", "lazy"),
                    custom_attrs={"fetchPriority": rx.cond(index == 0, "high", "auto")},
                    decoding="async",
                    class_name=S.IMAGE,
                ),
                href=product.href,
                tab_index=-1,
                aria_hidden="true",
                class_name=S.IMAGE_LINK,
            ),
            rx.cond(
                product.has_discount,
                rx.el.span("-", product.discount_percent, "%", class_name=S.DISCOUNT_BADGE),
            ),
            favourite_button(product.id, product.name),
            class_name=S.IMAGE_BOX,
        ),
        rx.el.div(
            rx.el.div(
                rx.el.span(product.brand, class_name=S.BRAND),
                rx.el.span(product.category, class_name=S.CATEGORY),
                class_name=S.META_ROW,
            ),
            rx.el.h3(rx.el.a(product.name, href=product.href, class_name=S.NAME_LINK), class_name=S.NAME),
            rx.el.p(product.description, class_name=S.DESCRIPTION),
            stars(product),
            price_block(product),
            countdown_badge(product),
            rx.el.span(product.stock_text, class_name=S.STOCK_BASE + " " + rx.cond(out_of_stock, S.STOCK_OUT, S.STOCK_IN)),
            rx.el.button(
                icon("shopping-cart", 16),
                rx.cond(out_of_stock, "Out of Stock", "Add to Cart"),
                type="button",
                aria_label=add_to_cart_label(product),
                disabled=out_of_stock | CartState.updating,
                on_click=CartState.add_to_cart(product.id, expect_cart(1)),
                class_name=S.ADD_BUTTON,
            ),
            class_name=S.BODY,
        ),
        class_name=S.CARD,
        style={"animationDelay": (index * 100).to_string() + "ms"},
    )


def skeleton_card_html() -> str:
    """A grey card of a product card's size (HTML, shared with the server's markup)."""
    bars = "".join(f'<div class="{size} {S.SKELETON_BAR}"></div>' for size in S.SKELETON_BARS)
    return (
        f'<div aria-hidden="true" class="{S.SKELETON_CARD}"><div class="{S.SKELETON_IMAGE}"></div>'
        f'<div class="{S.SKELETON_BODY}">{bars}</div></div>'
    )


def skeleton_grid_html(count: int = 8) -> str:
    return (
        f'<div role="status" class="{S.GRID}">{skeleton_card_html() * count}'
        '<span class="sr-only">Loading products...</span></div>'
    )


def skeleton_grid(count: int = 8) -> rx.Component:
    return rx.html(skeleton_grid_html(count))


def server_rendered(slot: str, placeholder_html: str, **props) -> rx.Component:
    """A place the server fills in the first HTML (``discount_deals.web.first_html``).

    Its markup is set with dangerouslySetInnerHTML, which React does not compare or patch while
    hydrating: the server's content (products, counts) stays on screen until the state arrives
    and the surrounding ``rx.cond`` swaps in the live components. Rendered by the app itself (a
    later navigation), it shows ``placeholder_html``.
    """
    return rx.html(placeholder_html, custom_attrs={"data-ssr-slot": slot}, **props)


def product_grid(products: rx.Var) -> rx.Component:
    """1 to 4 columns depending on the screen width."""
    return rx.el.div(rx.foreach(products, lambda product, index: product_card(product, index)), class_name=S.GRID)
