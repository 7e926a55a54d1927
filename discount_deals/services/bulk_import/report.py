"""The error report of a bulk upload: one CSV line per problem (row, field, message), the same
for the command line's ``import-products --errors FILE`` and the back office's download, and
the heading that sums it up on the back office's result card.

Rows are numbered as people find them (:class:`RowNumbers`): a JSON upload's items from 1
("Product 3", SPEC §5), a CSV file's rows as a spreadsheet shows them ("Row 4": the header is
row 1, blank lines count). A problem with the row as a whole has no field. Cells are escaped
against spreadsheet formulas (``services.csv_cells``): names come from the upload.
"""

from __future__ import annotations

import csv
import io
import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from ..csv_cells import escape_cell
from .importers import ImportResult

REPORT_COLUMNS = ("row", "field", "message")


class RowNumbers:
    """The number people know each upload position by, and what they call a row.

    ``RowNumbers("Product")`` counts items from 1; :meth:`sheet` numbers a CSV file's data rows
    from 2, and its reader tells it where blank lines made the numbers jump (only the jumps are
    kept: memory stays flat however long the file is)."""

    def __init__(self, label: str, first: int = 1):
        self.label = label
        self._starts = [0]  # positions where a run of consecutive numbers starts
        self._firsts = [first]  # the number of each run's first position

    @classmethod
    def sheet(cls) -> RowNumbers:
        return cls("Row", first=2)

    @classmethod
    def items(cls, kind: str) -> RowNumbers:
        return cls("Product" if kind == "product" else "Category")

    @property
    def is_sheet(self) -> bool:
        return self.label == "Row"

    def place(self, position: int, number: int) -> None:
        """Position ``position`` (given in increasing order) is row ``number``."""
        if self.number(position) != number:
            self._starts.append(position)
            self._firsts.append(number)

    def number(self, position: int) -> int:
        run = bisect.bisect_right(self._starts, position) - 1
        return self._firsts[run] + position - self._starts[run]

    def name(self, position: int) -> str:
        """"Product 3" / "Row 4"."""
        return f"{self.label} {self.number(position)}"


@dataclass(frozen=True)
class RowProblem:
    row: int  # as people know the row (RowNumbers)
    field: str  # "" for the row as a whole
    message: str


def result_problems(result: ImportResult, positions: Sequence[int] | None = None,
                    numbers: RowNumbers | None = None) -> list[RowProblem]:
    """The importer's refusals, one per row and field (its messages joined); ``positions`` maps
    the imported rows back to the upload's when only some of them were imported, ``numbers``
    the upload's positions to row numbers (items from 1 by default)."""
    numbers = numbers or RowNumbers("Product")
    problems = []
    for error in result.errors:
        index = error["index"]
        row = numbers.number(positions[index] if positions is not None else index)
        for field, messages in error["errors"].items():
            name = "" if field == "non_field_errors" else field
            problems.append(RowProblem(row, name, "; ".join(messages)))
    return problems


def write_error_report(problems: Iterable[RowProblem], out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(REPORT_COLUMNS)
    for problem in sorted(problems, key=lambda p: p.row):
        writer.writerow([problem.row, escape_cell(problem.field), escape_cell(problem.message)])


def error_report_csv(problems: Iterable[RowProblem]) -> str:
    out = io.StringIO()
    write_error_report(problems, out)
    return out.getvalue()


# What a problem is, for the heading: (kind, singular, plural) of "{n} rows ...".
_KINDS = (
    ("category", "has an unknown category", "have unknown categories"),
    ("required", "is missing required fields", "are missing required fields"),
    ("exists", "already exists", "already exist"),
    ("invalid", "has invalid values", "have invalid values"),
)


def _kind(problem: RowProblem) -> str:
    if problem.field == "category" and problem.message.rstrip(".").endswith("not found"):
        return "category"
    if problem.message.endswith("is required"):
        return "required"
    if problem.field == "name" and problem.message.rstrip(".").endswith("already exists"):
        return "exists"
    return "invalid"


def _rows(count: int) -> str:
    return f"{count} row{'' if count == 1 else 's'}"


def problems_heading(problems: Sequence[RowProblem]) -> tuple[str, list[str]]:
    """What the problems found are, as a heading ("2 rows have unknown categories", "3 rows have
    problems") and, when they are of several kinds, a line per kind ("Unknown categories: 1 row")."""
    rows_by_kind: dict[str, set[int]] = {}
    for problem in problems:
        rows_by_kind.setdefault(_kind(problem), set()).add(problem.row)
    count = len({problem.row for problem in problems})
    verb = "has" if count == 1 else "have"
    if len(rows_by_kind) != 1:
        by_kind = [f"{_rows(len(rows_by_kind[kind]))} {one if len(rows_by_kind[kind]) == 1 else many}."
                   for kind, one, many in _KINDS if kind in rows_by_kind]
        return f"{_rows(count)} {verb} problems", by_kind
    ((kind, _rows_of_kind),) = rows_by_kind.items()
    one, many = next((one, many) for name, one, many in _KINDS if name == kind)
    return f"{_rows(count)} {one if count == 1 else many}", []
