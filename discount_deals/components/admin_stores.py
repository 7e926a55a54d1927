"""Admin Pickup Stores tab: the add/edit form and the list of stores."""

from __future__ import annotations

import reflex as rx

from ..state.admin.stores import AdminStoresState, StoreRow
from .admin_ui import PANEL, labelled
from .ui import FIELD_INPUT, badge, button, button_class

S = AdminStoresState


def _field(text: str, name: str, value, *, required: bool = False, type: str = "text") -> rx.Component:
    control_id = "store_" + name
    return labelled(
        text,
        control_id,
        rx.el.input(id=control_id, name=name, type=type, default_value=value, required=required,
                    class_name=FIELD_INPUT),
        required=required,
    )


def store_form() -> rx.Component:
    return rx.el.form(
        rx.el.h2(rx.cond(S.editing_id != "", "Edit store", "Add a pickup store"),
                 class_name="text-lg font-semibold text-gray-900"),
        rx.el.div(
            _field("Name", "name", S.form.name, required=True),
            _field("Retailer", "retailer", S.form.retailer),
            _field("Address", "address", S.form.address, required=True),
            _field("City", "city", S.form.city, required=True),
            _field("Phone", "phone", S.form.phone, type="tel"),
            _field("Opening hours", "opening_hours", S.form.opening_hours),
            class_name="mt-4 grid gap-4 sm:grid-cols-2",
        ),
        rx.el.div(
            button(rx.cond(S.saving, "Saving...", rx.cond(S.editing_id != "", "Update Store", "Add Store")),
                   type="submit", disabled=S.saving),
            rx.cond(S.editing_id != "", button("Cancel", variant="outline", on_click=S.cancel_edit)),
            class_name="mt-4 flex gap-2",
        ),
        key=S.form_version,
        on_submit=S.save,
        class_name=PANEL,
    )


def _store(row: StoreRow) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.span(row.name, class_name="font-semibold text-gray-900"),
                rx.cond(row.is_active, badge("Shown at checkout", variant="success"),
                        badge("Hidden", variant="outline")),
                class_name="flex flex-wrap items-center gap-2",
            ),
            rx.el.p(row.address, ", ", row.city, class_name="text-sm text-gray-700"),
            rx.el.p(row.opening_hours, class_name="text-xs text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.el.button("Edit", type="button", on_click=S.edit(row.id), aria_label="Edit " + row.name,
                         class_name=button_class("outline", "sm")),
            rx.el.button(
                rx.cond(row.is_active, "Hide", "Show"),
                type="button",
                on_click=S.set_active(row.id, ~row.is_active),
                aria_label=rx.cond(row.is_active, "Hide ", "Show ") + row.name,
                class_name=button_class("ghost", "sm"),
            ),
            class_name="flex gap-2",
        ),
        class_name="flex flex-col gap-2 border-b border-gray-200 py-3 last:border-b-0 sm:flex-row sm:items-center",
    )


def stores_tab() -> rx.Component:
    return rx.el.div(
        store_form(),
        rx.el.section(
            rx.el.h2("Pickup stores (", S.rows.length(), ")", class_name="text-lg font-semibold text-gray-900"),
            rx.el.ul(rx.foreach(S.rows, _store), aria_label="Pickup stores", class_name="mt-2"),
            class_name=PANEL,
        ),
        class_name="grid gap-6 lg:grid-cols-2",
    )
