"""Categories: lookup by id, slug or name, listing, and the admin's create, update and delete
(each recorded in the audit trail in the same transaction)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session, func, or_, select

from ...models import Category, Product, User
from ...models.base import new_id
from .. import Conflict, ValidationFailed, audit
from ..error_codes import ErrorCode
from ..form_rules import require_object
from ..permissions import require_admin
from ..rows import found, save_unique
from .validation import category_key, clean_category, validation_detail


def find_category(session: Session, value: Any) -> Category | None:
    """The category whose id, slug or name (case-insensitive) is ``value``; an id match wins,
    then a slug match, then a name match."""
    if isinstance(value, Mapping):  # a category object as this API returns it
        value = value.get("id")
    if not isinstance(value, str) or not value.strip() or "\x00" in value:  # PostgreSQL refuses a NUL
        return None
    value = value.strip()
    lowered = {value.lower(), category_key(value)}  # as typed, and as a category's name is stored (NFKC)
    candidates = session.exec(
        select(Category).where(
            or_(Category.id == value, func.lower(Category.slug).in_(lowered), func.lower(Category.name).in_(lowered))
        )
    ).all()
    if not candidates and not value.isascii():  # SQLite's lower() folds ASCII only: fold in Python
        candidates = session.exec(select(Category)).all()
    for matches in (
        lambda c: c.id == value,
        lambda c: c.slug.lower() in lowered or category_key(c.slug) in lowered,
        lambda c: c.name.lower() in lowered or category_key(c.name) in lowered,
    ):
        for category in candidates:
            if matches(category):
                return category
    return None


def list_categories(session: Session, offset: int = 0, limit: int = 1000) -> tuple[list[Category], int]:
    """Categories by name, one slice at a time, with the total count."""
    count = session.exec(select(func.count()).select_from(Category)).one()
    rows = session.exec(
        select(Category).order_by(func.lower(Category.name), Category.id).offset(max(0, offset)).limit(max(0, limit))
    ).all()
    return list(rows), count


AUDITED_FIELDS = ("name", "slug", "description", "parent_id")


def category_conflicts(
    session: Session, name: str, slug: str, *, exclude_id: str | None = None
) -> dict[str, list[str]]:
    """Errors for a name or slug already used by another category (case-insensitive), or used
    by another category the other way round (see :func:`crossed_names`)."""
    # Folded in Python: SQLite's lower() folds ASCII only ("Épicerie" and "épicerie" differ there).
    # A shop has tens of categories, and only an admin's write reads them all.
    others = [Category.id != exclude_id] if exclude_id else []
    taken = session.exec(select(Category.name, Category.slug).where(*others)).all()
    return crossed_names(name, slug, {category_key(row[0]) for row in taken}, {category_key(row[1]) for row in taken})


def crossed_names(name: str, slug: str, names: set[str], slugs: set[str]) -> dict[str, list[str]]:
    """Errors for ``name`` and ``slug`` against the other categories' ``names`` and ``slugs`` as
    :func:`.validation.category_key` writes them (case-blind, NFKC). A name may not be another's
    slug, nor a slug another's name: a category is found by either (the original client sends
    names, links carry slugs), and the other would be found in its place."""
    errors: dict[str, list[str]] = {}
    if category_key(name) in names:
        errors["name"] = [f'A category named "{name}" already exists.']
    elif category_key(name) in slugs:
        errors["name"] = [f'"{name}" is another category\'s slug: choose another name.']
    if category_key(slug) in slugs:
        errors["slug"] = [f'A category with the slug "{slug}" already exists.']
    elif category_key(slug) in names:
        errors["slug"] = [f'"{slug}" is another category\'s name: choose another slug.']
    return errors


def create_category(session: Session, actor: User | None, data: Mapping[str, Any]) -> Category:
    """Create a category (admins only) from ``name``, optional ``slug`` (derived from the name
    when blank), ``description`` and ``parent`` (id, slug or name)."""
    require_admin(actor)
    require_object(data)
    values, errors = clean_category(data, resolve_parent=lambda value: find_category(session, value))
    if errors:
        raise ValidationFailed(validation_detail(errors, "category"), fields=errors)
    conflicts = category_conflicts(session, values["name"], values["slug"])
    if conflicts:
        raise ValidationFailed(next(iter(conflicts.values()))[0], fields=conflicts)
    category = _save(session, Category(id=new_id(), **values))
    audit.record(session, actor, "category.create", "category", category.id,
                 changes=audit.created(audit.snapshot(category, AUDITED_FIELDS)), label=category.name)
    return category


def _save(session: Session, category: Category) -> Category:
    return save_unique(session, category, "name", "A category with this name or slug already exists.")


def _get(session: Session, category_id: Any) -> Category:
    return found(session, Category, category_id, "Category not found.")


def _lock_tree(session: Session) -> None:
    """Take every category row for this transaction and read their parents afresh: two moves at
    once (A under B, B under A) would each find no cycle in the tree as it was before the other
    (PostgreSQL; SQLite's writers take turns already). A shop has tens of categories."""
    session.exec(select(Category).order_by(Category.id).with_for_update()
                 .execution_options(populate_existing=True)).all()


def _is_ancestor(session: Session, candidate: Category, of: Category) -> bool:
    """Whether ``of`` is ``candidate`` or one of its ancestors (a parent cycle)."""
    seen: set[str] = set()
    current: Category | None = candidate
    while current is not None and current.id not in seen:
        if current.id == of.id:
            return True
        seen.add(current.id)
        current = session.get(Category, current.parent_id) if current.parent_id else None
    return False


def update_category(session: Session, actor: User | None, category_id: str, data: Mapping[str, Any]) -> Category:
    """Change a category's name, slug, description or parent (admins only); absent fields stay.

    A blank slug is derived from the name; a category cannot become its own ancestor."""
    require_admin(actor)
    category = _get(session, category_id)
    require_object(data)
    merged = {
        "name": data.get("name", category.name),
        "slug": data.get("slug", category.slug),
        "description": data.get("description", category.description),
        "parent": data.get("parent", category.parent_id),
    }
    values, errors = clean_category(merged, resolve_parent=lambda value: find_category(session, value))
    for field in ("name", "slug"):  # kept as stored unless changed: a legacy spelling's links stay
        if merged[field] == getattr(category, field):
            values[field] = getattr(category, field)
            errors.pop(field, None)
    if not errors and values.get("parent_id"):
        if values["parent_id"] != category.parent_id:
            _lock_tree(session)
        parent = session.get(Category, values["parent_id"])
        if parent is not None and _is_ancestor(session, parent, category):
            errors["parent"] = ["A category cannot be its own parent or ancestor."]
    if errors:
        raise ValidationFailed(validation_detail(errors, "category"), fields=errors)
    conflicts = category_conflicts(session, values["name"], values["slug"], exclude_id=category.id)
    if conflicts:
        raise ValidationFailed(next(iter(conflicts.values()))[0], fields=conflicts)
    return audit.update_recorded(session, actor, "category.update", category, values, AUDITED_FIELDS,
                                 save=_save, label=lambda row: row.name)


def delete_category(session: Session, actor: User | None, category_id: str) -> None:
    """Delete a category (admins only); refused (409) while products are in it. Its
    sub-categories lose their parent."""
    require_admin(actor)
    category = _get(session, category_id)
    in_use = session.exec(select(func.count()).select_from(Product).where(Product.category_id == category.id)).one()
    if in_use:
        products = "product is" if in_use == 1 else "products are"
        raise Conflict(f"{in_use} {products} in this category: move or delete them first.", code=ErrorCode.CATEGORY_IN_USE)
    audit.record(session, actor, "category.delete", "category", category.id,
                 changes=audit.deleted(audit.snapshot(category, AUDITED_FIELDS)), label=category.name)
    for child in session.exec(select(Category).where(Category.parent_id == category.id)).all():
        child.parent_id = None
        session.add(child)
    session.delete(category)
    session.flush()
