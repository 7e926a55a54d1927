"""Upload files as rows: CSV via pandas (SPEC §5: the first line holds the column names).

Quoted fields may contain commas, quotes and line breaks; blank lines are skipped; cells that
an export escaped against spreadsheet formulas (``services.csv_cells``) are read back as they
were. Product cells become the types the importer validates (flags, lists); the rest stays text.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterator, Mapping
from typing import IO, Any

import pandas as pd

from ...settings import get_settings
from .. import ServiceError, ValidationFailed
from ..catalog import comma_list
from ..csv_cells import unescape_cell
from .importers import CHUNK_ROWS

_LIST_COLUMNS = {"tags", "related_products"}
_BOOL_COLUMNS = {"is_available", "is_featured"}
_CSV_OPTIONS: dict[str, Any] = {
    "dtype": str,
    "keep_default_na": False,
    "skip_blank_lines": True,
    "encoding": "utf-8-sig",
    "quoting": csv.QUOTE_MINIMAL,
}


def _csv_error(exc: Exception) -> ValidationFailed:
    if isinstance(exc, pd.errors.EmptyDataError):
        return ValidationFailed("The CSV file is empty: its first line must hold the column names.")
    if isinstance(exc, UnicodeDecodeError):
        return ValidationFailed("The CSV file must be UTF-8 text.")
    return ValidationFailed(f"The CSV file could not be read: {str(exc).strip().splitlines()[0]}")


def _frame_records(frame: pd.DataFrame) -> Iterator[dict[str, str]]:
    headers = [str(column).strip().lower() for column in frame.columns]
    for cells in frame.itertuples(index=False, name=None):
        # Exports escape formula-like text with an apostrophe (services.csv_cells): undo it.
        texts = [unescape_cell(cell) if isinstance(cell, str) else "" for cell in cells]
        if any(text.strip() for text in texts):  # lines of blanks count as blank lines
            yield dict(zip(headers, texts, strict=True))


def iter_csv_records(source: IO[bytes] | str, chunk_rows: int = CHUNK_ROWS) -> Iterator[dict[str, str]]:
    """One dict of text cells per data row of a CSV file (SPEC §5: the first line holds the
    headers; blank lines are skipped), read ``chunk_rows`` at a time. Quoted fields may contain
    commas, quotes and line breaks. Raises ValidationFailed for an unreadable file."""
    try:
        with pd.read_csv(source, chunksize=chunk_rows, **_CSV_OPTIONS) as reader:
            for frame in reader:
                yield from _frame_records(frame)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise _csv_error(exc) from None


def _read_csv(data: bytes) -> list[dict[str, str]]:
    """An uploaded CSV file's records (at most the upload's row limit)."""
    settings = get_settings()
    if len(data) > settings.bulk_max_bytes:
        raise ServiceError(
            f"The file is too large: at most {settings.bulk_max_bytes // (1024 * 1024)} MB per upload.", status=413
        )
    records = list(itertools.islice(iter_csv_records(io.BytesIO(data)), settings.bulk_max_rows + 1))
    if len(records) > settings.bulk_max_rows:
        raise ValidationFailed(f"Too many rows: at most {settings.bulk_max_rows:,} per upload.")
    return records


def product_row_from_csv(record: Mapping[str, str]) -> dict[str, Any]:
    """A CSV record as a product row: is_available and is_featured are true only for the text
    "true" (any case); tags and related_products are comma-separated lists; every other cell
    stays text for validation."""
    row: dict[str, Any] = {}
    for column, text in record.items():
        if column in _BOOL_COLUMNS:
            row[column] = text.strip().lower() == "true"
        elif column in _LIST_COLUMNS:
            row[column] = comma_list(text)
        else:
            row[column] = text
    return row


def parse_products_csv(data: bytes) -> list[dict[str, Any]]:
    """Product rows from an uploaded CSV file, ready for :func:`import_products`.

    Raises ValidationFailed for an unreadable file or too many rows, and a 413 ServiceError for
    a file over the size limit.
    """
    return [product_row_from_csv(record) for record in _read_csv(data)]


def iter_products_csv(source: IO[bytes] | str) -> Iterator[dict[str, Any]]:
    """Product rows streamed from a CSV file of any length (the command line's import)."""
    return (product_row_from_csv(record) for record in iter_csv_records(source))


def parse_categories_csv(data: bytes) -> list[dict[str, Any]]:
    """Category rows (name, slug, description, parent) from a CSV file."""
    return [dict(record) for record in _read_csv(data)]
