"""Small primitives: buttons, badges, fields, spinner, icons.

Colours are chosen for WCAG AA contrast (white on orange-700, gray-600 body text).
"""

from __future__ import annotations

from typing import Any

import reflex as rx

_BUTTON = {
    "primary": "bg-orange-700 text-white hover:bg-orange-800 disabled:bg-gray-400",
    "outline": "border border-gray-300 bg-white text-gray-900 hover:bg-gray-100 disabled:text-gray-400",
    "ghost": "text-gray-800 hover:bg-gray-100 disabled:text-gray-400",
    "danger": "bg-red-700 text-white hover:bg-red-800 disabled:bg-gray-400",
    "dark": "bg-gray-900 text-white hover:bg-gray-700 disabled:bg-gray-400",
}
_SIZE = {
    # A touch phone's finger gets 44 px (assets/app.css gives buttons that; links take it here).
    "sm": "h-9 px-3 text-sm pointer-coarse:h-11",
    "md": "h-10 px-4 text-sm pointer-coarse:h-11",
    "lg": "h-12 px-6 text-base",
    "icon": "h-9 w-9 justify-center pointer-coarse:h-11 pointer-coarse:w-11",
}
BASE_BUTTON = (
    "inline-flex items-center gap-2 rounded-md font-medium transition-colors "
    "disabled:cursor-not-allowed cursor-pointer select-none"
)


def button_class(variant: str = "primary", size: str = "md", extra: str = "") -> str:
    return f"{BASE_BUTTON} {_BUTTON[variant]} {_SIZE[size]} {extra}".strip()


def button(*children: Any, variant: str = "primary", size: str = "md", class_name: str = "", **props: Any):
    props.setdefault("type", "button")
    return rx.el.button(*children, class_name=button_class(variant, size, class_name), **props)


def link_button(*children: Any, href: str, variant: str = "primary", size: str = "md", class_name: str = "", **props):
    return rx.el.a(*children, href=href, class_name=button_class(variant, size, class_name), **props)


_BADGE = {
    "default": "bg-gray-900 text-white",
    "secondary": "bg-gray-200 text-gray-900",
    "outline": "border border-gray-300 text-gray-800",
    "destructive": "bg-red-700 text-white",
    "success": "bg-green-700 text-white",
    "warning": "bg-amber-100 text-amber-900",
    "brand": "bg-orange-100 text-orange-900",
}


def badge_class(variant: str = "secondary") -> str:
    return f"inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold {_BADGE[variant]}"


def badge(*children: Any, variant: str = "secondary", class_name: str = "", **props: Any):
    return rx.el.span(*children, class_name=f"{badge_class(variant)} {class_name}".strip(), **props)


def icon(tag: str, size: int = 20, class_name: str = "", **props: Any):
    return rx.icon(tag, size=size, class_name=class_name, aria_hidden="true", **props)


def picture(src: Any, alt: Any, size: int, **props: Any) -> rx.Component:
    """A square picture that holds its place while it loads: its width and height are given
    (``size`` pixels), so nothing below it moves when it arrives."""
    return rx.el.img(src=src, alt=alt, width=str(size), height=str(size), **props)


def spinner(label: str = "Loading...", class_name: str = ""):
    return rx.el.div(
        rx.el.span(class_name="h-8 w-8 animate-spin rounded-full border-4 border-gray-200 border-t-orange-700"),
        rx.el.span(label, class_name="sr-only"),
        role="status",
        class_name=f"flex justify-center py-12 {class_name}",
    )


FIELD_INPUT = (
    "block w-full rounded-md border border-gray-300 bg-white px-3 py-2 text-sm text-gray-900 "
    "placeholder:text-gray-500 focus:border-orange-700 focus:outline-none focus:ring-2 focus:ring-orange-200"
)
FIELD_LABEL = "mb-1 block text-sm font-medium text-gray-800"


# In an on_blur handler: the phone number in the field, written the usual way by the browser
# first ("024 123 4567"; assets/shop.js), for the event that checks it.
PHONE_AS_WRITTEN = rx.Var("window.dd.formatPhone(_e.target)", _var_type=str)


def browser_owned(name: str, value: Any, version: Any, *, checked: bool = False) -> dict[str, Any]:
    """Props of a field whose value belongs to the browser (issue 31): the server's ``value`` is
    where it starts, and replaces what the field shows only when the server bumps ``version``
    (``key`` remounts the field: a page load, a reset, a choice the server refused). An answer
    to an event never rewrites what the shopper is typing or has just picked, however late it
    comes. ``checked``: ``value`` is a radio's or checkbox's checked state."""
    start = {"default_checked": value} if checked else {"default_value": value}
    return {**start, "key": name + "-" + version.to_string()}


def field(label: str, input_id: str, control: rx.Component, hint: str | None = None, class_name: str = ""):
    """A label above a control; ``input_id`` ties them together for screen readers."""
    return rx.el.div(
        rx.el.label(label, html_for=input_id, class_name=FIELD_LABEL),
        control,
        rx.el.p(hint, class_name="mt-1 text-xs text-gray-600") if hint else rx.fragment(),
        class_name=class_name,
    )


def text_input(label: str, input_id: str, hint: str | None = None, class_name: str = "", **props: Any):
    props.setdefault("type", "text")
    return field(label, input_id, rx.el.input(id=input_id, class_name=FIELD_INPUT, **props), hint, class_name)


def select_input(label: str, input_id: str, options: list[tuple[str, str]], class_name: str = "", **props: Any):
    """A native select (light and accessible on every phone); every option has a non-empty value."""
    return field(
        label,
        input_id,
        rx.el.select(
            *[rx.el.option(text, value=value) for value, text in options],
            id=input_id,
            class_name=FIELD_INPUT,
            **props,
        ),
        class_name=class_name,
    )


def search_field(label: str, input_id: str, *, name: str = "search", icon_size: int = 18,
                 **input_props: Any) -> tuple[rx.Component, ...]:
    """A search field's parts, the children of its ``form`` (``relative``): the label screen
    readers read, the magnifier inside the field, and the ``type=search`` input (``input_props``)."""
    return (
        rx.el.label(label, html_for=input_id, class_name="sr-only"),
        icon("search", icon_size, class_name="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-gray-500"),
        rx.el.input(id=input_id, name=name, type="search", **input_props),
    )


def card(*children: Any, class_name: str = "", **props: Any):
    return rx.el.div(*children, class_name=f"rounded-lg border border-gray-200 bg-white shadow-sm {class_name}", **props)


def labelled_upload(upload: rx.Component, label: str) -> rx.Component:
    """``upload`` (an ``rx.upload.root``) with an accessible name on its file input.

    react-dropzone's input is visually hidden but still in the accessibility tree, and
    ``rx.upload`` offers no way to pass it attributes: find it and label it."""

    def find_input(component: rx.Component):
        for child in getattr(component, "children", []):
            if getattr(child, "tag", None) == "input":
                return child
            found = find_input(child)
            if found is not None:
                return found
        return None

    file_input = find_input(upload)
    if file_input is None:  # pragma: no cover - a Reflex upgrade changed the component
        raise RuntimeError("rx.upload.root has no file input to label")
    file_input.custom_attrs = {**file_input.custom_attrs, "aria-label": label}
    return upload


def tab_button(*children: Any, tab_id: str, panel_id: str, selected: Any, on_click: Any,
               selected_class: str, idle_class: str) -> rx.Component:
    """One tab of a tab list (``role="tab"``, tied to the panel it shows)."""
    return rx.el.button(
        *children,
        type="button",
        role="tab",
        id=tab_id,
        aria_selected=rx.cond(selected, "true", "false"),
        aria_controls=panel_id,
        on_click=on_click,
        class_name=rx.cond(selected, selected_class, idle_class),
    )


def submit_button(busy: Any, idle_text: str, busy_text: str, class_name: str = "", **props: Any) -> rx.Component:
    """A form's submit button, disabled and saying so (``busy_text``) while ``busy``."""
    return button(rx.cond(busy, busy_text, idle_text), type="submit", disabled=busy, class_name=class_name, **props)


def icon_button(tag: str, label: Any, on_click: Any, extra: str = "", **props: Any) -> rx.Component:
    """A square outline button showing only an icon; ``label`` is its accessible name."""
    return rx.el.button(icon(tag, 16), type="button", aria_label=label, on_click=on_click,
                        class_name=button_class("outline", "icon", extra), **props)


def history_follower(path: str, on_follow: Any) -> rx.Component:
    """A hidden control that assets/shop.js presses on Back and Forward within ``path``: the page
    pushes its own addresses beside the router, which runs no on-load when it comes back to the
    address it loaded; ``on_follow`` shows what the address names (a ``follow_address`` event)."""
    return rx.el.button(type="button", hidden=True, tab_index=-1, aria_hidden="true",
                        custom_attrs={"data-follows-history": path}, on_click=on_follow)
