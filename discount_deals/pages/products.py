"""Products (/products): search, filters (kept in the URL), the grid and pagination."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.pagination import pagination
from ..components.card_style import SKELETON_LINE
from ..components.product_card import product_grid, server_rendered, skeleton_grid_html
from ..page_slots import SLOT_LISTING, SLOT_LISTING_COUNT
from ..components.flash_sale import on_sale_end
from ..components.ui import (FIELD_INPUT, FIELD_LABEL, badge_class, browser_owned, button_class, history_follower, icon,
                             search_field)
from ..state.shop.catalog import ALL, BEST_MATCH, PRICE_RANGES, SORT_OPTIONS, ProductsState, price_label


def _select(label: str, input_id: str, value, on_change, options, class_name: str = "") -> rx.Component:
    """A filter: the browser shows the choice at once; the page it names follows in one round trip."""
    return rx.el.div(
        rx.el.label(label, html_for=input_id, class_name=FIELD_LABEL),
        rx.el.select(*options, id=input_id, on_change=on_change, class_name=FIELD_INPUT,
                     **browser_owned(input_id, value, ProductsState.filters_version)),
        class_name=class_name,
    )


def filters() -> rx.Component:
    return rx.el.section(
        rx.el.form(
            *search_field(
                "Search products",
                "product-search",
                placeholder="Search products...",
                enter_key_hint="search",
                # The field is the browser's: the listing follows a pause in typing (assets/shop.js
                # submits the form then) or Enter, one event either way.
                custom_attrs={"data-live-submit": "400"},
                class_name=FIELD_INPUT + " pl-10 h-11",
                **browser_owned("product-search", ProductsState.search, ProductsState.search_box_version),
            ),
            on_submit=lambda form: ProductsState.apply_search(form.to(dict)["search"]),
            role="search",
            class_name="relative",
        ),
        rx.el.div(
            _select(
                "Category", "filter-category", ProductsState.category_value, ProductsState.set_category,
                [rx.el.option("All Categories", value=ALL), rx.foreach(ProductsState.category_options, _counted)],
            ),
            _select(
                "Brand", "filter-brand", ProductsState.brand_value, ProductsState.set_brand,
                [rx.el.option("All Brands", value=ALL), rx.foreach(ProductsState.brand_options, _counted)],
            ),
            _select(
                "Price Range", "filter-price", ProductsState.price_value, ProductsState.set_price_range,
                [
                    rx.el.option("All Prices", value=ALL),
                    rx.cond(
                        ProductsState.price_options.length() > 0,
                        rx.foreach(ProductsState.price_options, _counted),
                        # Before the first page arrives (and in the first HTML): the ranges alone.
                        rx.fragment(*[rx.el.option(price_label(v), value=v) for v in PRICE_RANGES]),
                    ),
                ],
                class_name="col-span-2 lg:col-span-1",  # its choices carry counts: "$25 - $50 (12)"
            ),
            _select(
                "Sort By", "filter-sort", ProductsState.sort_value, ProductsState.set_sort,
                [
                    rx.cond(ProductsState.search != "", rx.el.option(BEST_MATCH[1], value=BEST_MATCH[0])),
                    *[rx.el.option(text, value=value) for value, text in SORT_OPTIONS],
                ],
                # The whole row on a phone: half of 390 px cut "Price: Low to High" to "Price: Low to Hig".
                class_name="col-span-2 lg:col-span-1",
            ),
            class_name="mt-4 grid grid-cols-2 gap-3 lg:grid-cols-4",
        ),
        active_filters(),
        aria_label="Search and filters",
        class_name="rounded-lg border border-gray-200 bg-white p-4",
    )


def _counted(option) -> rx.Component:
    """A filter choice with the number of products it leaves; disabled when that is none."""
    return rx.el.option(option.label, value=option.value, disabled=option.disabled)


def corrected_search() -> rx.Component:
    """'Showing results for jasmine rice' when typos were corrected, and the way back to the words
    as typed (a link without JavaScript; one event with it)."""
    return rx.cond(
        ProductsState.corrected_query != "",
        rx.el.p(
            "Showing results for ",
            rx.el.em(ProductsState.corrected_query, class_name="font-semibold text-gray-900"),
            ". ",
            rx.el.a(
                "Search instead for “", ProductsState.search, "”",
                href=ProductsState.exact_url,
                on_click=ProductsState.search_exactly.prevent_default,
                class_name="font-medium text-orange-800 underline hover:text-orange-900",
            ),
            class_name="-mt-2 mb-4 text-sm text-gray-700",
            data_testid="corrected-search",
        ),
    )


def _filter_badge(label, value, name: str) -> rx.Component:
    return rx.el.span(
        label, ": ", value,
        rx.el.button(
            icon("x", 12),
            type="button",
            aria_label="Remove " + label + " filter",
            on_click=ProductsState.remove_filter(name),
            class_name="tap-inset ml-1 rounded-full p-0.5 hover:bg-orange-200",
        ),
        class_name=badge_class("brand") + " gap-1 py-1",
    )


def active_filters() -> rx.Component:
    return rx.cond(
        ProductsState.has_filters,
        rx.el.div(
            rx.el.span("Active filters:", class_name="text-sm text-gray-600"),
            rx.cond(ProductsState.search != "", _filter_badge("Search", ProductsState.search, "search")),
            rx.cond(ProductsState.category != "", _filter_badge("Category", ProductsState.category, "category")),
            rx.cond(ProductsState.brand != "", _filter_badge("Brand", ProductsState.brand_label, "brand")),
            rx.cond(ProductsState.price_range != "", _filter_badge("Price", ProductsState.price_range_label, "price_range")),
            rx.el.button(
                "Clear All", type="button", on_click=ProductsState.clear_all, class_name=button_class("ghost", "sm")
            ),
            class_name="mt-4 flex flex-wrap items-center gap-2",
        ),
    )


def empty_state() -> rx.Component:
    return rx.el.div(
        icon("search-x", 40, class_name="mx-auto text-gray-400"),
        rx.el.h2("No products found", class_name="mt-4 text-lg font-semibold text-gray-900"),
        rx.el.p("Try adjusting your search or filter criteria", class_name="mt-1 text-gray-600"),
        class_name="rounded-lg border border-dashed border-gray-300 bg-white py-16 text-center",
    )


def products() -> rx.Component:
    return layout(
        rx.el.h1("All Products", class_name="mb-4 text-3xl font-bold text-gray-900"),
        filters(),
        rx.el.div(
            rx.cond(
                ProductsState.loading & (ProductsState.products.length() == 0),
                # Never "Showing 0 of 0" while the first page is on its way.
                server_rendered(SLOT_LISTING_COUNT, f'<span class="{SKELETON_LINE}"></span>'),
                ProductsState.showing_text,
            ),
            class_name="my-4 min-h-5 text-sm text-gray-700",
            aria_live="polite",
        ),
        corrected_search(),
        rx.el.h2("Results", class_name="sr-only"),
        rx.cond(
            ProductsState.loading & (ProductsState.products.length() == 0),
            server_rendered(SLOT_LISTING, skeleton_grid_html()),
            rx.cond(
                ProductsState.products.length() > 0,
                product_grid(ProductsState.products),
                empty_state(),
            ),
        ),
        pagination(ProductsState.page, ProductsState.total_pages, ProductsState.page_items, ProductsState.go_to_page),
        history_follower(routes.PRODUCTS, ProductsState.follow_address),
        on_sale_end(ProductsState.show_prices_again),
    )
