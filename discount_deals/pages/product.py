"""A product's page (/products/{id}): picture, prices, stock, quantity and add to cart, favourite,
share (WhatsApp, copy link), description, tags, reviews (components/reviews.py) and related products.

The first HTML of this page is the server's (``discount_deals.web.first_html.render``): it fills the
``product`` slot with the same markup, built from the same classes (``card_style``).
"""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..components import card_style as S
from ..components.flash_sale import flash_sale_notes, on_sale_end
from ..components.whatsapp import whatsapp_chat
from ..components.layout import layout
from ..components.reviews import reviews_section
from ..components.optimistic import expect_cart
from ..components.product_card import (
    add_to_cart_label,
    favourite_button,
    price_block,
    product_grid,
    server_rendered,
    stars,
)
from ..components.ui import button_class, icon, picture
from ..page_slots import SLOT_PRODUCT
from ..state.shop.cart import CartState
from ..state.shop.product import ProductPageState
from .not_found import not_found_content

P = ProductPageState


def detail_skeleton_html() -> str:
    """Grey blocks in the shape of the product page (shown while a product loads)."""
    bar = S.SKELETON_BAR
    return (
        f'<div aria-hidden="true" class="{S.DETAIL} animate-pulse"><div class="{S.DETAIL_IMAGE_BOX}"></div>'
        f'<div class="{S.DETAIL_INFO}"><div class="h-4 w-1/3 {bar}"></div><div class="h-8 w-4/5 {bar}"></div>'
        f'<div class="h-5 w-1/4 {bar}"></div><div class="h-9 w-1/2 {bar}"></div><div class="h-11 w-full {bar}"></div>'
        f'<div class="h-24 w-full {bar}"></div></div></div>'
        '<span class="sr-only" role="status">Loading product...</span>'
    )


def _breadcrumb() -> rx.Component:
    return rx.el.nav(
        rx.el.a("Home", href=routes.HOME, class_name=S.BREADCRUMB_LINK),
        rx.el.span("/", aria_hidden="true"),
        rx.el.a("Products", href=routes.PRODUCTS, class_name=S.BREADCRUMB_LINK),
        rx.cond(
            P.product.category != "",
            rx.fragment(
                rx.el.span("/", aria_hidden="true"),
                rx.el.a(P.product.category, href=P.product.category_href, class_name=S.BREADCRUMB_LINK),
            ),
        ),
        aria_label="Breadcrumb",
        class_name=S.BREADCRUMB,
    )


def _quantity() -> rx.Component:
    return rx.el.div(
        rx.el.button(
            icon("minus", 16),
            type="button",
            aria_label="Decrease quantity",
            disabled=P.quantity <= 1,
            on_click=P.change_quantity(-1),
            class_name=S.STEPPER_BUTTON,
        ),
        rx.el.output(P.quantity, aria_live="polite", aria_label="Quantity", class_name=S.STEPPER_VALUE),
        rx.el.button(
            icon("plus", 16),
            type="button",
            aria_label="Increase quantity",
            disabled=P.quantity >= P.max_quantity,
            on_click=P.change_quantity(1),
            class_name=S.STEPPER_BUTTON,
        ),
        role="group",
        aria_label="Quantity",
        class_name=S.STEPPER,
    )


def _buy() -> rx.Component:
    out_of_stock = P.product.stock <= 0
    return rx.el.div(
        rx.cond(out_of_stock, rx.fragment(), _quantity()),
        rx.el.button(
            icon("shopping-cart", 18),
            rx.cond(out_of_stock, "Out of Stock", "Add to Cart"),
            type="button",
            aria_label=add_to_cart_label(P.product),
            disabled=out_of_stock | CartState.updating,
            on_click=P.add_to_cart(expect_cart(P.quantity)),
            class_name=S.BUY_BUTTON,
        ),
        favourite_button(P.product.id, P.product.name, class_name=S.DETAIL_FAVOURITE),
        class_name=S.BUY_ROW,
    )


def _share() -> rx.Component:
    return rx.el.div(
        rx.el.span("Share this deal:", class_name="text-sm font-medium text-gray-700"),
        rx.el.a(
            icon("message-circle", 16, class_name="text-green-700"),
            "WhatsApp",
            href=P.whatsapp_url,
            target="_blank",
            rel="noopener noreferrer",
            aria_label="Share " + P.product.name + " on WhatsApp",
            class_name=S.SHARE_LINK,
        ),
        rx.el.button(
            icon("link", 16),
            "Copy link",
            type="button",
            on_click=P.copy_link,
            class_name=S.SHARE_LINK,
        ),
        class_name=S.SHARE_ROW,
    )


def product_detail() -> rx.Component:
    product = P.product
    return rx.el.article(
        rx.el.div(
            picture(
                product.image_url,
                product.name,
                640,
                custom_attrs={"fetchPriority": "high"},
                class_name=S.IMAGE,
            ),
            class_name=S.DETAIL_IMAGE_BOX,
        ),
        rx.el.div(
            _breadcrumb(),
            rx.el.div(
                rx.el.span(product.brand, class_name=S.BRAND),
                rx.cond(product.has_discount, rx.el.span("-", product.discount_percent, "%", class_name=S.DETAIL_PERCENT)),
                class_name=S.DETAIL_META,
            ),
            rx.el.h1(product.name, class_name=S.DETAIL_NAME),
            rx.el.div(
                stars(product),
                rx.cond(
                    product.review_count > 0,
                    rx.el.a("(", product.review_count_text, ")", href="#reviews", class_name=S.REVIEW_COUNT_LINK),
                ),
                class_name=S.DETAIL_STARS_ROW,
            ),
            price_block(product, S.DETAIL_PRICE, show_saving=False),
            rx.cond(
                product.has_discount,
                rx.el.p("You save ", product.save_text, " (", product.discount_percent, "%)", class_name=S.SAVE),
            ),
            flash_sale_notes(product),
            rx.el.span(
                product.stock_text, class_name=S.STOCK_BASE + " " + rx.cond(product.stock <= 0, S.STOCK_OUT, S.STOCK_IN)
            ),
            _buy(),
            _share(),
            whatsapp_chat(P.chat_url),
            rx.el.h2("Description", class_name="mt-2 text-lg font-semibold text-gray-900"),
            rx.el.p(product.description, class_name=S.DETAIL_DESCRIPTION),
            rx.cond(
                product.tags.length() > 0,
                rx.el.ul(
                    rx.foreach(product.tags, lambda tag: rx.el.li(tag, class_name=S.TAG)),
                    aria_label="Tags",
                    class_name=S.TAGS,
                ),
            ),
            class_name=S.DETAIL_INFO,
        ),
        class_name=S.DETAIL,
    )


def related_section() -> rx.Component:
    return rx.cond(
        P.related.length() > 0,
        rx.el.section(
            rx.el.h2("Related products", class_name=S.SECTION_TITLE),
            product_grid(P.related),
            aria_label="Related products",
            class_name=S.RELATED,
        ),
    )


def failed() -> rx.Component:
    return rx.el.div(
        rx.el.h1("This product could not be loaded.", class_name="text-2xl font-bold text-gray-900"),
        rx.el.p("Please try again in a moment.", class_name="mt-2 text-gray-600"),
        rx.el.button(
            "Try Again",
            type="button",
            on_click=rx.call_script("window.location.reload()"),
            class_name=button_class("primary", "md", "mt-6"),
        ),
        role="alert",
        class_name="py-20 text-center",
    )


def product_page() -> rx.Component:
    return layout(
        rx.match(
            P.shown_status,
            ("found", rx.fragment(product_detail(), reviews_section(), related_section(), on_sale_end(P.load))),
            ("missing", not_found_content()),
            ("failed", failed()),
            server_rendered(SLOT_PRODUCT, detail_skeleton_html()),
        )
    )
