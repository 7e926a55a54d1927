"""Pieces the admin tabs share: labelled fields, a pager, section headings."""

from __future__ import annotations

from typing import Any

import reflex as rx

from .ui import FIELD_INPUT, FIELD_LABEL, badge_class, browser_owned, button_class, icon, search_field

PANEL = "rounded-lg border border-gray-200 bg-white p-4 shadow-sm sm:p-6"


def label(text: str, control_id: str, required: bool = False) -> rx.Component:
    """A field's label; a required field gets a red star beside it (outside the label, so the
    field's accessible name stays the plain text; aria-required says it is required)."""
    if not required:
        return rx.el.label(text, html_for=control_id, class_name=FIELD_LABEL)
    return rx.el.div(
        rx.el.label(text, html_for=control_id, class_name="text-sm font-medium text-gray-800"),
        rx.el.span("*", class_name="text-sm text-red-700", aria_hidden="true"),
        class_name="mb-1 flex gap-1",
    )


def labelled(text: str, control_id: str, control: rx.Component, *, required: bool = False, hint: str = "",
             class_name: str = "") -> rx.Component:
    """A label above a control (``control_id`` ties them together)."""
    return rx.el.div(
        label(text, control_id, required),
        control,
        rx.el.p(hint, id=f"{control_id}_hint", class_name="mt-1 text-xs text-gray-600") if hint else rx.fragment(),
        class_name=class_name,
    )


def form_input(text: str, name: str, *, required: bool = False, hint: str = "", class_name: str = "",
               **props: Any) -> rx.Component:
    """An uncontrolled input whose id and name are both ``name`` (the form submits it by name)."""
    props.setdefault("type", "text")
    if hint:
        props.setdefault("aria_describedby", f"{name}_hint")
    if required:
        props.setdefault("aria_required", "true")
    return labelled(text, name, rx.el.input(id=name, name=name, class_name=FIELD_INPUT, **props),
                    required=required, hint=hint, class_name=class_name)


def checkbox(text: str, name: str, default_checked: Any) -> rx.Component:
    return rx.el.div(
        rx.el.input(
            type="checkbox",
            id=name,
            name=name,
            default_checked=default_checked,
            class_name="h-4 w-4 rounded border-gray-400 accent-orange-700",
        ),
        rx.el.label(text, html_for=name, class_name="text-sm font-medium text-gray-800 pointer-coarse:inline-flex "
                                                    "pointer-coarse:min-h-11 pointer-coarse:items-center"),
        class_name="flex items-center gap-2",
    )


def pager(page: rx.Var, total_pages: rx.Var, page_text: rx.Var, go_to, label_text: str) -> rx.Component:
    """Previous / "Page X of Y" / Next, shown when there is more than one page."""
    return rx.cond(
        total_pages > 1,
        rx.el.nav(
            rx.el.button(
                icon("chevron-left", 16),
                "Previous",
                type="button",
                disabled=page <= 1,
                on_click=go_to(page - 1),
                class_name=button_class("outline", "sm"),
            ),
            rx.el.span(page_text, class_name="text-sm text-gray-700"),
            rx.el.button(
                "Next",
                icon("chevron-right", 16),
                type="button",
                disabled=page >= total_pages,
                on_click=go_to(page + 1),
                class_name=button_class("outline", "sm"),
            ),
            aria_label=label_text,
            class_name="mt-4 flex items-center justify-between gap-2",
        ),
    )


def search_box(input_id: str, text: str, placeholder: str, state) -> rx.Component:
    """A list's search field (``state``: an AdminList): one server event per pause in typing or
    at Enter, not per keystroke. The field is the browser's (components.ui.browser_owned)."""
    return rx.el.form(
        *search_field(
            text,
            input_id,
            name="q",
            icon_size=16,
            placeholder=placeholder,
            on_change=state.set_search.debounce(350),
            class_name=FIELD_INPUT + " pl-9",
            **browser_owned(input_id, state.search, state.filters_version),
        ),
        on_submit=lambda form: state.set_search(form.to(dict)["q"]),
        role="search",
        class_name="relative",
    )


def order_number(prefix: str, number, *beside: rx.Component) -> rx.Component:
    """An order's number as the back office's lists show it ("#1a2b3c4d", "Order #1a2b3c4d"),
    with what is said of it beside (its status, "Needs attention")."""
    return rx.el.div(
        rx.el.span(prefix, number, class_name="font-mono font-semibold text-gray-900"),
        *beside,
        class_name="flex flex-wrap items-center gap-2",
    )


def status_badge(text, variant, variants: tuple[str, ...], default: str = "secondary") -> rx.Component:
    """A badge whose colour is the state's ``variant`` (one of ``variants``, else ``default``)."""
    return rx.el.span(
        text,
        class_name=rx.match(variant, *[(name, badge_class(name)) for name in variants], badge_class(default)),
    )


def filter_select(text: str, control_id: str, state, name: str, width: str = "sm:w-44", *,
                  visible_label: bool = False) -> rx.Component:
    """One of a list state's FILTERS as a select (its label shown above it, or read by screen
    readers only beside a search box)."""
    choices, _default = state.FILTERS[name]
    return rx.el.div(
        rx.el.label(text, html_for=control_id, class_name=FIELD_LABEL if visible_label else "sr-only"),
        rx.el.select(*[rx.el.option(label_text, value=code) for code, label_text in choices], id=control_id,
                     on_change=lambda value: state.set_filter(name, value),
                     class_name=f"{FIELD_INPUT} {width}".strip(),
                     **browser_owned(control_id, getattr(state, name), state.filters_version)),
    )


def search_and_filter(search: rx.Component, *filters: rx.Component, class_name: str = "") -> rx.Component:
    return rx.el.div(rx.el.div(search, class_name="flex-1"), *filters,
                     class_name=f"flex flex-col gap-3 sm:flex-row {class_name}".strip())


def list_states(state, noun: str, rows: rx.Component, empty, *, replace: bool = False) -> rx.Component:
    """A tab's list, or what stands in its place: "Loading <noun>..." (over rows already shown only
    when ``replace``), "Failed to load <noun>" with Try Again, or the ``empty`` text."""
    loading = state.loading if replace else state.loading & (state.rows.length() == 0)
    return rx.cond(
        loading,
        rx.el.p(f"Loading {noun}...", role="status", class_name="py-10 text-center text-gray-600"),
        rx.cond(
            state.failed,
            rx.el.div(
                icon("circle-alert", 32, class_name="mx-auto text-red-700"),
                rx.el.p(f"Failed to load {noun}", class_name="mt-2 font-semibold text-gray-900"),
                rx.el.button("Try Again", type="button", on_click=state.load,
                             class_name=button_class("outline", "md", "mt-3")),
                role="alert",
                class_name="py-10 text-center",
            ),
            rx.cond(state.rows.length() > 0, rows, rx.el.p(empty, class_name="py-10 text-center text-gray-600")),
        ),
    )


def heading_bar(heading, *actions: rx.Component, class_name: str = "mb-3") -> rx.Component:
    """A section's heading with its buttons on the right."""
    return rx.el.div(rx.el.h2(heading, class_name="text-lg font-semibold text-gray-900"), *actions,
                     class_name=f"flex items-center justify-between gap-2 {class_name}")


def list_panel(state, heading: rx.Component, filters: rx.Component, items: rx.Component, noun: str, empty, *,
               label: str, pages_label: str, replace: bool = False, footer: rx.Component | None = None) -> rx.Component:
    """A tab's list: its heading, filters, the rows (or their loading, error or empty state), the pager."""
    return rx.el.section(
        heading,
        filters,
        list_states(state, noun, items, empty, replace=replace),
        footer if footer is not None else rx.fragment(),
        pager(state.page, state.total_pages, state.page_text, state.go_to_page, pages_label),
        aria_label=label,
        class_name=PANEL,
    )


def form_beside_list(form: rx.Component, listing: rx.Component, jump: tuple[str, str]) -> rx.Component:
    """A tab with a form on the left and its list on the right. On a phone the list comes first,
    with a link down to the form (``jump``: its text and the form's id): the form came first,
    and an admin scrolled past 1,100 px of empty fields to every product they came to change."""
    text, form_id = jump
    return rx.el.div(
        rx.el.div(
            rx.el.a(icon("plus", 16), text, href="#" + form_id, class_name=button_class("outline", "sm", "mb-3 lg:hidden")),
            listing,
            class_name="lg:col-span-3",
        ),
        rx.el.div(form, class_name="lg:order-first lg:col-span-2"),
        class_name="grid grid-cols-1 items-start gap-6 lg:grid-cols-5",
    )


def showing(text) -> rx.Component:
    """The "Showing 20 of 143 orders" line under a list (announced when it changes)."""
    return rx.el.p(text, class_name="mt-3 text-sm text-gray-700", aria_live="polite")
