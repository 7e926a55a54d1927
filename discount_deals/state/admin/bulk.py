"""Admin Bulk Upload Products / Categories tabs (SPEC §2, §4, §5, §8).

An upload runs as a background event so each progress checkpoint (0, 25, 50, 100) reaches the
browser as it happens; the database work runs in a worker thread. Parsing (pandas for CSV), the
checks and the inserts are services.bulk_import, the same code as the API's bulk endpoints.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx

from ...models import User
from ...services import ServiceError, bulk_import
from ..actions import busy_call, toast
from ..guards import admin_event
from .bulk_input import (by_row, file_refusal, import_rows, imported_note, listed, other_product_problems,
                          placeholders, read_rows, read_upload, refresh_products, resolve_categories,
                          template_categories, upload_notes)
from .categories import AdminCategoriesState
from .gate import admin_tab
from .products import AdminProductsState

log = logging.getLogger("discount_deals.admin")

VALIDATING = "Validating products..."
RESOLVING = "Resolving category names..."
UPLOADING = "Uploading to server..."
COMPLETE = "Complete!"
# Each checkpoint stays on screen at least this long, so that even a small upload (done in a few
# milliseconds) shows its steps instead of jumping from 0 to 100.
STEP_PAUSE_S = 0.15



@dataclasses.dataclass
class BulkResult:
    shown: bool = False
    success: bool = False
    message: str = ""
    # What else happened to the rows ("2 not imported: see the problems below", placeholders).
    notes: list[str] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    report: bool = False  # an error report (row, field, message) can be downloaded


def _toast(title: str, description: str, kind: str = "error"):
    return toast((title, description, kind))


class _BulkUpload(rx.State, mixin=True):
    """The input side both upload tabs share: JSON text or file, or a CSV file (each tab is its
    own flat state built from this mixin)."""

    method: str = "json"
    json_text: str = ""
    input_version: int = 0  # bumped when the server fills or empties the (browser's) JSON field
    json_file_name: str = ""
    csv_name: str = ""
    _csv_data: bytes = b""
    uploading: bool = False
    progress: int = 0
    result: BulkResult = rx.field(default_factory=BulkResult)
    _report: str = ""  # the last upload's error report, as CSV

    @rx.var
    def has_input(self) -> bool:
        return bool(self.csv_name) if self.method == "csv" else self.json_text != ""

    @rx.var
    def show_progress(self) -> bool:
        return self.uploading or self.progress == 100

    @admin_event
    def set_method(self, admin: User, method: str):
        if method in ("json", "csv") and not self.uploading:
            self.method = method

    @admin_event
    def set_json_text(self, admin: User, text: str):
        self.json_text = text

    @admin_event
    def file_rejected(self, admin: User):
        return _toast("Error", file_refusal())  # the picker refused it (type or size) before uploading

    async def _pick(self, files: list[rx.UploadFile], take: Callable[[str, bytes], Any]):
        """The picked file to ``take`` (name, bytes), or why it was refused."""
        if not files:  # every picked file was refused by the picker: file_rejected says why
            return None
        read = await read_upload(files)
        return _toast("Error", read) if isinstance(read, str) else take(*read)

    @admin_event
    def pick_json_file(self, admin: User, files: list[rx.UploadFile]):
        return self._pick(files, self._take_json)

    def _take_json(self, name: str, data: bytes):
        try:
            self.json_text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return _toast("Error", "The file must be UTF-8 text.")
        self.json_file_name = name
        self.input_version += 1  # the field shows the file's JSON
        return None

    @admin_event
    def pick_csv_file(self, admin: User, files: list[rx.UploadFile]):
        return self._pick(files, self._take_csv)

    def _take_csv(self, name: str, data: bytes):
        if not data.strip():
            self.csv_name, self._csv_data = "", b""
            return _toast("Error", "Please select a CSV file")
        self.csv_name, self._csv_data = name, data
        return None

    def _template(self, fmt: str) -> str:
        """The upload template in ``fmt`` (csv or json), rows the importer accepts as they are."""
        raise NotImplementedError

    @admin_event
    def download_template(self, admin: User, fmt: str):
        fmt = "csv" if fmt == "csv" else "json"
        plural = "products" if self.KIND == "product" else "categories"

        def download():
            return rx.download(data=self._template(fmt), filename=f"{plural}-template.{fmt}",
                               mime_type="text/csv" if fmt == "csv" else "application/json")

        return busy_call(self, None, download, then=lambda event: event)

    def _clear_input(self) -> None:
        self.json_text = ""
        self.input_version += 1
        self.json_file_name = ""
        self.csv_name = ""
        self._csv_data = b""

    def _stop(self, message: str | None = None, errors: list[str] | None = None,
              problems: list[bulk_import.RowProblem] | None = None, notes: list[str] | None = None) -> None:
        """End an upload that did not reach the server (the progress bar goes away)."""
        self.uploading = False
        self.progress = 0
        if message is not None:
            self._report = bulk_import.error_report_csv(problems) if problems else ""
            self.result = BulkResult(shown=True, success=False, message=message, notes=notes or [],
                                     errors=listed(errors or []), report=bool(problems))

    @admin_event
    def download_report(self, admin: User):
        """The last upload's problems as CSV (row, field, message), as import-products --errors writes them."""
        if not self._report:
            return None
        plural = "products" if self.KIND == "product" else "categories"
        return rx.download(data=self._report, filename=f"{plural}-upload-errors.csv", mime_type="text/csv")

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

    async def _prepare(self, checked: bulk_import.CheckedRows,
                       numbers: bulk_import.RowNumbers) -> bulk_import.CheckedRows | _Refusal:
        """The rows to import, or why the upload stops (products resolve category names here)."""
        return checked

    async def _other_problems(self, admin: User, rows: list[Any], positions: list[int], skip: set[tuple[int, str]],
                              numbers: bulk_import.RowNumbers) -> tuple[list[str], list[bulk_import.RowProblem]]:
        """Every other problem of rows that will not be imported (products: the importer's checks,
        with nothing written), so that one pass names them all."""
        return [], []

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        """Refresh the lists the upload changed (under the state lock); the toasts to show."""
        return []

    @admin_event(background=True)
    async def upload(self, admin: User, json_text: str | None = None):
        """Read, check, prepare, import; progress 0 → 25 → 50 → 100 (SPEC §4). ``json_text``: the
        JSON field as it is when the button is pressed (the field is the browser's)."""
        if isinstance(json_text, str):
            async with self:
                self.json_text = json_text
        async for update in busy_call(self, "uploading", lambda: self._run_upload(admin), then=lambda toasts: toasts,
                                      failure=("Upload Failed", "Upload failed")):
            yield update

    async def _run_upload(self, admin: User) -> list[Any]:
        """The pipeline, the state lock taken only to change state; returns the toasts to show."""
        async with self:
            method, json_text, csv_data = self.method, self.json_text, self._csv_data
            self.progress = 0
            self._at_stage(VALIDATING)
            self.result = BulkResult()
        await asyncio.sleep(STEP_PAUSE_S)
        ready = await self._read_and_prepare(admin, method, json_text, csv_data)
        if isinstance(ready, _Refusal):
            return await self._stopped(ready)
        rows, numbers, checked, prepared = ready
        try:
            result = await asyncio.to_thread(import_rows, self.KIND, admin, prepared.rows)
        except ServiceError as exc:
            return await self._stopped(_Refusal(exc.detail, checked.messages, ("Upload Failed", exc.detail),
                                                checked.problems))
        except Exception as exc:
            log.exception("bulk %s upload failed", self.KIND)
            text = str(exc) or "Upload failed"
            return await self._stopped(_Refusal(text, checked.messages, ("Upload Failed", text), checked.problems))
        return await self._finish(admin, rows, numbers, checked, prepared, result)

    async def _read_and_prepare(self, admin: User, method: str, json_text: str, csv_data: bytes):
        """(the rows, their numbers, checked rows, rows to import), or why the upload stops before
        the server call (with every problem of every row)."""
        plural = "products" if self.KIND == "product" else "categories"
        rows, problem, numbers = await asyncio.to_thread(read_rows, method, json_text, csv_data, self.KIND)
        if rows is None:
            return _Refusal(None, [], problem)
        await self._before_check()
        # A CSV upload's blank image URL gets the placeholder (services.bulk_import.upload_steps).
        checked = bulk_import.check_required_fields(rows, self.KIND, image_required=method != "csv", numbers=numbers)
        if not checked.rows:
            refusal = _Refusal("Validation failed", checked.messages, ("Validation Error", f"No valid {plural} found"),
                               checked.problems)
        else:
            refusal = prepared = await self._prepare(checked, numbers)
        if isinstance(refusal, _Refusal):
            lines, problems = await self._other_problems(admin, rows, list(range(len(rows))),
                                                         bulk_import.reported_fields(refusal.problems), numbers)
            return _all_problems(refusal, by_row(refusal.errors + lines), refusal.problems + problems, numbers)
        return rows, numbers, checked, prepared

    async def _stopped(self, refusal: _Refusal) -> list[Any]:
        async with self:
            self._stop(refusal.message, refusal.errors, refusal.problems, refusal.notes)
        return [_toast(*refusal.toast)]

    async def _finish(self, admin: User, rows: list[Any], numbers: bulk_import.RowNumbers,
                      checked: bulk_import.CheckedRows, prepared: bulk_import.CheckedRows,
                      result: bulk_import.ImportResult) -> list[Any]:
        """Show the result card (its words say what happened to each row); refresh what changed."""
        reported = checked.problems + bulk_import.result_problems(result, prepared.positions, numbers)
        skipped = [position for position in range(len(rows)) if position not in set(checked.positions)]
        lines, problems = await self._other_problems(admin, [rows[p] for p in skipped], skipped,
                                                     bulk_import.reported_fields(reported), numbers)
        refused = bulk_import.refused_row_messages(result, prepared.rows, prepared.positions, self.KIND,
                                                   numbers=numbers)
        notes = upload_notes(self.KIND, len(skipped) + result.other_refusals, placeholders(result, prepared.rows))
        created = len(result.created)
        async with self:
            self.progress, self.uploading = 100, False
            self._at_stage(COMPLETE)
            self._report = bulk_import.error_report_csv(reported + problems) if reported + problems else ""
            self.result = BulkResult(
                shown=True,
                success=created > 0,
                # SPEC §4's sentence; "already exist" counts only the rows that do.
                message=f"Upload completed: {created} created, {len(result.duplicates)} already exist",
                notes=[*notes, imported_note(len(result.created), len(rows))] if numbers.is_sheet else notes,
                errors=listed(by_row(checked.messages + refused + lines)),
                report=bool(self._report),
            )
            if not created:
                return [_toast("Upload Failed", result.detail)]
            self._clear_input()
            return await self._after_import(admin, result, prepared.rows)


@dataclasses.dataclass(frozen=True)
class _Refusal:
    """Why an upload stops before the server call: the result card's message and lines, a toast,
    and the problems for the error report."""

    message: str | None  # None: no result card (nothing was read)
    errors: list[str]
    toast: tuple[str, str]
    problems: list[bulk_import.RowProblem] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


def _all_problems(refusal: _Refusal, errors: list[str], problems: list[bulk_import.RowProblem],
                  numbers: bulk_import.RowNumbers) -> _Refusal:
    """The refusal with every problem of every row. A CSV file's card is headed by what was found
    ("2 rows have unknown categories") and says that nothing was imported; a JSON upload keeps
    the spec's words ("Category resolution failed")."""
    if not (numbers.is_sheet and problems):
        return dataclasses.replace(refusal, errors=errors, problems=problems)
    heading, by_kind = bulk_import.problems_heading(problems)
    return dataclasses.replace(refusal, message=heading, errors=errors, problems=problems,
                               notes=[*by_kind, imported_note(0, 0)])


@admin_tab("bulk-products")
class BulkProductsState(_BulkUpload, rx.State):
    KIND: ClassVar[str] = "product"
    stage: str = ""

    def _template(self, fmt: str) -> str:
        return bulk_import.products_template(template_categories(), fmt)

    def _stop(self, message: str | None = None, errors: list[str] | None = None,
              problems: list[bulk_import.RowProblem] | None = None, notes: list[str] | None = None) -> None:
        super()._stop(message, errors, problems, notes)
        self.stage = ""

    def _at_stage(self, stage: str) -> None:
        if stage:
            self.stage = stage

    async def _prepare(self, checked: bulk_import.CheckedRows,
                       numbers: bulk_import.RowNumbers) -> bulk_import.CheckedRows | _Refusal:
        await self._checkpoint(25, RESOLVING)
        try:
            resolved = await asyncio.to_thread(resolve_categories, checked, numbers)
        except Exception:
            log.exception("bulk upload: categories could not be read")
            failed = "Failed to fetch categories from server"
            return _Refusal(failed, [], ("Error", failed))
        if resolved.messages:
            return _Refusal("Category resolution failed", checked.messages + resolved.messages,
                            ("Category Resolution Error", f"{len(resolved.messages)} products have invalid categories"),
                            checked.problems + resolved.problems)
        if not resolved.rows:
            none = "No products with valid categories found"
            return _Refusal(none, checked.messages, ("No Valid Products", none), checked.problems)
        await self._checkpoint(50, UPLOADING)
        return resolved

    async def _other_problems(self, admin: User, rows: list[Any], positions: list[int], skip: set[tuple[int, str]],
                              numbers: bulk_import.RowNumbers) -> tuple[list[str], list[bulk_import.RowProblem]]:
        return await asyncio.to_thread(other_product_problems, admin, rows, positions, skip, numbers)

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        products = await self.get_state(AdminProductsState)
        refreshed = refresh_products(products, admin, result, rows)
        if refreshed == "updated":
            return [_toast("Products Updated", "The product list has been refreshed.", "success")]
        if refreshed == "added":
            return [_toast("Products Added", f"{len(result.created)} products were added to the list.", "success")]
        return [_toast("Warning", "Products uploaded but refresh failed. Please refresh the page manually.", "warning")]


@admin_tab("bulk-categories")
class BulkCategoriesState(_BulkUpload, rx.State):
    KIND: ClassVar[str] = "category"

    @rx.var
    def stage(self) -> str:
        return f"{self.progress}% complete"

    def _template(self, fmt: str) -> str:
        return bulk_import.categories_template(fmt)

    async def _before_check(self) -> None:
        await self._checkpoint(25)

    async def _prepare(self, checked: bulk_import.CheckedRows,
                       numbers: bulk_import.RowNumbers) -> bulk_import.CheckedRows | _Refusal:
        await self._checkpoint(50)
        return checked

    async def _after_import(self, admin: User, result: bulk_import.ImportResult,
                            rows: list[dict[str, Any]]) -> list[Any]:
        try:
            await (await self.get_state(AdminCategoriesState))._changed(admin)
        except Exception:
            log.exception("category lists refresh after a bulk upload failed")
        return []
