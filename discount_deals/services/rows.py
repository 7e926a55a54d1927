"""One row by the id a client sent, and one row written under a unique index.

Finding: 404 when there is none, or when it is someone else's. An id that is not text (a
number or an object in a JSON body) or holds a NUL finds nothing, like an unknown one
(:func:`by_id`); someone else's row answers exactly as a missing one, so ids cannot be probed.
Admins see every row: "the owner's or an admin's" (:func:`owned_or_admin`) and "visible to
shoppers, or an admin's" (:func:`visible_or_admin`, :func:`shown_to`).

Saving: a unique value taken meanwhile by a concurrent write is a 400 naming the field, undone
by a savepoint inside the caller's transaction (the rest of it stands).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from ..models import User
from . import NotFound, ValidationFailed
from .permissions import is_admin

Row = TypeVar("Row")


def could_be_id(row_id: Any) -> bool:
    """False for an id that is not text, or is text no key can be: empty, or with a NUL character,
    which PostgreSQL refuses in any text it is sent. Such an id finds nothing, without asking."""
    return isinstance(row_id, str) and row_id != "" and "\x00" not in row_id


def canonical_id(row_id: str) -> str:
    """A UUID as the keys are stored (lower case, hyphens: ``8de148b9-70e8-...``) when ``row_id``
    is one written another way (upper case, no hyphens, braces), as the original server's UUID
    lookups took them; anything else as it is."""
    if len(row_id) == 36 and row_id == row_id.lower():
        return row_id  # the usual case, without parsing
    try:
        return str(uuid.UUID(row_id))
    except ValueError:
        return row_id


def by_id(session: Session, model: type[Row], row_id: Any, *, for_update: bool = False) -> Row | None:
    """The ``model`` row with ``row_id``, or None (:func:`could_be_id`). ``for_update``: read it
    again with its lock held (PostgreSQL's ``FOR UPDATE``) until the transaction ends, for a
    read-then-write: a concurrent delete then answers None here, or waits for this write,
    instead of the write finding no row. SQLite's one writer at a time needs no row lock."""
    if not could_be_id(row_id):
        return None
    row_id = canonical_id(row_id)
    if for_update:  # read again under the lock, even when this session holds the row already
        return session.get(model, row_id, with_for_update=True, populate_existing=True)
    return session.get(model, row_id)


def found(session: Session, model: type[Row], row_id: Any, not_found: str, *, code: str = "",
          for_update: bool = False) -> Row:
    """The ``model`` row with ``row_id``; :class:`NotFound` (``not_found``) when there is none."""
    row = by_id(session, model, row_id, for_update=for_update)
    if row is None:
        raise NotFound(not_found, code=code)
    return row


def owned(session: Session, model: type[Row], row_id: Any, owner: User, not_found: str, *,
          for_update: bool = False) -> Row:
    """The ``model`` row with ``row_id`` that belongs to ``owner`` (its ``user_id``); anyone
    else's answers :class:`NotFound` (``not_found``) as a missing one does."""
    row = found(session, model, row_id, not_found, for_update=for_update)
    if row.user_id != owner.id:
        raise NotFound(not_found)
    return row


def owned_or_admin(
    session: Session, model: type[Row], row_id: Any, actor: User, not_found: str, *, owner_field: str = "user_id"
) -> Row:
    """The ``model`` row with ``row_id`` when ``actor`` owns it (its ``owner_field`` is the
    actor's id) or is an admin; anyone else's answers :class:`NotFound` as a missing one does."""
    row = found(session, model, row_id, not_found)
    if getattr(row, owner_field) != actor.id and not is_admin(actor):
        raise NotFound(not_found)
    return row


def shown_to(row: Row | None, actor: User | None, visible: Callable[[Row], bool], not_found: str) -> Row:
    """``row`` when ``actor`` may see it: it is ``visible`` to shoppers, or the actor is an
    admin; a hidden one answers :class:`NotFound` as a missing one (None) does."""
    if row is None or not (visible(row) or is_admin(actor)):
        raise NotFound(not_found)
    return row


def visible_or_admin(
    session: Session, model: type[Row], row_id: Any, actor: User | None, visible: Callable[[Row], bool],
    not_found: str,
) -> Row:
    """The ``model`` row with ``row_id`` when it is ``visible`` to shoppers or ``actor`` is an
    admin (see :func:`shown_to`)."""
    row = by_id(session, model, row_id)
    return shown_to(row, actor, visible, not_found)


def values_of(row: Any, names: Iterable[str]) -> dict[str, Any]:
    """``{name: row.<name>}`` for each of ``names``, in that order (a row as plain data)."""
    return {name: getattr(row, name) for name in names}


def save_unique(session: Session, row: Row, field: str, taken: str) -> Row:
    """Add and flush ``row`` in a savepoint; a unique index refusing it is a 400 with ``taken``
    on ``field``, and leaves the caller's transaction as it was."""
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        raise ValidationFailed(taken, fields={field: [taken]}) from None
    return row
