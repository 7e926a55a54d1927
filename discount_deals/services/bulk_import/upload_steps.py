"""The admin screen's bulk upload steps (SPEC §4, §5).

The bulk upload screen checks an upload in the spec's steps before importing it: required fields
first ("Product {n}: Name is required"), then category names (products only). The importers
(:mod:`.importers`) still validate every row in full. Each step also keeps its problems as
:class:`.report.RowProblem` (row, field, message) for the downloadable error report.

A blank image URL: SPEC §5 has the JSON flow require one ("Image URL is required", the
original client's own check, kept for JSON uploads), while the product form and the server give
such a product the placeholder picture. A CSV upload follows the server: a blank image URL gets
the placeholder (``image_required=False``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, select

from ...models import Category
from .importers import CategoryIndex, ImportResult, check_products
from .report import RowNumbers, RowProblem, result_problems

PRODUCT_REQUIRED = (
    ("name", "Name is required"),
    ("description", "Description is required"),
    ("price", "Price is required"),
    ("category", "Category is required"),
    ("image_url", "Image URL is required"),
)
CATEGORY_REQUIRED = (
    ("name", "Name is required"),
    ("slug", "Slug is required"),
    ("description", "Description is required"),
)


@dataclass
class CheckedRows:
    """Rows that passed a step, with their 0-based positions in the upload, and the messages of
    those that did not (numbered as the screen shows them: :class:`.report.RowNumbers`)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def check_required_fields(rows: list[Any], kind: str = "product", *, image_required: bool = True,
                          numbers: RowNumbers | None = None) -> CheckedRows:
    """SPEC §5: each product needs name, description, price, category and image_url (not a CSV
    upload's image_url: see the module docstring); each category name, slug and description.
    Messages read "Product 2: Name is required, Price is required" ("Category 2: ..." for
    categories; "Row 3: ..." with a CSV file's ``numbers``)."""
    required = PRODUCT_REQUIRED if kind == "product" else CATEGORY_REQUIRED
    if not image_required:
        required = tuple(pair for pair in required if pair[0] != "image_url")
    numbers = numbers or RowNumbers.items(kind)
    checked = CheckedRows()
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping):
            checked.messages.append(f"{numbers.name(position)}: Each {kind} must be an object")
            checked.problems.append(RowProblem(numbers.number(position), "", f"Each {kind} must be an object"))
            continue
        problems = [(column, message) for column, message in required if _missing(row.get(column))]
        if problems:
            checked.messages.append(f"{numbers.name(position)}: {', '.join(message for _c, message in problems)}")
            checked.problems.extend(RowProblem(numbers.number(position), column, message)
                                    for column, message in problems)
            continue
        checked.rows.append(dict(row))
        checked.positions.append(position)
    return checked


def _row_name(row: Mapping[str, Any]) -> str:
    return str(row.get("name") or "").strip()


def resolve_product_categories(session: Session, checked: CheckedRows,
                               numbers: RowNumbers | None = None) -> CheckedRows:
    """Replace each row's category (a name or slug, any case, or an id) by the category's id.

    Unknown ones give "Product {n} ({name}): Category "{x}" not found" ("Row {n} ..." with a CSV
    file's ``numbers``); the screen stops the upload when there is any."""
    numbers = numbers or RowNumbers.items("product")
    index = CategoryIndex(list(session.exec(select(Category)).all()))
    resolved = CheckedRows()
    for row, position in zip(checked.rows, checked.positions, strict=True):
        category = index.resolve(row.get("category"))
        if category is None:
            value = row.get("category")
            shown = value.get("id") if isinstance(value, Mapping) else value
            resolved.messages.append(f'{numbers.name(position)} ({_row_name(row)}): Category "{shown}" not found')
            resolved.problems.append(RowProblem(numbers.number(position), "category", f'Category "{shown}" not found'))
            continue
        resolved.rows.append({**row, "category": category.id, "category_name": category.name})
        resolved.positions.append(position)
    return resolved


def refused_row_messages(result: ImportResult, rows: list[Any], positions: list[int], kind: str,
                         skip: set[tuple[int, str]] = frozenset(), numbers: RowNumbers | None = None) -> list[str]:
    """The importer's refusals as "Product {n} ({name}): price: {message} {message}" lines, every
    message of the row, numbered as uploaded (``numbers``); ``skip`` leaves out the (row, field)
    pairs an earlier step reported already."""
    numbers = numbers or RowNumbers.items(kind)
    lines = []
    for error in result.errors:
        index = error["index"]
        row = rows[index] if 0 <= index < len(rows) and isinstance(rows[index], Mapping) else {}
        number = numbers.number(positions[index])
        messages = [_named(name, m) for name, ms in error["errors"].items() if (number, name) not in skip for m in ms]
        if messages:
            lines.append(f"{numbers.name(positions[index])} ({_row_name(row)}): {' '.join(messages)}")
    return lines


def _named(field: str, message: str) -> str:
    """``price: Must not be negative.``: a message that does not say which field it is about
    gets the field's name in front."""
    words = field.replace("_", " ")
    if field == "non_field_errors" or words in message.lower():
        return message
    return f"{words}: {message}"


def reported_fields(problems: list[RowProblem]) -> set[tuple[int, str]]:
    """The (row, field) pairs already reported, in the importer's field names."""
    return {(p.row, p.field or "non_field_errors") for p in problems}


def problems_of_unimported(session: Session, actor: Any, rows: list[Any], positions: list[int],
                           skip: set[tuple[int, str]], numbers: RowNumbers | None = None,
                           ) -> tuple[list[str], list[RowProblem]]:
    """Every other problem of product rows an upload did not import (a step before the importer
    refused them or stopped the upload), found by the importer's checks with nothing written:
    result-card lines and report lines, without the (row, field) pairs in ``skip``."""
    if not rows:
        return [], []
    numbers = numbers or RowNumbers.items("product")
    result = check_products(session, actor, rows)
    problems = [p for p in result_problems(result, positions, numbers)
                if (p.row, p.field or "non_field_errors") not in skip]
    return refused_row_messages(result, rows, positions, "product", skip, numbers), problems
