"""Bulk imports of products and categories: validate, insert in chunks, in the caller's transaction.

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

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ...models import Category, Product, User
from ...models.base import new_id, new_ids, utcnow
from ...search.bulk_index import BulkLoad
from ...config.settings import get_settings
from .. import Conflict, ValidationFailed, audit
from ..catalog import (
    category_key,
    clean_category,
    clean_product,
    crossed_names,
    derived_columns,
    duplicate_name_message,
    existing_product_ids,
    missing_products_message,
    name_key,
)
from ..permissions import require_admin

CHUNK_ROWS = 2000


@dataclass(frozen=True)
class UnreadCell:
    """A file's cell that cannot be read as its column's type (a flag reading "maybe"): the
    importer refuses its row with ``message`` on that column."""

    text: str
    message: str

    def __str__(self) -> str:
        return self.text


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
    # Positions of the refused rows whose only problem is that the name (or slug) already exists.
    duplicates: set[int] = field(default_factory=set)

    @property
    def other_refusals(self) -> int:
        """Refused rows that do not merely exist already (a bad price, an unknown category...)."""
        return len(self.errors) - len(self.duplicates)

    @property
    def status(self) -> int:
        """201 when at least one row was created, else 400 (as the existing client expects)."""
        return 201 if self.created else 400

    @property
    def detail(self) -> str:
        if not self.created and not self.errors:
            return "Nothing to upload: the upload has no rows."
        return f"Upload completed: {len(self.created)} created, {len(self.errors)} refused."


class CategoryIndex:
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
        keys = (value.lower(), category_key(value))  # as typed, and as a category's name is stored (NFKC)
        return (self.by_id.get(value) or next((self._by_slug[k] for k in keys if k in self._by_slug), None)
                or next((self._by_name[k] for k in keys if k in self._by_name), None))


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
    categories = CategoryIndex(list(session.exec(select(Category)).all()))
    seen_names: set[str] = set()  # name keys of this upload's earlier rows
    load = BulkLoad(session.connection())
    try:
        for chunk in _checked_chunks(iter(rows), categories, max_rows):
            mark, created = load.mark(), len(result.created)
            _insert_product_chunk(session, chunk, seen_names, result)
            load.index_since(mark, [product.id for product in result.created[created:]])
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


def _checked_chunks(rows: Iterator[Any], categories: CategoryIndex, max_rows: int | None) -> Iterator[list[_Checked]]:
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
            errors.update({column: [cell.message] for column, cell in row.items() if isinstance(cell, UnreadCell)})
            checked.append(_Checked(index, values, errors))
        position += len(chunk)
        yield checked


def _check_against_catalogue(session: Session, chunk: list[_Checked], seen_names: set[str]) -> set[int]:
    """Complete each row's errors with the checks that need the database (related products,
    names already taken or earlier in the upload); returns the positions refused only because
    their name already exists. Names of rows that pass join ``seen_names``."""
    related_ids = {pid for c in chunk if c.values for pid in c.values.get("related_products") or ()}
    known_products = existing_product_ids(session, related_ids) if related_ids else set()
    keys = [name_key(c.values["name"]) for c in chunk if c.values and "name" in c.values and "name" not in c.errors]
    taken = _existing_name_keys(session, list(dict.fromkeys(k for k in keys if k not in seen_names)))
    duplicates: set[int] = set()
    for index, values, errors in chunk:
        if values is None:
            continue
        missing = set(values.get("related_products") or ()) - known_products
        if missing and "related_products" not in errors:
            errors["related_products"] = [missing_products_message(missing)]
        if "name" in values and "name" not in errors:
            key = name_key(values["name"])
            if key in taken or key in seen_names:
                errors["name"] = [duplicate_name_message(values["name"])]
                if len(errors) == 1:
                    duplicates.add(index)
            elif not errors:
                seen_names.add(key)
    return duplicates


def _insert_product_chunk(
    session: Session, chunk: list[_Checked], seen_names: set[str], result: ImportResult
) -> None:
    result.duplicates.update(_check_against_catalogue(session, chunk, seen_names))
    now = utcnow()
    ids = iter(new_ids(len(chunk)))
    to_insert: list[dict[str, Any]] = []
    for index, values, errors in chunk:
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


def check_products(session: Session, actor: User | None, rows: list[Any]) -> ImportResult:
    """What :func:`import_products` would refuse in ``rows``, every problem of every row, with
    nothing written (``created`` stays empty): for an upload that stops before importing, so
    that one pass names every problem (admins only)."""
    require_admin(actor)
    result = ImportResult(rows=len(rows))
    categories = CategoryIndex(list(session.exec(select(Category)).all()))
    seen_names: set[str] = set()
    for chunk in _checked_chunks(iter(rows), categories, None):
        result.duplicates.update(_check_against_catalogue(session, chunk, seen_names))
        result.errors.extend({"index": c.index, "errors": c.errors} for c in chunk if c.errors)
    return result


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
    index_of = CategoryIndex(existing)
    names = {category_key(c.name) for c in existing}
    slugs = {category_key(c.slug) for c in existing}
    now = utcnow()
    to_insert: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            result.errors.append({"index": index, "errors": {"non_field_errors": ["Each category must be an object."]}})
            continue
        values, errors = clean_category(row, require_slug_and_description=True, resolve_parent=index_of.resolve)
        if not errors:
            errors = crossed_names(values["name"], values["slug"], names, slugs)
            if category_key(values["name"]) in names or category_key(values["slug"]) in slugs:
                result.duplicates.add(index)
        if errors:
            result.errors.append({"index": index, "errors": errors})
            continue
        values.update(id=new_id(), created_at=now, updated_at=now)
        names.add(category_key(values["name"]))
        slugs.add(category_key(values["slug"]))
        to_insert.append(values)
        index_of.add(Category.model_construct(**values))

    _insert(session, Category, to_insert)
    result.created = [index_of.by_id[values["id"]] for values in to_insert]
    _record_upload(session, actor, "category", result)
    return result
