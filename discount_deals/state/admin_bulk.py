"""Admin Bulk Upload Products / Categories tabs (SPEC §2, §4, §5, §8).

An upload runs as a background event so each progress checkpoint (0, 25, 50, 100) reaches the
browser as it happens; the database work runs in a worker thread. Parsing (pandas for CSV), the
checks and the inserts are services.bulk_import, the same code as the API's bulk endpoints.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from typing import Any, ClassVar

import reflex as rx

from ..db import session_scope, write_session
from ..models import User
from ..services import ServiceError, bulk_import, catalog
from ..settings import get_settings
from .actions import toast
from .admin import NotAdmin, require_admin
from .admin_catalog import AdminCategoriesState, AdminProductRow, AdminProductsState
from ..display import money_text

log = logging.getLogger("discount_deals.admin")

VALIDATING = "Validating products..."
RESOLVING = "Resolving category names..."
UPLOADING = "Uploading to server..."
COMPLETE = "Complete!"
# Each checkpoint stays on screen at least this long, so that even a small upload (done in a few
# milliseconds) shows its steps instead of jumping from 0 to 100.
STEP_PAUSE_S = 0.15
# The result card lists at most this many problems (the per-client state stays small).
MAX_LISTED = 100

JSON_UPLOAD_ACCEPT = {"application/json": [".json"]}
CSV_UPLOAD_ACCEPT = {"text/csv": [".csv"]}


@dataclasses.dataclass
class BulkResult:
    shown: bool = False
    success: bool = False
    message: str = ""
    errors: list[str] = dataclasses.field(default_factory=list)


def _listed(messages: list[str]) -> list[str]:
    if len(messages) <= MAX_LISTED:
        return messages
    return [*messages[:MAX_LISTED], f"... and {len(messages) - MAX_LISTED} more"]


def _template_categories() -> list[str]:
    """Names of existing categories for the product templates (the demo's when there are none)."""
    with session_scope() as session:
        found, _count = catalog.list_categories(session, limit=2)
    return [c.name for c in found] or ["Groceries", "Beverages"]


def read_rows(method: str, json_text: str, csv_data: bytes, kind: str) -> tuple[list | None, tuple[str, str] | None]:
    """The uploaded rows, or a toast (title, description) saying why there are none."""
    plural = "products" if kind == "product" else "categories"
    if method == "csv":
        if not csv_data:
            return None, ("Error", "Please select a CSV file")
        parse = bulk_import.parse_products_csv if kind == "product" else bulk_import.parse_categories_csv
        try:
            return parse(csv_data), None
        except ServiceError as exc:
            return None, ("Error", exc.detail)
    if not json_text.strip():
        return None, ("Error", "Please enter JSON data or upload a file")
    try:
        rows = json.loads(json_text)
    except ValueError:
        return None, ("Invalid JSON", "Please check your JSON format")
    if not isinstance(rows, list):
        return None, ("Error", f"Data must be an array of {plural}")
    return rows, None


async def _read_upload(files: list[rx.UploadFile]) -> tuple[str, bytes] | str:
    """The first uploaded file's name and bytes, or the reason it was refused."""
    if not files:
        return "No file was received."
    limit = get_settings().bulk_max_bytes
    upload = files[0]
    data = await upload.read(limit + 1)
    if len(data) > limit:
        return f"The file is too large: at most {limit // (1024 * 1024)} MB per upload."
    return (upload.name or "upload", data)


def _toast(title: str, description: str, kind: str = "error"):
    return toast((title, description, kind))


class _BulkUpload(rx.State, mixin=True):
    """The input side both upload tabs share: JSON text or file, or a CSV file (each tab is its
    own flat state built from this mixin)."""

    method: str = "json"
    json_text: str = ""
    json_file_name: str = ""
    csv_name: str = ""
    _csv_data: bytes = b""
    uploading: bool = False
    progress: int = 0
    result: BulkResult = rx.field(default_factory=BulkResult)

    @rx.var
    def has_input(self) -> bool:
        return bool(self.csv_name) if self.method == "csv" else self.json_text != ""

    @rx.var
    def show_progress(self) -> bool:
        return self.uploading or self.progress == 100

    @rx.event
    async def set_method(self, method: str):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        if method in ("json", "csv") and not self.uploading:
            self.method = method

    @rx.event
    async def set_json_text(self, text: str):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        self.json_text = text

    @rx.event
    async def pick_json_file(self, files: list[rx.UploadFile]):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        read = await _read_upload(files)
        if isinstance(read, str):
            return _toast("Error", read)
        name, data = read
        try:
            self.json_text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return _toast("Error", "The file must be UTF-8 text.")
        self.json_file_name = name

    @rx.event
    async def pick_csv_file(self, files: list[rx.UploadFile]):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        read = await _read_upload(files)
        if isinstance(read, str):
            return _toast("Error", read)
        name, data = read
        if not data.strip():
            self.csv_name, self._csv_data = "", b""
            return _toast("Error", "Please select a CSV file")
        self.csv_name, self._csv_data = name, data

    def _clear_input(self) -> None:
        self.json_text = ""
        self.json_file_name = ""
        self.csv_name = ""
        self._csv_data = b""

    def _stop(self, message: str | None = None, errors: list[str] | None = None) -> None:
        """End an upload that did not reach the server (the progress bar goes away)."""
        self.uploading = False
        self.progress = 0
        if message is not None:
            self.result = BulkResult(shown=True, success=False, message=message, errors=_listed(errors or []))

    # --- the one upload pipeline (SPEC §4, §5) ------------------------------------------------------
    # Both tabs run the same steps: read the input, check the required fields, prepare the rows
    # (products resolve their category names), import, report. What differs is in the hooks below.

    KIND: ClassVar[str] = "product"  # or "category"

    async def _checkpoint(self, progress: int, stage: str = "") -> None:
        """Show a progress checkpoint, then leave it on screen a moment."""
        async with self:
            self.progress = progress
            self._at_stage(stage)
        await asyncio.sleep(STEP_PAUSE_S)

    def _at_stage(self, stage: str) -> None:
        """Products name each step; categories show their percentage (a computed var)."""

    async def _before_check(self) -> None:
        """A checkpoint before the required-field check (categories)."""

    async def _prepare(self, checked: bulk_import.CheckedRows) -> bulk_import.CheckedRows | _Refusal:
        """The rows to import, or why the upload stops (products resolve category names here)."""
        return checked

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        """Refresh the lists the upload changed (under the state lock); the toasts to show."""
        return []

    @rx.event(background=True)
    async def upload(self):
        """Read, check, prepare, import; progress 0 → 25 → 50 → 100 (SPEC §4)."""
        kind = self.KIND
        plural = "products" if kind == "product" else "categories"
        async with self:
            if self.uploading:
                return
            try:
                admin = await require_admin(self)
            except NotAdmin as refused:
                yield refused.redirect
                return
            method, json_text, csv_data = self.method, self.json_text, self._csv_data
            self.uploading, self.progress = True, 0
            self._at_stage(VALIDATING)
            self.result = BulkResult()
        await asyncio.sleep(STEP_PAUSE_S)

        rows, problem = await asyncio.to_thread(read_rows, method, json_text, csv_data, kind)
        if rows is None:
            async with self:
                self._stop()
            yield _toast(*problem)
            return
        await self._before_check()
        checked = bulk_import.check_required_fields(rows, kind)
        if not checked.rows:
            async with self:
                self._stop("Validation failed", checked.messages)
            yield _toast("Validation Error", f"No valid {plural} found")
            return
        prepared = await self._prepare(checked)
        if isinstance(prepared, _Refusal):
            async with self:
                self._stop(prepared.message, prepared.errors)
            yield _toast(*prepared.toast)
            return

        try:
            result = await asyncio.to_thread(_import, kind, admin, prepared.rows)
        except ServiceError as exc:
            async with self:
                self._stop(exc.detail, checked.messages)
            yield _toast("Upload Failed", exc.detail)
            return
        except Exception as exc:
            log.exception("bulk %s upload failed", kind)
            async with self:
                self._stop(str(exc) or "Upload failed", checked.messages)
            yield _toast("Upload Failed", str(exc) or "Upload failed")
            return

        refused = bulk_import.refused_row_messages(result, prepared.rows, prepared.positions, kind)
        created = len(result.created)
        toasts: list[Any] = []
        async with self:
            self.progress, self.uploading = 100, False
            self._at_stage(COMPLETE)
            self.result = BulkResult(
                shown=True,
                success=created > 0,
                message=f"Upload completed: {created} created, {len(result.errors)} already exist",
                errors=_listed(checked.messages + refused),
            )
            if created:
                self._clear_input()
                toasts = await self._after_import(admin, result, prepared.rows)
        if not created:
            yield _toast("Upload Failed", result.detail)
        for event in toasts:
            yield event


@dataclasses.dataclass(frozen=True)
class _Refusal:
    """Why an upload stops before the server call: the result card's message and lines, a toast."""

    message: str
    errors: list[str]
    toast: tuple[str, str]


def _import(kind: str, admin: User, rows: list[dict[str, Any]]) -> bulk_import.ImportResult:
    with write_session() as session:
        if kind == "product":
            return bulk_import.import_products(session, admin, rows)
        return bulk_import.import_categories(session, admin, rows)


class BulkProductsState(_BulkUpload, rx.State):
    KIND: ClassVar[str] = "product"
    stage: str = ""

    @rx.event
    async def download_template(self, fmt: str):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        fmt = "csv" if fmt == "csv" else "json"
        text = bulk_import.products_template(_template_categories(), fmt)
        mime = "text/csv" if fmt == "csv" else "application/json"
        return rx.download(data=text, filename=f"products-template.{fmt}", mime_type=mime)

    def _stop(self, message: str | None = None, errors: list[str] | None = None) -> None:
        super()._stop(message, errors)
        self.stage = ""

    def _at_stage(self, stage: str) -> None:
        if stage:
            self.stage = stage

    async def _prepare(self, checked: bulk_import.CheckedRows) -> bulk_import.CheckedRows | _Refusal:
        await self._checkpoint(25, RESOLVING)
        try:
            resolved = await asyncio.to_thread(_resolve_categories, checked)
        except Exception:
            log.exception("bulk upload: categories could not be read")
            failed = "Failed to fetch categories from server"
            return _Refusal(failed, [], ("Error", failed))
        if resolved.messages:
            return _Refusal("Category resolution failed", checked.messages + resolved.messages,
                            ("Category Resolution Error", f"{len(resolved.messages)} products have invalid categories"))
        if not resolved.rows:
            none = "No products with valid categories found"
            return _Refusal(none, checked.messages, ("No Valid Products", none))
        await self._checkpoint(50, UPLOADING)
        return resolved

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        products = await self.get_state(AdminProductsState)
        refreshed = _refresh_products(products, admin, result, rows)
        if refreshed == "updated":
            return [_toast("Products Updated", "The product list has been refreshed.", "success")]
        if refreshed == "added":
            return [_toast("Products Added", f"{len(result.created)} products were added to the list.", "success")]
        return [_toast("Warning", "Products uploaded but refresh failed. Please refresh the page manually.", "warning")]


def _resolve_categories(checked: bulk_import.CheckedRows) -> bulk_import.CheckedRows:
    with session_scope() as session:
        return bulk_import.resolve_product_categories(session, checked)


def _row_from_upload(row: dict[str, Any], product_id: str) -> AdminProductRow:
    """A list row for a product just uploaded, from what was uploaded (the database is not read:
    this is the fallback for when reading it just failed)."""
    discount = row.get("discount_price")
    return AdminProductRow(
        id=product_id,
        name=str(row.get("name") or "").strip(),
        description=str(row.get("description") or ""),
        image_url=str(row.get("image_url") or "") or "/placeholder.webp",
        status=str(row.get("status") or "active"),
        category=str(row.get("category_name") or ""),
        price_text=_money_or_text(row.get("price")),
        discount_text="" if discount in (None, "") else _money_or_text(discount),
    )


def _money_or_text(value: Any) -> str:
    try:
        return money_text(catalog.parse_money(value))
    except ValueError:
        return str(value)


def _refresh_products(
    products: AdminProductsState, admin: User, result: bulk_import.ImportResult, rows: list[dict[str, Any]]
) -> str:
    """Reload the product list after an upload (SPEC §4): "updated", or "added" when the reload
    failed and the new products were put at the top of the list instead, or "failed"."""
    try:
        products.page = 1
        products._load_rows(admin)
        return "updated"
    except Exception:
        log.exception("product list refresh after a bulk upload failed")
    try:
        added = [_row_from_upload(rows[p.index], p.id) for p in result.created]
        products.rows = [*added, *products.rows][: max(len(products.rows), len(added))]
        products.count += len(added)
        return "added" if added else "failed"
    except Exception:
        log.exception("adding uploaded products to the list failed")
        return "failed"


class BulkCategoriesState(_BulkUpload, rx.State):
    KIND: ClassVar[str] = "category"

    @rx.var
    def stage(self) -> str:
        return f"{self.progress}% complete"

    @rx.event
    async def download_template(self, fmt: str):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        fmt = "csv" if fmt == "csv" else "json"
        mime = "text/csv" if fmt == "csv" else "application/json"
        return rx.download(data=bulk_import.categories_template(fmt), filename=f"categories-template.{fmt}", mime_type=mime)

    async def _before_check(self) -> None:
        await self._checkpoint(25)

    async def _prepare(self, checked: bulk_import.CheckedRows) -> bulk_import.CheckedRows | _Refusal:
        await self._checkpoint(50)
        return checked

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        try:
            categories = await self.get_state(AdminCategoriesState)
            categories._fetch()
            products = await self.get_state(AdminProductsState)
            products._load_categories()
        except Exception:
            log.exception("category lists refresh after a bulk upload failed")
        return []
