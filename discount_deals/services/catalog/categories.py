"""Categories: lookup by id, slug or name, listing, and creation (admins)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, or_, select

from ...models import Category, User
from ...models.base import new_id
from .. import ValidationFailed
from ..permissions import require_admin
from .validation import clean_category, validation_detail


def find_category(session: Session, value: Any) -> Category | None:
    """The category whose id, slug or name (case-insensitive) is ``value``; an id match wins,
    then a slug match, then a name match."""
    if isinstance(value, Mapping):  # a category object as this API returns it
        value = value.get("id")
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    lowered = value.lower()
    candidates = session.exec(
        select(Category).where(
            or_(Category.id == value, func.lower(Category.slug) == lowered, func.lower(Category.name) == lowered)
        )
    ).all()
    for matches in (
        lambda c: c.id == value,
        lambda c: c.slug.lower() == lowered,
        lambda c: c.name.lower() == lowered,
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


def category_conflicts(session: Session, name: str, slug: str) -> dict[str, list[str]]:
    """Errors for a name (case-insensitive) or slug already used by another category."""
    errors: dict[str, list[str]] = {}
    if session.exec(select(Category.id).where(func.lower(Category.name) == name.lower())).first():
        errors["name"] = [f'A category named "{name}" already exists.']
    if session.exec(select(Category.id).where(func.lower(Category.slug) == slug.lower())).first():
        errors["slug"] = [f'A category with the slug "{slug}" already exists.']
    return errors


def create_category(session: Session, actor: User | None, data: Mapping[str, Any]) -> Category:
    """Create a category (admins only) from ``name``, optional ``slug`` (derived from the name
    when blank), ``description`` and ``parent`` (id, slug or name)."""
    require_admin(actor)
    if not isinstance(data, Mapping):
        raise ValidationFailed("Invalid request body: a JSON object is expected.")
    values, errors = clean_category(data, resolve_parent=lambda value: find_category(session, value))
    if errors:
        raise ValidationFailed(validation_detail(errors, "category"), fields=errors)
    conflicts = category_conflicts(session, values["name"], values["slug"])
    if conflicts:
        raise ValidationFailed(next(iter(conflicts.values()))[0], fields=conflicts)
    category = Category(id=new_id(), **values)
    try:
        with session.begin_nested():
            session.add(category)
            session.flush()
    except IntegrityError:
        message = "A category with this name or slug already exists."
        raise ValidationFailed(message, fields={"name": [message]}) from None
    return category
