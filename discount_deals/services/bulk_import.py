"""Bulk imports of products and categories (JSON rows or CSV via pandas): validate, insert in chunks, one transaction.

Each row is validated on its own with the same rules as a single create (services.catalog).
Products are read, checked and inserted a chunk at a time (:data:`CHUNK_ROWS`): the names of a
chunk are checked against the catalogue through the unique name index, then its valid rows go
in as one multi-row INSERT. Only the created ids and names are kept, so memory stays flat
however long the file is (the command line ``import-products`` streams files far beyond the
upload limit). Everything happens in the caller's transaction: if any insert fails, the
caller's rollback leaves none of the rows. Call the importers inside ``db.write_session()`` so
that the name checks and the inserts see the same database state.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, NamedTuple

import pandas as pd
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..models import Category, Product, User
from ..search_index import BulkLoad
from ..models.base import new_id, new_ids, utcnow
from ..settings import get_settings
from . import Conflict, ServiceError, ValidationFailed, audit
from .csv_cells import unescape_cell
from .catalog import (
    clean_category,
    clean_product,
    comma_list,
    derived_columns,
    duplicate_name_message,
    existing_product_ids,
    missing_products_message,
    name_key,
)
from .permissions import require_admin

CHUNK_ROWS = 2000
_LIST_COLUMNS = {"tags", "related_products"}
_BOOL_COLUMNS = {"is_available", "is_featured"}


class CreatedProduct(NamedTuple):
    """A product an upload created: its id, its name and its 0-based position in the upload."""

    id: str
    name: str
    index: int


@dataclass
class ImportResult:
    """What an upload created (in input order) and which rows were refused.

    ``created`` holds :class:`CreatedProduct` tuples for products and Category objects (not
    attached to a session) for categories; ``errors`` holds ``{"index": i, "errors": {field:
    [messages]}}`` with ``i`` the row's 0-based position in the input.
    """

    created: list[Any] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0

    @property
    def status(self) -> int:
        """201 when at least one row was created, else 400 (as the existing client expects)."""
        return 201 if self.created else 400

    @property
    def detail(self) -> str:
        if not self.created and not self.errors:
            return "Nothing to upload: the upload has no rows."
        return f"Upload completed: {len(self.created)} created, {len(self.errors)} refused."


class _CategoryIndex:
    """Categories by id, slug or name (case-insensitive), with that precedence."""

    def __init__(self, categories: list[Category]):
        self.by_id = {c.id: c for c in categories}
        self._by_slug = {c.slug.lower(): c for c in categories}
        self._by_name = {c.name.lower(): c for c in categories}

    def add(self, category: Category) -> None:
        self.by_id[category.id] = category
        self._by_slug[category.slug.lower()] = category
        self._by_name[category.name.lower()] = category

    def resolve(self, value: Any) -> Category | None:
        if isinstance(value, Mapping):
            value = value.get("id")
        if not isinstance(value, str) or not value.strip():
            return None
        value = value.strip()
        return self.by_id.get(value) or self._by_slug.get(value.lower()) or self._by_name.get(value.lower())


def _too_many(limit: int, what: str, got: int | str) -> ValidationFailed:
    return ValidationFailed(f"Too many rows: at most {limit:,} {what} per upload (got {got:,}).")


def _check_row_count(rows: Any, what: str) -> list:
    if not isinstance(rows, list):
        raise ValidationFailed(f"The {what} must be a list of objects.", fields={what: ["Must be a list."]})
    limit = get_settings().bulk_max_rows
    if len(rows) > limit:
        raise _too_many(limit, what, len(rows))
    return rows


def _existing_name_keys(session: Session, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        found.update(session.exec(select(Product.name_key).where(Product.name_key.in_(chunk))).all())
    return found


def _insert(session: Session, model: type, rows: list[dict[str, Any]]) -> None:
    """One executemany INSERT of ``rows``; a database refusal aborts the whole upload.

    Core rather than ORM bulk inserts: the ORM splits rows into a statement per run of rows with
    the same NULL columns, which is thousands of round trips for a mixed upload."""
    if not rows:
        return
    try:
        session.connection().execute(insert(model.__table__), rows)
    except IntegrityError as exc:
        raise Conflict(
            "Nothing was imported: the database refused a row "
            f"({str(exc.orig).splitlines()[0] if exc.orig else 'constraint failed'}). Please try again."
        ) from None


def import_products(
    session: Session,
    actor: User | None,
    rows: Iterable[Any],
    *,
    max_rows: int | None = -1,
    progress: Callable[[int], None] | None = None,
) -> ImportResult:
    """Validate and insert products (admins only); see the module docstring.

    ``rows`` is a list (an upload) or any iterable of row mappings (a streamed file). A name
    already in the catalogue or earlier in the same upload (case-insensitive) is a row error
    "already exists". Raises ValidationFailed when ``rows`` is not a list or iterable of rows or
    holds more than ``max_rows`` (the upload limit by default; None for no limit).
    ``progress`` is called with the number of rows handled after each chunk.

    Rows are read, checked and inserted a chunk at a time in the caller's thread. (Checking in a
    helper thread ahead of the inserts gained nothing: the two mostly hold the GIL, and handing
    it back and forth made 100,000 rows about 0.6 s slower; bench/bulk_import.py.)
    """
    require_admin(actor)
    if max_rows == -1:
        max_rows = get_settings().bulk_max_rows
    if isinstance(rows, list) and max_rows is not None and len(rows) > max_rows:
        raise _too_many(max_rows, "products", len(rows))
    if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
        raise ValidationFailed("The products must be a list of objects.", fields={"products": ["Must be a list."]})
    result = ImportResult()
    categories = _CategoryIndex(list(session.exec(select(Category)).all()))
    seen_names: set[str] = set()  # name keys of this upload's earlier rows
    load = BulkLoad(session.connection())
    try:
        for chunk in _checked_chunks(iter(rows), categories, max_rows):
            mark = load.mark()
            _insert_product_chunk(session, chunk, seen_names, result)
            load.index_since(mark)
            result.rows += len(chunk)
            if progress is not None:
                progress(result.rows)
        load.finish(result.rows)
    finally:
        load.close()
    _record_upload(session, actor, "product", result)
    return result


def _record_upload(session: Session, actor: User | None, kind: str, result: ImportResult) -> None:
    """One audit event per upload that created anything, with its counts (not one per row)."""
    if result.created:
        counts = {"created": [None, len(result.created)], "refused": [None, len(result.errors)],
                  "rows": [None, result.rows]}
        what = "products" if kind == "product" else "categories"
        audit.record(session, actor, f"{kind}.bulk_upload", kind, None, changes=counts,
                     label=f"{len(result.created):,} {what}")


class _Checked(NamedTuple):
    """A row after the checks that need no database: its column values, or its errors."""

    index: int
    values: dict[str, Any] | None
    errors: dict[str, list[str]]


def _checked_chunks(rows: Iterator[Any], categories: _CategoryIndex, max_rows: int | None) -> Iterator[list[_Checked]]:
    position = 0
    while chunk := list(itertools.islice(rows, CHUNK_ROWS)):
        if max_rows is not None and position + len(chunk) > max_rows:
            raise _too_many(max_rows, "products", f"more than {max_rows:,}")
        checked = []
        for index, row in enumerate(chunk, start=position):
            if not isinstance(row, Mapping):
                checked.append(_Checked(index, None, {"non_field_errors": ["Each product must be an object."]}))
                continue
            # Related products are looked up by the inserting side, which holds the session.
            values, errors = clean_product(row, resolve_category=categories.resolve, missing_products=lambda ids: set())
            checked.append(_Checked(index, values, errors))
        position += len(chunk)
        yield checked


def _insert_product_chunk(
    session: Session, chunk: list[_Checked], seen_names: set[str], result: ImportResult
) -> None:
    related_ids = {pid for c in chunk if c.values for pid in c.values.get("related_products") or ()}
    known_products = existing_product_ids(session, related_ids) if related_ids else set()
    keys = [name_key(c.values["name"]) for c in chunk if c.values and "name" in c.values and "name" not in c.errors]
    taken = _existing_name_keys(session, list(dict.fromkeys(k for k in keys if k not in seen_names)))

    now = utcnow()
    ids = iter(new_ids(len(chunk)))
    to_insert: list[dict[str, Any]] = []
    for index, values, errors in chunk:
        if values is not None:
            missing = set(values.get("related_products") or ()) - known_products
            if missing and "related_products" not in errors:
                errors["related_products"] = [missing_products_message(missing)]
            if "name" in values and "name" not in errors:
                key = name_key(values["name"])
                if key in taken or key in seen_names:
                    errors["name"] = [duplicate_name_message(values["name"])]
                else:
                    seen_names.add(key)
        if errors:
            result.errors.append({"index": index, "errors": errors})
            continue
        values.update(
            derived_columns(
                values["name"], values["price"], values["discount_price"], values["discount_start"],
                values["discount_end"], now,
            )
        )
        values.update(id=next(ids), created_at=now, updated_at=now)
        to_insert.append(values)
        result.created.append(CreatedProduct(values["id"], values["name"], index))
    _insert(session, Product, to_insert)


def import_categories(session: Session, actor: User | None, rows: list[dict[str, Any]]) -> ImportResult:
    """Validate and insert categories (admins only): each row needs name, slug and description;
    ``parent`` (optional) names an existing category or one earlier in the upload. A name or slug
    already used (case-insensitive) is a row error "already exists"."""
    require_admin(actor)
    rows = _check_row_count(rows, "categories")
    result = ImportResult(rows=len(rows))
    if not rows:
        return result

    existing = list(session.exec(select(Category)).all())
    index_of = _CategoryIndex(existing)
    names = {c.name.lower() for c in existing}
    slugs = {c.slug.lower() for c in existing}
    now = utcnow()
    to_insert: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            result.errors.append({"index": index, "errors": {"non_field_errors": ["Each category must be an object."]}})
            continue
        values, errors = clean_category(row, require_slug_and_description=True, resolve_parent=index_of.resolve)
        if not errors:
            if values["name"].lower() in names:
                errors["name"] = [f'A category named "{values["name"]}" already exists.']
            if values["slug"].lower() in slugs:
                errors["slug"] = [f'A category with the slug "{values["slug"]}" already exists.']
        if errors:
            result.errors.append({"index": index, "errors": errors})
            continue
        values.update(id=new_id(), created_at=now, updated_at=now)
        names.add(values["name"].lower())
        slugs.add(values["slug"].lower())
        to_insert.append(values)
        index_of.add(Category.model_construct(**values))

    _insert(session, Category, to_insert)
    result.created = [index_of.by_id[values["id"]] for values in to_insert]
    _record_upload(session, actor, "category", result)
    return result


# --- CSV --------------------------------------------------------------------------------------

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


# --- the admin screen's upload steps (SPEC §4, §5) ---------------------------------------------
# The bulk upload screen checks an upload in the spec's steps before importing it: required fields
# first ("Product {n}: Name is required"), then category names (products only). The importers
# above still validate every row in full.

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
    index = _CategoryIndex(list(session.exec(select(Category)).all()))
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


# --- templates: files the uploader accepts as they are -----------------------------------------

PRODUCT_TEMPLATE_COLUMNS = (
    "name", "description", "brand", "price", "discount_price", "discount_start", "discount_end", "image_url",
    "category", "stock", "rating", "status", "is_available", "is_featured", "tags", "related_products",
)
CATEGORY_TEMPLATE_COLUMNS = ("name", "slug", "description", "parent")


def product_template_rows(category_names: list[str]) -> list[dict[str, Any]]:
    """Two sample products in existing categories (give at least one category name)."""
    first = category_names[0]
    second = category_names[1] if len(category_names) > 1 else first
    return [
        {
            "name": "Sample Jasmine Rice 5kg",
            "description": "Fragrant long-grain rice, ideal for jollof and fried rice.",
            "brand": "shoprite",
            "price": "24.99",
            "discount_price": "19.99",
            "image_url": "/placeholder.webp",
            "category": first,
            "stock": 40,
            "rating": 4.5,
            "status": "active",
            "is_available": True,
            "is_featured": False,
            "tags": ["rice", "staples"],
            "related_products": [],
        },
        {
            "name": "Sample Malt Drink 6 x 330ml",
            "description": "Non-alcoholic malt drink, six cans.",
            "brand": "melcom",
            "price": "9.50",
            "image_url": "/placeholder.webp",
            "category": second,
            "stock": 25,
            "rating": 4.0,
            "status": "active",
            "is_available": True,
            "is_featured": True,
            "tags": ["drinks"],
            "related_products": [],
        },
    ]


CATEGORY_TEMPLATE_ROWS: list[dict[str, str]] = [
    {"name": "Sample Stationery", "slug": "sample-stationery", "description": "Pens, notebooks and school supplies", "parent": ""},
    {"name": "Sample Garden", "slug": "sample-garden", "description": "Seeds, tools and outdoor furniture", "parent": ""},
]


def _csv_cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return "" if value is None else str(value)


def _csv_text(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in columns])
    return out.getvalue()


def products_template(category_names: list[str], fmt: str) -> str:
    """products-template.json or .csv (``fmt`` "json" or "csv")."""
    rows = product_template_rows(category_names)
    if fmt == "csv":
        return _csv_text(PRODUCT_TEMPLATE_COLUMNS, rows)
    return json.dumps(rows, indent=2) + "\n"


def categories_template(fmt: str) -> str:
    """categories-template.json or .csv (``fmt`` "json" or "csv"); parent is left blank."""
    if fmt == "csv":
        return _csv_text(CATEGORY_TEMPLATE_COLUMNS, CATEGORY_TEMPLATE_ROWS)
    return json.dumps(CATEGORY_TEMPLATE_ROWS, indent=2) + "\n"
