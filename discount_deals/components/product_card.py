"""The product card used by the home pages, /products and /favorites."""

from __future__ import annotations

import reflex as rx

from ..state.cart import CartState
from ..state.favorites import FavoritesState
from ..state.views import ProductView
from .ui import badge, badge_class, button_class, icon


def stars(full: rx.Var, rating_text: rx.Var) -> rx.Component:
    return rx.el.div(
        rx.el.span(
            *[
                rx.icon(
                    "star",
                    size=14,
                    aria_hidden="true",
                    class_name=rx.cond(full > n, "fill-amber-400 text-amber-400", "text-gray-300"),
                )
                for n in range(5)
            ],
            class_name="flex",
        ),
        rx.el.span(rating_text, class_name="text-xs font-medium text-gray-700"),
        rx.el.span("Rated ", rating_text, " out of 5", class_name="sr-only"),
        class_name="flex items-center gap-1",
    )


def favourite_button(product_id: rx.Var, name: rx.Var) -> rx.Component:
    is_favourite = FavoritesState.ids.contains(product_id)
    return rx.el.button(
        rx.icon(
            "heart",
            size=18,
            aria_hidden="true",
            class_name=rx.cond(is_favourite, "fill-red-600 text-red-600", "text-gray-700"),
        ),
        type="button",
        aria_label=rx.cond(is_favourite, "Remove " + name + " from favorites", "Add " + name + " to favorites"),
        aria_pressed=rx.cond(is_favourite, "true", "false"),
        on_click=FavoritesState.toggle(product_id),
        class_name="absolute right-2 top-2 flex h-9 w-9 items-center justify-center rounded-full bg-white/90 shadow hover:bg-white",
    )


def product_card(product: ProductView, index: rx.Var) -> rx.Component:
    out_of_stock = product.stock <= 0
    return rx.el.article(
        rx.el.div(
            rx.el.img(
                src=product.image_url,
                alt=product.name,
                width="320",
                height="320",
                loading=rx.cond(index < 4, "eager", "lazy"),
                custom_attrs={"fetchPriority": rx.cond(index == 0, "high", "auto")},
                decoding="async",
                class_name="h-full w-full object-cover",
            ),
            rx.cond(
                product.has_discount,
                rx.el.span(
                    "-", product.discount_percent, "%",
                    class_name="absolute left-2 top-2 rounded-md bg-red-700 px-2 py-1 text-xs font-bold text-white",
                ),
            ),
            favourite_button(product.id, product.name),
            class_name="relative aspect-[4/3] overflow-hidden bg-gray-100 sm:aspect-square",
        ),
        rx.el.div(
            rx.el.div(
                badge(product.brand, variant="brand", class_name="capitalize"),
                rx.el.span(product.category, class_name="truncate text-xs text-gray-600"),
                class_name="flex items-center justify-between gap-2",
            ),
            rx.el.h3(product.name, class_name="line-clamp-2 text-base font-semibold leading-snug text-gray-900"),
            rx.el.p(product.description, class_name="line-clamp-2 text-sm text-gray-600"),
            stars(product.full_stars, product.rating_text),
            rx.el.div(
                rx.el.span(product.price_text, class_name="text-xl font-bold text-gray-900"),
                rx.cond(
                    product.has_discount,
                    rx.el.s(product.original_text, class_name="text-sm text-gray-600"),
                ),
                class_name="flex items-baseline gap-2",
            ),
            rx.el.span(
                product.stock_text,
                class_name=rx.cond(out_of_stock, badge_class("destructive"), badge_class("success")) + " w-fit",
            ),
            rx.el.button(
                icon("shopping-cart", 16),
                rx.cond(out_of_stock, "Out of Stock", "Add to Cart"),
                type="button",
                disabled=out_of_stock | CartState.updating,
                on_click=CartState.add_to_cart(product.id),
                class_name=button_class("primary", "md", "mt-auto w-full justify-center"),
            ),
            class_name="flex flex-1 flex-col gap-2 p-4",
        ),
        class_name="card-enter flex h-full flex-col overflow-hidden rounded-lg border border-gray-200 bg-white shadow-sm",
        style={"animationDelay": (index * 100).to_string() + "ms"},
    )


def skeleton_card() -> rx.Component:
    """A grey card of a product card's size, shown while the first page loads."""
    bar = "rounded bg-gray-200"
    return rx.el.div(
        rx.el.div(class_name="aspect-[4/3] bg-gray-200 sm:aspect-square"),
        rx.el.div(
            rx.el.div(class_name=f"h-4 w-1/3 {bar}"),
            rx.el.div(class_name=f"h-5 w-4/5 {bar}"),
            rx.el.div(class_name=f"h-10 w-full {bar}"),
            rx.el.div(class_name=f"h-6 w-1/2 {bar}"),
            rx.el.div(class_name=f"mt-4 h-10 w-full {bar}"),
            class_name="flex flex-col gap-3 p-4",
        ),
        aria_hidden="true",
        class_name="animate-pulse overflow-hidden rounded-lg border border-gray-200 bg-white",
    )


def skeleton_grid(count: int = 8) -> rx.Component:
    return rx.el.div(
        *[skeleton_card() for _ in range(count)],
        rx.el.span("Loading products...", class_name="sr-only"),
        role="status",
        class_name="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4",
    )


def product_grid(products: rx.Var) -> rx.Component:
    """1 to 4 columns depending on the screen width."""
    return rx.el.div(
        rx.foreach(products, lambda product, index: product_card(product, index)),
        class_name="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4",
    )
