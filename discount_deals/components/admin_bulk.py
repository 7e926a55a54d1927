"""Admin Bulk Upload Products / Categories tabs: JSON or CSV input, templates, progress, result."""

from __future__ import annotations

import reflex as rx

from ..config.settings import get_settings
from ..state.admin.bulk import BulkCategoriesState, BulkProductsState
from ..state.admin.bulk_input import CSV_UPLOAD_ACCEPT, JSON_UPLOAD_ACCEPT
from .admin_ui import PANEL
from .ui import FIELD_INPUT, FIELD_LABEL, browser_owned, button_class, icon, labelled_upload

JSON_EXAMPLES = {
    "products": '[\n  {\n    "name": "Jasmine Rice 5kg",\n    "description": "Long-grain rice",\n    "price": "24.99",\n'
    '    "category": "Groceries",\n    "image_url": "https://..."\n  }\n]',
    "categories": '[\n  {\n    "name": "Frozen Food",\n    "slug": "frozen-food",\n'
    '    "description": "Frozen meals and ice cream"\n  }\n]',
}


def _method_toggle(state, noun: str) -> rx.Component:
    def choice(value: str, text: str, tag: str) -> rx.Component:
        return rx.el.button(
            icon(tag, 16),
            text,
            type="button",
            aria_pressed=rx.cond(state.method == value, "true", "false"),
            on_click=state.set_method(value),
            class_name=rx.cond(
                state.method == value, button_class("primary", "sm"), button_class("outline", "sm")
            ),
        )

    return rx.el.div(
        rx.el.span("Upload method", id=f"{noun}-method-label", class_name=FIELD_LABEL),
        rx.el.div(
            choice("json", "JSON", "braces"),
            choice("csv", "CSV", "sheet"),
            role="group",
            aria_labelledby=f"{noun}-method-label",
            class_name="flex gap-2",
        ),
    )


def _templates(state, noun: str) -> rx.Component:
    def download(fmt: str) -> rx.Component:
        return rx.el.button(
            icon("download", 16),
            f"{noun}-template.{fmt}",
            type="button",
            aria_label=f"Download {noun}-template.{fmt}",
            on_click=state.download_template(fmt),
            class_name=button_class("outline", "sm"),
        )

    return rx.el.div(
        rx.el.span("Templates", class_name=FIELD_LABEL),
        rx.el.div(download("json"), download("csv"), class_name="flex flex-wrap gap-2"),
    )


def _file_picker(upload_id: str, accept: dict, on_drop, on_rejected, text: str, hint: str,
                 input_label: str) -> rx.Component:
    """A drop zone around a real button: react-dropzone marks its zone role="presentation", so the
    button carries the name and the keyboard focus (its click reaches the zone and opens the
    file dialog). The zone's hidden file input gets a name of its own (not the button's). A file
    over the bulk limit is refused here, with a message (the server answers a bare 413)."""
    zone = rx.upload.root(
        rx.el.div(
            rx.el.button(
                icon("file-up", 18),
                text,
                type="button",
                class_name=button_class("outline", "md"),
            ),
            rx.el.span(hint, class_name="text-xs text-gray-600"),
            class_name="flex flex-col items-center gap-2",
        ),
        id=upload_id,
        accept=accept,
        multiple=False,
        max_files=1,
        max_size=get_settings().bulk_max_bytes,
        no_keyboard=True,
        on_drop=on_drop,
        # Only that it was refused goes to the server: the rejection holds the File itself, which
        # socket.io would send whole (a 10 MB file over the websocket).
        on_drop_rejected=lambda _rejected: on_rejected,
        class_name="cursor-pointer rounded-md border-2 border-dashed border-gray-300 bg-gray-50 p-4 text-center "
        "hover:border-orange-700",
    )
    return labelled_upload(zone, input_label)


def _json_input(state, noun: str) -> rx.Component:
    upload_id = f"bulk-{noun}-json"
    return rx.el.div(
        rx.el.label("JSON Data", html_for=f"bulk_{noun}_json", class_name=FIELD_LABEL),
        rx.el.textarea(
            id=f"bulk_{noun}_json",
            rows=10,
            placeholder=JSON_EXAMPLES[noun],
            on_change=state.set_json_text.debounce(300),
            spell_check=False,
            class_name=FIELD_INPUT + " font-mono text-xs",
            **browser_owned(f"bulk_{noun}_json", state.json_text, state.input_version),
        ),
        rx.el.div(
            _file_picker(
                upload_id,
                JSON_UPLOAD_ACCEPT,
                state.pick_json_file(rx.upload_files(upload_id=upload_id)),
                state.file_rejected,
                "Upload JSON File",
                "A .json file with an array of " + noun,
                f"{noun.capitalize()} JSON file",
            ),
            rx.cond(
                state.json_file_name != "",
                rx.el.p("Loaded ", rx.el.span(state.json_file_name, class_name="font-medium"),
                        class_name="mt-1 text-xs text-gray-700"),
            ),
            class_name="mt-3",
        ),
    )


def _csv_input(state, noun: str) -> rx.Component:
    upload_id = f"bulk-{noun}-csv"
    return rx.el.div(
        rx.el.span("CSV File", class_name=FIELD_LABEL),
        _file_picker(
            upload_id,
            CSV_UPLOAD_ACCEPT,
            state.pick_csv_file(rx.upload_files(upload_id=upload_id)),
            state.file_rejected,
            "Choose CSV File",
            "The first line holds the column names",
            f"{noun.capitalize()} CSV file",
        ),
        rx.el.p(
            rx.cond(state.csv_name != "", "Selected: " + state.csv_name, "No file selected"),
            class_name="mt-1 text-xs text-gray-700",
            aria_live="polite",
        ),
    )


def _progress(state, noun: str) -> rx.Component:
    return rx.cond(
        state.show_progress,
        rx.el.div(
            rx.el.div(
                rx.el.span(state.stage, class_name="text-sm font-medium text-gray-800"),
                rx.el.span(state.progress.to_string() + "%", class_name="text-sm text-gray-600"),
                class_name="mb-1 flex justify-between",
            ),
            rx.el.div(
                rx.el.div(
                    class_name="h-full rounded-full bg-orange-700 transition-all duration-200",
                    style={"width": state.progress.to_string() + "%"},
                ),
                role="progressbar",
                aria_label=f"Upload progress ({noun})",
                aria_valuemin="0",
                aria_valuemax="100",
                aria_valuenow=state.progress,
                class_name="h-2 w-full overflow-hidden rounded-full bg-gray-200",
            ),
            aria_live="polite",
            custom_attrs={"data-testid": f"{noun}-progress"},
        ),
    )


def _result(state, noun: str) -> rx.Component:
    return rx.cond(
        state.result.shown,
        rx.el.div(
            rx.el.div(
                rx.cond(state.result.success, icon("circle-check", 20), icon("circle-x", 20)),
                rx.el.p(state.result.message, class_name="font-semibold"),
                class_name="flex items-center gap-2",
            ),
            rx.foreach(state.result.notes, lambda note: rx.el.p(note, class_name="mt-1 text-sm")),
            rx.cond(
                state.result.errors.length() > 0,
                rx.el.ul(
                    rx.foreach(state.result.errors, lambda line: rx.el.li(line)),
                    aria_label="Problems",
                    class_name="mt-2 list-disc space-y-1 pl-6 text-sm",
                ),
            ),
            rx.cond(
                state.result.report,
                rx.el.button(
                    icon("download", 16), "Download error report", type="button", on_click=state.download_report,
                    title="Every problem as CSV: row, field, message (as import-products --errors writes it)",
                    class_name=button_class("outline", "sm", "mt-3 bg-white"),
                ),
            ),
            role="status",
            custom_attrs={"data-testid": f"{noun}-result", "data-success": rx.cond(state.result.success, "true", "false")},
            class_name=rx.cond(
                state.result.success,
                "rounded-lg border border-green-600 bg-green-50 p-4 text-green-900",
                "rounded-lg border border-red-600 bg-red-50 p-4 text-red-900",
            ),
        ),
    )


def bulk_tab(kind: str) -> rx.Component:
    """``kind``: "products" or "categories"."""
    state = BulkProductsState if kind == "products" else BulkCategoriesState
    title = "Products" if kind == "products" else "Categories"
    return rx.el.div(
        rx.el.section(
            rx.el.h2(f"Bulk Upload {title}", class_name="text-lg font-semibold text-gray-900"),
            rx.el.p(
                f"Add many {kind} at once from a JSON array or a CSV file. Start from a template.",
                class_name="mb-4 text-sm text-gray-600",
            ),
            rx.el.div(
                _method_toggle(state, kind),
                _templates(state, kind),
                class_name="mb-4 flex flex-wrap items-end justify-between gap-4",
            ),
            rx.cond(state.method == "json", _json_input(state, kind), _csv_input(state, kind)),
            rx.el.div(_progress(state, kind), class_name="mt-4"),
            rx.el.button(
                icon("upload", 16),
                f"Upload {title}",
                type="button",
                disabled=state.uploading | ~state.has_input,
                # The JSON as the field holds it now (the last pause in typing may not have been sent).
                on_click=state.upload(rx.Var(f"(document.getElementById('bulk_{kind}_json')?.value ?? null)")),
                class_name=button_class("primary", "md", "mt-4 w-full justify-center"),
            ),
            aria_label=f"Bulk Upload {title}",
            class_name=PANEL,
        ),
        rx.el.div(_result(state, kind), class_name="mt-4"),
        class_name="max-w-3xl",
    )
