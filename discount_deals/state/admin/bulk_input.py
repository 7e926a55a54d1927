"""Reading a bulk upload (SPEC §5): the file or JSON text to rows (and how the card numbers
them), the checks' messages as the result card lists them, the imports (services.bulk_import)
run in worker threads, and the product list after an upload."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import reflex as rx

from ...db import session_scope, write_session
from ...display import money_text
from ...models import User
from ...services import ServiceError, bulk_import, catalog
from ...config.settings import get_settings
from .product_form import AdminProductRow

log = logging.getLogger("discount_deals.admin")

JSON_UPLOAD_ACCEPT = {"application/json": [".json"]}
CSV_UPLOAD_ACCEPT = {"text/csv": [".csv"]}


def file_refusal() -> str:
    """What the file picker says when it refuses a file (wrong type, or over the bulk limit: the
    server would refuse a larger body before reading it, web/body_limits.py)."""
    return f"Please choose one .json or .csv file of at most {get_settings().bulk_max_bytes // (1024 * 1024)} MB."
# The result card lists at most this many problems (the per-client state stays small).
MAX_LISTED = 100


def listed(messages: list[str]) -> list[str]:
    if len(messages) <= MAX_LISTED:
        return messages
    return [*messages[:MAX_LISTED], f"... and {len(messages) - MAX_LISTED} more"]


def by_row(lines: list[str]) -> list[str]:
    """Result-card lines in the order of their rows ("Product 3: ..." before "Product 12 (...)")."""
    def row(line: str) -> int:
        found = _ROW_NUMBER.match(line)
        return int(found.group(1)) if found else 0

    return sorted(lines, key=row)


_ROW_NUMBER = re.compile(r"^\w+ (\d+)\b")


def upload_notes(kind: str, not_imported: int, placeholder_count: int) -> list[str]:
    """What else happened to the rows, in words that match it."""
    noun = "product" if kind == "product" else "category"
    plural = {"product": "products", "category": "categories"}[noun]
    notes = []
    if not_imported:
        notes.append(f"{not_imported} {noun if not_imported == 1 else plural} not imported: see the problems below.")
    if placeholder_count:
        one = placeholder_count == 1
        notes.append(f"{placeholder_count} {noun if one else plural} without an image URL "
                     f"{'shows' if one else 'show'} the placeholder picture.")
    return notes


def imported_note(created: int, rows: int) -> str:
    """The card's line on how many rows went in (a CSV upload)."""
    if not created:
        return "No rows were imported."
    return f"{created} of {rows} row{'' if rows == 1 else 's'} imported."


def placeholders(result: bulk_import.ImportResult, rows: list[dict[str, Any]]) -> int:
    """How many created products were uploaded without an image URL (they got the placeholder)."""
    return sum(1 for created in result.created
               if isinstance(created, bulk_import.CreatedProduct) and not str(rows[created.index].get("image_url") or "").strip())


def other_product_problems(admin: User, rows: list[Any], positions: list[int], skip: set[tuple[int, str]],
                           numbers: bulk_import.RowNumbers) -> tuple[list[str], list[bulk_import.RowProblem]]:
    """Runs in a worker thread: the importer's other checks of rows that are not imported."""
    with session_scope() as session:
        return bulk_import.problems_of_unimported(session, admin, rows, positions, skip, numbers)


def template_categories() -> list[str]:
    """Names of existing categories for the product templates (the demo's when there are none)."""
    with session_scope() as session:
        found, _count = catalog.list_categories(session, limit=2)
    return [c.name for c in found] or ["Groceries", "Beverages"]


def read_rows(method: str, json_text: str, csv_data: bytes,
              kind: str) -> tuple[list | None, tuple[str, str] | None, bulk_import.RowNumbers]:
    """The uploaded rows, or a toast (title, description) saying why there are none; and how the
    card numbers the rows (a CSV file's as a spreadsheet does, JSON items from 1)."""
    plural = "products" if kind == "product" else "categories"
    if method == "csv":
        numbers = bulk_import.RowNumbers.sheet()
        if not csv_data:
            return None, ("Error", "Please select a CSV file"), numbers
        parse = bulk_import.parse_products_csv if kind == "product" else bulk_import.parse_categories_csv
        try:
            return parse(csv_data, numbers), None, numbers
        except ServiceError as exc:
            return None, ("Error", exc.detail), numbers
    numbers = bulk_import.RowNumbers.items(kind)
    if not json_text.strip():
        return None, ("Error", "Please enter JSON data or upload a file"), numbers
    try:
        rows = json.loads(json_text)
    except ValueError:
        return None, ("Invalid JSON", "Please check your JSON format"), numbers
    if not isinstance(rows, list):
        return None, ("Error", f"Data must be an array of {plural}"), numbers
    return rows, None, numbers


async def read_upload(files: list[rx.UploadFile]) -> tuple[str, bytes] | str:
    """The first uploaded file's name and bytes, or the reason it was refused."""
    if not files:
        return "No file was received."
    limit = get_settings().bulk_max_bytes
    upload = files[0]
    data = await upload.read(limit + 1)
    if len(data) > limit:
        return f"The file is too large: at most {limit // (1024 * 1024)} MB per upload."
    return (upload.name or "upload", data)


def import_rows(kind: str, admin: User, rows: list[dict[str, Any]]) -> bulk_import.ImportResult:
    with write_session() as session:
        if kind == "product":
            return bulk_import.import_products(session, admin, rows)
        return bulk_import.import_categories(session, admin, rows)


def resolve_categories(checked: bulk_import.CheckedRows, numbers: bulk_import.RowNumbers) -> bulk_import.CheckedRows:
    with session_scope() as session:
        return bulk_import.resolve_product_categories(session, checked, numbers)


def refresh_products(products: Any, admin: User, result: bulk_import.ImportResult, rows: list[dict[str, Any]]) -> str:
    """Reload the product list (an AdminProductsState) after an upload (SPEC §4): "updated", or
    "added" when the reload failed and the new products were put at the top of the list
    instead, or "failed"."""
    try:
        products.page = 1
        products._fill(admin)
        return "updated"
    except Exception:
        log.exception("product list refresh after a bulk upload failed")
    try:
        added = [row_from_upload(rows[p.index], p.id) for p in result.created]
        products.rows = [*added, *products.rows][: max(len(products.rows), len(added))]
        products.total += len(added)
        return "added" if added else "failed"
    except Exception:
        log.exception("adding uploaded products to the list failed")
        return "failed"


def row_from_upload(row: dict[str, Any], product_id: str) -> AdminProductRow:
    """A list row for a product just uploaded, from what was uploaded (the database is not read:
    this is the fallback for when reading it just failed)."""
    discount = row.get("discount_price")
    return AdminProductRow(
        id=product_id,
        name=str(row.get("name") or "").strip(),
        description=str(row.get("description") or ""),
        image_url=str(row.get("image_url") or "") or get_settings().placeholder_image_url,
        status=str(row.get("status") or "active"),
        category=str(row.get("category_name") or ""),
        price_text=money_or_text(row.get("price")),
        discount_text="" if discount in (None, "") else money_or_text(discount),
    )


def money_or_text(value: Any) -> str:
    try:
        return money_text(catalog.parse_money(value))
    except ValueError:
        return str(value)
