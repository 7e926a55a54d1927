"""Upload files as rows: CSV via pandas (SPEC §5: the first line holds the column names).

Quoted fields may contain commas, quotes and line breaks; blank lines are skipped, but counted
so that each row keeps the number a spreadsheet shows for it (:class:`.report.RowNumbers`);
cells that an export escaped against spreadsheet formulas (``services.csv_cells``) are read
back as they were. Product cells become the types the importer validates (flags, lists); the
rest stays text. A flag cell must read true/false, yes/no or 1/0 (any case; blank is false):
anything else is an :class:`.importers.UnreadCell` the importer refuses the row for.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterator, Mapping
from typing import IO, Any

import pandas as pd

from ...config.settings import get_settings
from .. import ServiceError, ValidationFailed
from ..catalog import comma_list
from ..csv_cells import unescape_cell
from .importers import CHUNK_ROWS, UnreadCell
from .report import RowNumbers

_LIST_COLUMNS = {"tags", "related_products"}
_BOOL_COLUMNS = {"is_available", "is_featured"}
_FLAG_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False, "": False}
FLAG_MESSAGE = "Must be true, false, yes, no, 1 or 0."
_CSV_OPTIONS: dict[str, Any] = {
    "dtype": str,
    "keep_default_na": False,
    # Blank lines come through as rows of blanks: skipped by _frame_records, but counted.
    "skip_blank_lines": False,
    "encoding": "utf-8-sig",
    "quoting": csv.QUOTE_MINIMAL,
}


def _csv_error(exc: Exception) -> ValidationFailed:
    if isinstance(exc, pd.errors.EmptyDataError):
        return ValidationFailed("The CSV file is empty: its first line must hold the column names.")
    if isinstance(exc, UnicodeDecodeError):
        return ValidationFailed("The CSV file must be UTF-8 text.")
    return ValidationFailed(f"The CSV file could not be read: {str(exc).strip().splitlines()[0]}")


def _column_names(frame: pd.DataFrame) -> list[str]:
    """The header's names, as the rows are keyed (trimmed, lower case). A name given twice is
    refused: only one of its cells would be read, without a word (pandas calls the second
    "price.1"; "Price" and "price" are one name here)."""
    headers = [str(column).strip().lower() for column in frame.columns]
    for index, name in enumerate(headers):
        mangled = re.fullmatch(r"(.+)\.\d+", name)
        twice = name in headers[:index] or (mangled is not None and mangled.group(1) in headers)
        if twice:
            shown = mangled.group(1) if mangled is not None and mangled.group(1) in headers else name
            raise ValidationFailed(f'The CSV file names the column "{shown}" twice: keep one.')
    return headers


def _frame_records(frame: pd.DataFrame) -> Iterator[dict[str, str] | None]:
    """Each row's cells, None for a row of blanks (a blank line)."""
    headers = _column_names(frame)
    for cells in frame.itertuples(index=False, name=None):
        # Exports escape formula-like text with an apostrophe (services.csv_cells): undo it.
        texts = [unescape_cell(cell) if isinstance(cell, str) else "" for cell in cells]
        yield dict(zip(headers, texts, strict=True)) if any(text.strip() for text in texts) else None


def _skip_leading_blank_lines(source: IO[bytes]) -> int:
    """Move past the blank lines before the header (pandas would take the first for it); how many."""
    if not source.seekable():
        return 0
    skipped = 0
    while True:
        start = source.tell()
        line = source.readline()
        if not line or line.replace(b"\xef\xbb\xbf", b"").strip():
            source.seek(start)
            return skipped
        skipped += 1


def iter_numbered_records(source: IO[bytes], numbers: RowNumbers | None = None,
                          chunk_rows: int = CHUNK_ROWS) -> Iterator[dict[str, str]]:
    """One dict of text cells per data row of a CSV file (SPEC §5: the first line holds the
    headers; blank lines are skipped), read ``chunk_rows`` at a time; ``numbers`` learns each
    row's spreadsheet number as it is read. Quoted fields may contain commas, quotes and line
    breaks. Raises ValidationFailed for an unreadable file."""
    number = _skip_leading_blank_lines(source) + 2  # the header is row 1 (after blank lines)
    position = 0
    try:
        with pd.read_csv(source, chunksize=chunk_rows, **_CSV_OPTIONS) as reader:
            for frame in reader:
                if not isinstance(frame.index, pd.RangeIndex):
                    # pandas took the first cells of rows longer than the header for an index, and
                    # would have shifted every value one column left.
                    raise ValidationFailed(f"The CSV file could not be read: row {number} has more cells than "
                                           "the first line has column names.")
                for record in _frame_records(frame):
                    if record is not None:
                        if numbers is not None:
                            numbers.place(position, number)
                        position += 1
                        yield record
                    number += 1
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise _csv_error(exc) from None


def iter_csv_records(source: IO[bytes], chunk_rows: int = CHUNK_ROWS) -> Iterator[dict[str, str]]:
    """The data rows of a CSV file (:func:`iter_numbered_records`)."""
    return iter_numbered_records(source, chunk_rows=chunk_rows)


def _read_csv(data: bytes, numbers: RowNumbers | None = None) -> list[dict[str, str]]:
    """An uploaded CSV file's records (at most the upload's row limit)."""
    settings = get_settings()
    if len(data) > settings.bulk_max_bytes:
        raise ServiceError(
            f"The file is too large: at most {settings.bulk_max_bytes // (1024 * 1024)} MB per upload.", status=413
        )
    records = list(itertools.islice(iter_numbered_records(io.BytesIO(data), numbers), settings.bulk_max_rows + 1))
    if len(records) > settings.bulk_max_rows:
        raise ValidationFailed(f"Too many rows: at most {settings.bulk_max_rows:,} per upload.")
    return records


def _flag(text: str) -> bool | UnreadCell:
    word = text.strip().lower()
    return _FLAG_WORDS[word] if word in _FLAG_WORDS else UnreadCell(text, FLAG_MESSAGE)


def product_row_from_csv(record: Mapping[str, str]) -> dict[str, Any]:
    """A CSV record as a product row: is_available and is_featured read true/yes/1 and
    false/no/0 (any case; blank is false, anything else an :class:`UnreadCell`); tags and
    related_products are comma-separated lists; every other cell stays text for validation."""
    row: dict[str, Any] = {}
    for column, text in record.items():
        if column in _BOOL_COLUMNS:
            row[column] = _flag(text)
        elif column in _LIST_COLUMNS:
            row[column] = comma_list(text)
        else:
            row[column] = text
    return row


def parse_products_csv(data: bytes, numbers: RowNumbers | None = None) -> list[dict[str, Any]]:
    """Product rows from an uploaded CSV file, ready for :func:`import_products`; ``numbers``
    learns their spreadsheet row numbers.

    Raises ValidationFailed for an unreadable file or too many rows, and a 413 ServiceError for
    a file over the size limit.
    """
    return [product_row_from_csv(record) for record in _read_csv(data, numbers)]


def iter_products_csv(source: IO[bytes], numbers: RowNumbers | None = None) -> Iterator[dict[str, Any]]:
    """Product rows streamed from a CSV file of any length (the command line's import)."""
    return (product_row_from_csv(record) for record in iter_numbered_records(source, numbers))


def parse_categories_csv(data: bytes, numbers: RowNumbers | None = None) -> list[dict[str, Any]]:
    """Category rows (name, slug, description, parent) from a CSV file."""
    return [dict(record) for record in _read_csv(data, numbers)]
