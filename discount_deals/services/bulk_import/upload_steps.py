"""The admin screen's bulk upload steps (SPEC §4, §5).

The bulk upload screen checks an upload in the spec's steps before importing it: required fields
first ("Product {n}: Name is required"), then category names (products only). The importers
(:mod:`.importers`) still validate every row in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, select

from ...models import Category
from .importers import CategoryIndex, ImportResult

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
    those that did not (numbered from 1, as the screen shows them)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def check_required_fields(rows: list[Any], kind: str = "product") -> CheckedRows:
    """SPEC §5: each product needs name, description, price, category and image_url; each
    category name, slug and description. Messages read "Product 2: Name is required, Price is
    required" ("Category 2: ..." for categories)."""
    required = PRODUCT_REQUIRED if kind == "product" else CATEGORY_REQUIRED
    label = "Product" if kind == "product" else "Category"
    checked = CheckedRows()
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping):
            checked.messages.append(f"{label} {position + 1}: Each {kind} must be an object")
            continue
        problems = [message for column, message in required if _missing(row.get(column))]
        if problems:
            checked.messages.append(f"{label} {position + 1}: {', '.join(problems)}")
            continue
        checked.rows.append(dict(row))
        checked.positions.append(position)
    return checked


def _row_name(row: Mapping[str, Any]) -> str:
    return str(row.get("name") or "").strip()


def resolve_product_categories(session: Session, checked: CheckedRows) -> CheckedRows:
    """Replace each row's category (a name or slug, any case, or an id) by the category's id.

    Unknown ones give "Product {n} ({name}): Category "{x}" not found"; the screen stops the
    upload when there is any."""
    index = CategoryIndex(list(session.exec(select(Category)).all()))
    resolved = CheckedRows()
    for row, position in zip(checked.rows, checked.positions, strict=True):
        category = index.resolve(row.get("category"))
        if category is None:
            value = row.get("category")
            shown = value.get("id") if isinstance(value, Mapping) else value
            resolved.messages.append(f'Product {position + 1} ({_row_name(row)}): Category "{shown}" not found')
            continue
        resolved.rows.append({**row, "category": category.id, "category_name": category.name})
        resolved.positions.append(position)
    return resolved


def refused_row_messages(result: ImportResult, rows: list[dict[str, Any]], positions: list[int], kind: str) -> list[str]:
    """The importer's refusals as "Product {n} ({name}): {message}" lines, numbered as uploaded."""
    label = "Product" if kind == "product" else "Category"
    lines = []
    for error in result.errors:
        index = error["index"]
        row = rows[index] if 0 <= index < len(rows) else {}
        first = next(iter(error["errors"].values()), ["Invalid row."])[0]
        lines.append(f"{label} {positions[index] + 1} ({_row_name(row)}): {first}")
    return lines
