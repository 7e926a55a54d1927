"""Favourite products of logged-in users (guests keep theirs in the browser)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from ..models import Category, Favourite, Product, User
from . import NotFound
from .catalog import is_visible, visible_clause
from .permissions import require_user
from .rows import visible_or_admin


@dataclass(frozen=True)
class FavouriteEntry:
    """A favourite with its product."""

    id: str
    product: Product
    category: Category | None
    added_at: datetime


def list_favourites(session: Session, user: User, offset: int = 0, limit: int | None = None) -> list[FavouriteEntry]:
    """The user's favourites of products shoppers see, most recently added first. One an admin
    hid stays saved, unlisted, until it is shown again (the storefront's favourites page does
    the same)."""
    require_user(user)
    query = (
        select(Favourite, Product, Category)
        .join(Product, Product.id == Favourite.product_id)
        .join(Category, Category.id == Product.category_id, isouter=True)
        .where(Favourite.user_id == user.id, visible_clause())
        .order_by(Favourite.added_at.desc(), Favourite.id)
        .offset(offset)
    )
    if limit is not None:
        query = query.limit(limit)
    return [
        FavouriteEntry(id=favourite.id, product=product, category=category, added_at=favourite.added_at)
        for favourite, product, category in session.exec(query).all()
    ]


def count_favourites(session: Session, user: User) -> int:
    """How many :func:`list_favourites` lists."""
    require_user(user)
    return session.exec(select(func.count()).select_from(Favourite).join(Product, Product.id == Favourite.product_id)
                        .where(Favourite.user_id == user.id, visible_clause())).one()


def favourite_product_ids(session: Session, user: User) -> list[str]:
    """Ids of the user's favourite products (for hearts on product cards)."""
    require_user(user)
    query = select(Favourite.product_id).where(Favourite.user_id == user.id)
    return list(session.exec(query.order_by(Favourite.added_at, Favourite.id)).all())


def _find(session: Session, user: User, product_id: str) -> Favourite | None:
    return session.exec(
        select(Favourite).where(Favourite.user_id == user.id, Favourite.product_id == product_id)
    ).first()


def add_favourite(session: Session, user: User, product_id: Any) -> tuple[FavouriteEntry, bool]:
    """Add a product the user can see; returns ``(entry, created)``. A present one changes nothing."""
    require_user(user)
    product = visible_or_admin(session, Product, product_id, user, is_visible, "Product not found.")
    favourite = _find(session, user, product.id)
    created = favourite is None
    if created:
        try:
            with session.begin_nested():
                favourite = Favourite(user_id=user.id, product_id=product.id)
                session.add(favourite)
        except IntegrityError:
            # The same product was added by a concurrent request of this user.
            favourite, created = _find(session, user, product.id), False
    category = session.get(Category, product.category_id)
    return FavouriteEntry(id=favourite.id, product=product, category=category, added_at=favourite.added_at), created


def remove_favourite(session: Session, user: User, key: str) -> None:
    """Remove a favourite of the user named by its product's id or by its own (the ``id`` adding
    it answered; CLIENT-CONTRACT: ``DELETE /favorites/{id}``); 404 if it is neither."""
    require_user(user)
    favourite = _find(session, user, key) or session.exec(
        select(Favourite).where(Favourite.user_id == user.id, Favourite.id == key)).first()
    if favourite is None:
        raise NotFound("Favourite not found.")
    session.delete(favourite)
    session.flush()
