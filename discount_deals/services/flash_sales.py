"""Flash sales (issue 34): a discount window's cap per customer, and the countdown to its end.

A product's ``per_customer_limit`` caps the units one customer buys while its discount is in
force (services.pricing's window rule: outside the window there is no cap). What a customer has
bought counts the units of that product bought at a discount in their orders placed inside the
current window that are not cancelled. The cart refuses a quantity beyond what is left
(:func:`check_cart_quantity`); order placement checks again inside the order's transaction (:func:`check_order`), which is the
check that counts: a guest's browser cart meets the limit only there.

Concurrent checkouts of one customer: :func:`check_order` must run after
``orders.placement._locked_products`` has locked the order's product rows (``SELECT ... FOR
UPDATE``, taken for the stock anyway). Every order of a product queues on that row, so of two
checkouts of the same customer the second counts only once the first has committed or rolled
back; on PostgreSQL (read committed) its count is a new statement that sees the first order.
No extra lock is taken: the user's row would serialise a customer's orders of different
products for nothing, and the product row is the one both checkouts already need. SQLite takes
its one write lock at the start of every write transaction (``BEGIN IMMEDIATE``), so the
checkouts queue there before they count.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, select

from ..models import Order, OrderItem, OrderStatus, Product, User
from . import Conflict, ErrorCode
from .pricing import now_utc, product_price, utc

LIMIT_CODE = ErrorCode.PER_CUSTOMER_LIMIT
# The refusal, in the style of the stock refusals ("Only 3 left in stock for Milo 400g.").
LIMIT_TEXT = "Flash sale: at most {limit} per customer for {name}."
BOUGHT_TEXT = " You have already bought {bought}."
LIMIT_BADGE = "Limit {limit} per customer"
COUNTDOWN_FROM = timedelta(hours=24)  # the countdown shows from a day before the sale ends


def limit_in_force(product: Product, at: datetime | None = None) -> int | None:
    """The product's cap per customer now: its ``per_customer_limit`` while a discount is in
    force and saves something, else None (no cap). A "discount" at the list price is none (0 %):
    capped, it was counted by no order (:func:`bought_in_window` counts units bought at a
    discount), so the cap held within one order and never across them."""
    if product.per_customer_limit is None:
        return None
    now = product_price(product, at)
    return product.per_customer_limit if now.discount_active and now.unit_price < now.price else None


def bought_in_window(session: Session, user: User, product: Product) -> int:
    """Units of ``product`` in ``user``'s orders placed inside its discount window, not cancelled,
    bought at a discount: a window without a start reaches back to every order, and units bought
    at the full price before the sale are no part of it."""
    query = (
        select(func.coalesce(func.sum(OrderItem.quantity), 0))
        .join(Order, Order.id == OrderItem.order_id)
        .where(
            Order.user_id == user.id,
            OrderItem.product_id == product.id,
            Order.status != OrderStatus.CANCELLED.value,
            OrderItem.unit_price < OrderItem.original_price,
        )
    )
    if product.discount_start is not None:
        query = query.where(Order.created_at >= utc(product.discount_start))
    if product.discount_end is not None:
        query = query.where(Order.created_at < utc(product.discount_end))
    return int(session.exec(query).one())


def limit_message(product: Product, limit: int, bought: int) -> str:
    """"Flash sale: at most 2 per customer for Milo 400g." (and what was bought already)."""
    text = LIMIT_TEXT.format(limit=limit, name=product.name)
    return text + BOUGHT_TEXT.format(bought=bought) if bought else text


def _check(session: Session, user: User | None, product: Product, quantity: int, at: datetime | None) -> None:
    limit = limit_in_force(product, at)
    if limit is None or quantity <= 0:
        return
    bought = bought_in_window(session, user, product) if user is not None else 0
    if bought + quantity > limit:
        raise Conflict(limit_message(product, limit, bought), code=LIMIT_CODE, expose_code=True)


def check_cart_quantity(session: Session, user: User | None, product: Product, quantity: int) -> None:
    """409 ``per_customer_limit`` when ``quantity`` in the cart (the line's new total) and what
    the customer bought in the window exceed the product's cap. A guest (``user`` None) has
    bought nothing we know of: their orders are counted when they check out, signed in."""
    _check(session, user, product, quantity, None)


def check_order(
    session: Session, user: User, products: Mapping[str, Product], wanted: Mapping[str, int], at: datetime
) -> None:
    """409 ``per_customer_limit`` when an order of ``wanted`` (product id → units) would take a
    customer past a product's cap. Call it with the product rows locked (module docstring)."""
    for product_id, quantity in wanted.items():
        product = products.get(product_id)
        if product is not None:
            _check(session, user, product, quantity, at)


# --- what the screens show ---------------------------------------------------------------------


def countdown_text(ends_at: datetime | None, at: datetime | None = None) -> str:
    """"Ends in 5h 12m" from 24 hours before ``ends_at``; "" before that, after it, or without it.

    Minutes are counted down (5h 12m 40s is "5h 12m"), and the last minute still reads "1m"."""
    if ends_at is None:
        return ""
    left = utc(ends_at) - (utc(at) if at is not None else now_utc())
    if left <= timedelta(0) or left > COUNTDOWN_FROM:
        return ""
    minutes = max(1, int(left.total_seconds() // 60))
    hours, minutes = divmod(minutes, 60)
    return f"Ends in {hours}h {minutes}m" if hours else f"Ends in {minutes}m"


def limit_badge_text(limit: int | None) -> str:
    """"Limit 2 per customer" for a cap in force, else ""."""
    return LIMIT_BADGE.format(limit=limit) if limit is not None else ""
