"""Admin Products tab (form on the left, list on the right) and Categories tab."""

from __future__ import annotations

import reflex as rx

from ..state.admin.categories import AdminCategoriesState
from ..state.admin.product_form import NO_CATEGORY
from ..state.admin.products import AdminProductsState
from .admin_ui import (
    PANEL,
    checkbox,
    filter_select,
    form_beside_list,
    form_input,
    heading_bar,
    labelled,
    list_panel,
    pager,
    search_and_filter,
    search_box,
)
from .blocks import list_or_note
from .ui import FIELD_INPUT, badge, badge_class, button, button_class, icon, icon_button, picture

S = AdminProductsState
F = AdminProductsState.form


def _textarea(text: str, name: str, default_value, rows: int = 3) -> rx.Component:
    return labelled(
        text,
        name,
        rx.el.textarea(id=name, name=name, default_value=default_value, rows=rows, class_name=FIELD_INPUT),
    )


def _select(text: str, name: str, default_value, options, required: bool = False) -> rx.Component:
    extra = {"aria_required": "true"} if required else {}
    return labelled(
        text,
        name,
        rx.el.select(*options, id=name, name=name, default_value=default_value, class_name=FIELD_INPUT, **extra),
        required=required,
    )


def _product_fields() -> rx.Component:
    """The form's fields, filled with the product being edited (or the defaults)."""
    return rx.el.div(
        form_input("Name", "product_name", required=True, default_value=F.name, class_name="sm:col-span-2"),
        rx.el.div(_textarea("Description", "product_description", F.description), class_name="sm:col-span-2"),
        form_input("Brand", "product_brand", default_value=F.brand),
        _select(
            "Category",
            "product_category",
            F.category,
            [
                rx.el.option("Select a category", value=NO_CATEGORY, disabled=True),
                rx.foreach(S.categories, lambda c: rx.el.option(c.name, value=c.id)),
            ],
            required=True,
        ),
        form_input("Price", "product_price", required=True, placeholder="0.00", input_mode="decimal",
                   default_value=F.price),
        form_input("Discount Price", "product_discount_price", placeholder="0.00", input_mode="decimal",
                   default_value=F.discount_price),
        form_input("Discount Start", "product_discount_start", type="datetime-local", default_value=F.discount_start),
        form_input("Discount End", "product_discount_end", type="datetime-local", default_value=F.discount_end),
        form_input("Limit per customer", "product_per_customer_limit", type="number", min="1", step="1",
                   placeholder="No limit", hint="Flash sale: most units one shopper may buy while the discount is on.",
                   default_value=F.per_customer_limit),
        form_input("Image URL", "product_image_url", input_mode="url", placeholder="https://...",
                   hint="Leave blank for the default picture.", default_value=F.image_url,
                   class_name="sm:col-span-2"),
        form_input("Tags", "product_tags", hint="Comma-separated, e.g. rice, staples", default_value=F.tags,
                   class_name="sm:col-span-2"),
        form_input("Related Product IDs", "product_related_products", hint="Comma-separated product ids",
                   default_value=F.related_products, class_name="sm:col-span-2"),
        form_input("Stock", "product_stock", type="number", min="0", step="1", placeholder="0",
                   default_value=F.stock),
        form_input("Rating", "product_rating", type="number", min="0", max="5", step="0.1", placeholder="0",
                   default_value=F.rating),
        _select(
            "Status",
            "product_status",
            F.status,
            [rx.el.option("Active", value="active"), rx.el.option("Inactive", value="inactive")],
        ),
        rx.el.div(
            checkbox("Available", "product_is_available", F.is_available),
            checkbox("Featured", "product_is_featured", F.is_featured),
            class_name="flex flex-wrap items-center gap-6 sm:col-span-2",
        ),
        class_name="grid gap-4 sm:grid-cols-2",
    )


def product_form() -> rx.Component:
    editing = S.editing_id != ""
    return rx.el.form(
        rx.el.h2(rx.cond(editing, "Edit Product", "Add New Product"), class_name="text-lg font-semibold text-gray-900"),
        rx.el.p("Fields marked * are required.", class_name="mb-4 text-xs text-gray-600"),
        _product_fields(),
        rx.el.div(
            rx.el.button(
                rx.cond(editing, icon("save", 16), icon("plus", 16)),
                rx.cond(editing, "Update Product", "Add Product"),
                type="submit",
                class_name=button_class("primary", "md", "flex-1 justify-center"),
            ),
            rx.cond(
                editing,
                button("Cancel", variant="outline", on_click=S.cancel_edit),
            ),
            class_name="mt-6 flex gap-3",
        ),
        id="product-form",
        key=S.form_key,
        on_submit=S.save,
        aria_label=rx.cond(editing, "Edit Product", "Add New Product"),
        class_name=PANEL + " scroll-mt-20",
    )


def _deal_badge(row) -> rx.Component:
    """The discount window at a glance: live, scheduled (not yet charged) or expired."""
    return rx.match(
        row.deal,
        ("active", rx.el.span(row.deal_text, class_name=badge_class("success"))),
        ("scheduled", rx.el.span(icon("calendar-clock", 12), row.deal_text,
                                 class_name=badge_class("brand") + " gap-1")),
        ("expired", rx.el.span(icon("clock", 12), row.deal_text, class_name=badge_class("secondary") + " gap-1")),
        rx.fragment(),
    )


def restock_form(product_id, name, on_restock, id_prefix: str = "restock_") -> rx.Component:
    """Units to add and a Restock button: low stock fixed in one step. The product travels in a
    hidden field (a form's submit handler is built outside the list it sits in)."""
    field_id = id_prefix + product_id
    return rx.el.form(
        rx.el.input(type="hidden", name="product_id", value=product_id, read_only=True),
        rx.el.label("Units to add to ", name, html_for=field_id, class_name="sr-only"),
        rx.el.input(id=field_id, name="units", type="number", min="1", step="1", placeholder="Units",
                    required=True, input_mode="numeric", class_name=FIELD_INPUT.replace("block w-full ", "") + " h-9 w-24 py-1"),
        rx.el.button(icon("package-plus", 16), "Restock", rx.el.span(" (", name, ")", class_name="sr-only"), type="submit",
                     class_name=button_class("outline", "sm")),
        on_submit=on_restock,
        reset_on_submit=True,
        class_name="mt-2 flex items-center gap-2",
    )


def _product_row(row) -> rx.Component:
    return rx.el.li(
        picture(
            row.image_url,
            "",
            64,
            loading="lazy",
            class_name="h-16 w-16 shrink-0 rounded-md border border-gray-200 bg-gray-100 object-cover",
        ),
        rx.el.div(
            rx.el.div(
                rx.el.h3(row.name, class_name="font-semibold text-gray-900"),
                rx.el.span(
                    row.status,
                    class_name=rx.cond(row.status == "active", badge_class("success"), badge_class("secondary")),
                ),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.el.p(row.description, class_name="mt-0.5 line-clamp-2 text-sm text-gray-600"),
            rx.el.div(
                badge(row.category, variant="outline"),
                rx.el.span(row.price_text, class_name="font-semibold text-gray-900"),
                rx.cond(row.discount_text != "", rx.el.s(row.discount_text, class_name="text-sm text-gray-600")),
                _deal_badge(row),
                rx.el.span(
                    row.stock, " in stock",
                    class_name=rx.cond(row.stock == 0, badge_class("destructive"),
                                       rx.cond(row.restockable, badge_class("warning"), badge_class("outline"))),
                ),
                class_name="mt-2 flex flex-wrap items-center gap-2 text-sm",
            ),
            rx.cond(row.restockable, restock_form(row.id, row.name, S.restock)),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.el.button(
                icon("pencil", 16),
                type="button",
                aria_label="Edit " + row.name,
                title="Edit",
                on_click=S.edit(row.id),
                class_name=button_class("outline", "icon"),
            ),
            icon_button("trash-2", "Delete " + row.name, S.delete(row.id), "text-red-700 hover:bg-red-50",
                        title="Delete"),
            class_name="flex shrink-0 gap-2",
        ),
        class_name="flex items-start gap-3 border-b border-gray-200 py-3 last:border-b-0",
    )


def product_list() -> rx.Component:
    return list_panel(
        S,
        heading_bar(S.heading, button(icon("download", 16), "Export CSV", variant="outline", size="sm",
                                      on_click=S.export)),
        search_and_filter(
            search_box("admin_product_search", "Search products", "Search products...", S),
            filter_select("Show", "admin_product_status", S, "status_filter", width="sm:w-52"),
        ),
        rx.el.ul(rx.foreach(S.rows, _product_row), aria_label="Products", class_name="mt-2"),
        "products", "No products found", label="Product list", pages_label="Products pages",
    )


def products_tab() -> rx.Component:
    return form_beside_list(product_form(), product_list(), ("Add a product", "product-form"))


# --- categories --------------------------------------------------------------------------------

C = AdminCategoriesState


def _category_row(row) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.h3(row.name, class_name="font-semibold text-gray-900"),
                rx.el.code(row.slug, class_name="rounded bg-gray-100 px-1.5 py-0.5 text-xs text-gray-800"),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.cond(row.description != "", rx.el.p(row.description, class_name="mt-1 text-sm text-gray-600")),
            class_name="min-w-0 flex-1",
        ),
        icon_button("trash-2", "Delete category " + row.name, C.delete(row.id),
                    "shrink-0 text-red-700 hover:bg-red-50", title="Delete"),
        class_name="flex items-start gap-3 border-b border-gray-200 py-3 last:border-b-0",
    )


def categories_tab() -> rx.Component:
    return rx.el.div(
        rx.el.form(
            rx.el.h2("Add Category", class_name="mb-4 text-lg font-semibold text-gray-900"),
            rx.el.div(
                form_input("Category Name", "category_name", required=True, placeholder="e.g. Frozen Food"),
                form_input("Description (optional)", "category_description"),
                class_name="grid gap-4 sm:grid-cols-2",
            ),
            rx.el.button(icon("plus", 16), "Add", type="submit", class_name=button_class("primary", "md", "mt-4")),
            key=C.form_key,
            on_submit=C.add,
            aria_label="Add Category",
            class_name=PANEL,
        ),
        rx.el.section(
            rx.el.div(
                rx.el.h2("Categories (", C.total, ")", class_name="text-lg font-semibold text-gray-900"),
                button(icon("refresh-cw", 16), "Refresh", variant="outline", size="sm", on_click=C.refresh),
                class_name="mb-2 flex items-center justify-between",
            ),
            list_or_note(C.rows, _category_row, rx.cond(C.failed, "Failed to fetch categories", "No categories yet."),
                         note_class="py-8 text-center text-gray-600", aria_label="Categories"),
            pager(C.page, C.total_pages, C.page_text, C.go_to_page, "Categories pages"),
            aria_label="Category list",
            class_name=PANEL,
        ),
        class_name="grid items-start gap-6 lg:grid-cols-2",
    )
