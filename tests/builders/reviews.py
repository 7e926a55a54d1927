"""Review builders: a product received by a customer (what lets them review it), reviews written
straight to the database, and review rows read back."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope


def received(user: models.User, product: models.Product, status: str = models.OrderStatus.DELIVERED.value) -> None:
    """An order of ``product`` by ``user`` in ``status`` (delivered unless said otherwise)."""
    with session_scope() as session:
        order = models.Order(user_id=user.id, status=status, item_count=1, subtotal=Decimal("10.00"),
                             total=Decimal("10.00"))
        session.add(order)
        session.flush()
        session.add(models.OrderItem(order_id=order.id, product_id=product.id, name=product.name,
                                     unit_price=Decimal("10.00"), original_price=Decimal("10.00"), quantity=1,
                                     line_total=Decimal("10.00")))


def review_rows(product_id: str | None = None) -> list[models.Review]:
    with session_scope() as session:
        query = select(models.Review)
        if product_id:
            query = query.where(models.Review.product_id == product_id)
        return list(session.exec(query).all())


def add_review(product: models.Product, user: models.User, rating: int = 5, text: str = "Good value") -> models.Review:
    """A published review, as if ``user`` had posted it (the product's average is not recomputed)."""
    with session_scope() as session:
        review = models.Review(product_id=product.id, user_id=user.id, rating=rating, text=text)
        session.add(review)
    return review
