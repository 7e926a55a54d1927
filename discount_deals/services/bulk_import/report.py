"""The error report of a bulk upload: one CSV line per problem (row, field, message), the same
for the command line's ``import-products --errors FILE`` and the back office's download.

Rows are numbered from 1 as uploaded (the header line of a CSV file is not counted); a problem
with the row as a whole has no field. Cells are escaped against spreadsheet formulas
(``services.csv_cells``): names come from the upload.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from ..csv_cells import escape_cell
from .importers import ImportResult

REPORT_COLUMNS = ("row", "field", "message")


@dataclass(frozen=True)
class RowProblem:
    row: int  # 1-based, as uploaded
    field: str  # "" for the row as a whole
    message: str


def result_problems(result: ImportResult, positions: Sequence[int] | None = None) -> list[RowProblem]:
    """The importer's refusals, one per row and field (its messages joined); ``positions`` maps
    the imported rows back to the upload's when only some of them were imported."""
    problems = []
    for error in result.errors:
        index = error["index"]
        row = (positions[index] if positions is not None else index) + 1
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
