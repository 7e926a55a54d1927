"""Reviews from buyers (issue 34): who may review a product, what a review holds, the product's
shown rating, and the back office's hide and show.

A customer reviews a product once they have a delivered order of it; a second review by the same
customer is an edit of the first (one per product per customer, a unique index). The product's
``rating`` is its published reviews' average (one decimal) while it has any, else the admin's
number (kept in ``admin_rating`` once reviews take ``rating`` over); ``review_count`` counts the
published ones. Both are recomputed from the reviews table in the review's own transaction, after
the product's row lock is taken, so concurrent reviews never lose one another (no increments).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..models import Order, OrderItem, OrderStatus, Product, Review, User
from ..models.reviews import MAX_REVIEW_TEXT
from . import ErrorCode, ServiceError, ValidationFailed, audit
from .catalog import get_product
from .form_rules import require_object
from .permissions import require_admin
from .plain_text import clean_text
from .rows import found

# Orders whose products their customer may review: received (COMPLETED is the legacy name).
RECEIVED_STATUSES = (OrderStatus.DELIVERED.value, OrderStatus.COMPLETED.value)
NOT_A_BUYER = "Only customers who received this product can review it."
RATING_MESSAGE = "Choose a rating from 1 to 5 stars."
TEXT_TOO_LONG = f"Keep your review to {MAX_REVIEW_TEXT:,} characters or fewer."
REVIEW_NOT_FOUND = "Review not found."
_WHOLE_NUMBER = re.compile(r"[0-9]+")
ANONYMOUS = "A shopper"


class NotABuyer(ServiceError):
    status = 403

    def __init__(self) -> None:
        super().__init__(NOT_A_BUYER, code=ErrorCode.NOT_A_BUYER, expose_code=True)


@dataclass(frozen=True)
class ReviewView:
    """A review as people see it: the reviewer's first name only, and always a verified purchase
    (only buyers may review)."""

    id: str
    product_id: str
    rating: int
    text: str
    reviewer: str
    created_at: datetime
    updated_at: datetime
    is_hidden: bool
    verified_purchase: bool = True


@dataclass(frozen=True)
class AdminReviewView:
    review: ReviewView
    product_name: str
    user_id: str
    email: str


@dataclass(frozen=True)
class ProductReviews:
    """One page of a product's published reviews, newest first, and the product's figures."""

    reviews: list[ReviewView]
    count: int
    rating: float
    review_count: int


# --- input -------------------------------------------------------------------------------------


def _rating_of(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and _WHOLE_NUMBER.fullmatch(raw.strip()):  # ASCII digits: "²".isdigit() too
        value = int(raw.strip())
    else:
        return None
    return value if 1 <= value <= 5 else None


def clean_review(data: Mapping[str, Any]) -> tuple[int, str]:
    """(rating, text) from a review's fields; ValidationFailed (code ``review_invalid``) naming
    each bad field: the rating is a whole number of stars from 1 to 5, the text at most
    :data:`MAX_REVIEW_TEXT` characters (it may be empty)."""
    require_object(data)
    errors: dict[str, list[str]] = {}
    rating = _rating_of(data.get("rating"))
    if rating is None:
        errors["rating"] = [RATING_MESSAGE]
    raw_text = data.get("text")
    text = ""
    if raw_text is not None and not isinstance(raw_text, str):
        errors["text"] = ["Write your review as text."]
    elif raw_text:
        text = clean_text(raw_text)
        if len(text) > MAX_REVIEW_TEXT:
            errors["text"] = [TEXT_TOO_LONG]
    if errors:
        first = next(iter(errors.values()))[0]
        raise ValidationFailed(first, fields=errors, code=ErrorCode.REVIEW_INVALID, expose_code=True)
    return rating, text


# --- who may review ----------------------------------------------------------------------------


def is_buyer(session: Session, user: User | None, product_id: str) -> bool:
    """Whether ``user`` has received an order holding ``product_id``."""
    if user is None:
        return False
    query = (
        select(OrderItem.id)
        .join(Order, Order.id == OrderItem.order_id)
        .where(Order.user_id == user.id, Order.status.in_(RECEIVED_STATUSES), OrderItem.product_id == product_id)
        .limit(1)
    )
    return session.exec(query).first() is not None


def review_of(session: Session, user: User | None, product_id: str) -> Review | None:
    """``user``'s review of the product (hidden or not), if any."""
    if user is None:
        return None
    return session.exec(select(Review).where(Review.product_id == product_id, Review.user_id == user.id)).first()


def my_review(session: Session, user: User, product_id: str) -> tuple[Review | None, bool]:
    """(``user``'s review of the product or None, whether they may post one); NotFound when the
    product is unknown or hidden."""
    get_product(session, product_id, actor=user)
    return review_of(session, user, product_id), is_buyer(session, user, product_id)


# --- writing -----------------------------------------------------------------------------------


def post_review(session: Session, user: User, product_id: str, data: Mapping[str, Any]) -> tuple[Review, bool]:
    """Write ``user``'s review of a product: (review, True) when new, (review, False) when it
    edited theirs. NotFound for an unknown or hidden product, ValidationFailed for bad fields,
    :class:`NotABuyer` (403, ``not_a_buyer``) unless the product reached them. An edit keeps a
    hidden review hidden (the admin's decision stands)."""
    get_product(session, product_id, actor=user)
    rating, text = clean_review(data)
    if not is_buyer(session, user, product_id):
        raise NotABuyer()
    _lock_product(session, product_id)
    review, created = review_of(session, user, product_id), False
    if review is None:
        review, created = _insert(session, Review(product_id=product_id, user_id=user.id, rating=rating, text=text))
    if not created:
        review.rating, review.text = rating, text
        session.add(review)
        session.flush()
    recompute_rating(session, product_id)
    session.refresh(review)
    return review, created


def _lock_product(session: Session, product_id: str) -> None:
    # PostgreSQL: reviews of one product queue here, so each recomputation's statements start
    # after the previous review committed and count it. SQLite: the write lock already queues them.
    session.execute(select(Product.id).where(Product.id == product_id).with_for_update())


def _insert(session: Session, review: Review) -> tuple[Review, bool]:
    """Insert in a savepoint: (review, True). When a twin request inserted the same customer's
    review first (the unique index refuses ours), (the twin's row, False): the one to edit."""
    try:
        with session.begin_nested():
            session.add(review)
            session.flush()
        return review, True
    except IntegrityError:
        existing = session.exec(
            select(Review).where(Review.product_id == review.product_id, Review.user_id == review.user_id)
        ).one()
        return existing, False


def recompute_rating(session: Session, product_id: str) -> None:
    """Set the product's ``rating`` and ``review_count`` from its published reviews (the admin's
    number back when there are none), in the caller's transaction. ``rating`` is always written,
    so that the catalogue's version (a trigger on it) moves and shared product views refresh."""
    count, total = session.execute(
        select(func.count(Review.id), func.coalesce(func.sum(Review.rating), 0)).where(
            Review.product_id == product_id, Review.is_hidden.is_(False)
        )
    ).one()
    admins = func.coalesce(Product.admin_rating, Product.rating)
    average = float((Decimal(int(total)) / Decimal(count)).quantize(Decimal("0.1"), ROUND_HALF_UP)) if count else None
    session.execute(
        update(Product)
        .where(Product.id == product_id)
        .values(
            admin_rating=admins,
            rating=average if count else admins,
            review_count=count,
            updated_at=Product.updated_at,  # a review is not an edit of the product
        )
        .execution_options(synchronize_session=False)
    )
    product = session.get(Product, product_id)
    if product is not None:
        session.refresh(product)


# --- reading -----------------------------------------------------------------------------------


def _view(review: Review, first_name: str) -> ReviewView:
    return ReviewView(
        id=review.id, product_id=review.product_id, rating=review.rating, text=review.text,
        reviewer=(first_name or "").strip() or ANONYMOUS, created_at=review.created_at,
        updated_at=review.updated_at, is_hidden=review.is_hidden,
    )


def review_view(session: Session, review: Review) -> ReviewView:
    user = session.get(User, review.user_id)
    return _view(review, user.first_name if user else "")


def product_reviews(
    session: Session, product_id: str, *, offset: int = 0, limit: int = 10, actor: User | None = None
) -> ProductReviews:
    """A page of the product's published reviews, newest first (NotFound when the product is
    unknown or hidden from ``actor``)."""
    product, _category = get_product(session, product_id, actor=actor)
    rows = session.exec(
        select(Review, User.first_name)
        .join(User, User.id == Review.user_id)
        .where(Review.product_id == product_id, Review.is_hidden.is_(False))
        .order_by(Review.created_at.desc(), Review.id.desc())
        .offset(offset)
        .limit(limit)
    ).all()
    return ProductReviews(
        reviews=[_view(review, first_name) for review, first_name in rows],
        count=product.review_count,
        rating=float(product.rating or 0),
        review_count=product.review_count,
    )


# --- the back office ---------------------------------------------------------------------------


def admin_reviews(
    session: Session, actor: User | None, *, hidden: bool | None = None, offset: int = 0, limit: int = 20
) -> tuple[list[AdminReviewView], int]:
    """Every review, newest first, with its product and reviewer (admins only); ``hidden``
    keeps the hidden (True) or the published (False) ones."""
    require_admin(actor)
    condition = True if hidden is None else Review.is_hidden.is_(hidden)
    count = session.execute(select(func.count(Review.id)).where(condition)).scalar_one()
    rows = session.exec(
        select(Review, User.first_name, User.email, Product.name)
        .join(User, User.id == Review.user_id)
        .join(Product, Product.id == Review.product_id)
        .where(condition)
        .order_by(Review.created_at.desc(), Review.id.desc())
        .offset(offset)
        .limit(limit)
    ).all()
    views = [AdminReviewView(_view(r, first), name, r.user_id, email) for r, first, email, name in rows]
    return views, int(count)


def set_hidden(session: Session, actor: User | None, review_id: Any, hidden: bool) -> AdminReviewView:
    """Hide or show a review (admins only), audited as ``review.hide`` / ``review.show``, and
    recompute its product's rating. Hiding a hidden review changes and records nothing."""
    require_admin(actor)
    review = found(session, Review, review_id, REVIEW_NOT_FOUND)
    _lock_product(session, review.product_id)
    session.refresh(review)
    product = session.get(Product, review.product_id)
    if review.is_hidden != hidden:
        review.is_hidden = hidden
        session.add(review)
        session.flush()
        audit.record(session, actor, "review.hide" if hidden else "review.show", "review", review.id,
                     changes={"is_hidden": [not hidden, hidden]}, label=f"{product.name}: {review.rating}★")
        recompute_rating(session, review.product_id)
    user = session.get(User, review.user_id)
    return AdminReviewView(_view(review, user.first_name), product.name, review.user_id, user.email)
