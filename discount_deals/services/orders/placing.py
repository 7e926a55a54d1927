"""Placing an order, in a transaction of its own.

Owns its transactions: :func:`checkout` and :func:`create_order`. Placing an order reads
prices and stock and writes the order, its lines, the stock decrements, the coupon's use and
the emptied cart as one unit, under the write lock taken up front (``BEGIN IMMEDIATE`` on
SQLite; a lock on the user's row on PostgreSQL), so that either all of it is stored or nothing
(the rules themselves are :mod:`.placement`, which takes the session). They own that
transaction because a repeated ``Idempotency-Key`` that lost a race must be answered with the
winner's order after its own transaction rolled back, and because a mobile-money order then
starts its charge with the payment provider, which must happen after the order is committed
and outside any transaction (``services.payments.flow``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ...db import session_scope, write_session
from ...models import Order, PaymentMethod, User
from .. import ServiceError, idempotency, payments  # the module: payments imports orders.status in turn
from ..checkout import CheckoutChoice
from ..error_codes import ErrorCode
from ..permissions import require_user
from .placement import clean_idempotency_key, order_for_key, place_from_cart, place_from_items, wanted_items

ORDER_SCOPE = "order"  # one scope for both ways in: a key is one order, whichever endpoint asked


def _repeated(session: Session, user: User, key: str | None, request: str) -> Order | None:
    """The order of an earlier request with this key, if any; 409 ``idempotency_key_reused`` when
    that request asked for something else (another choice, coupon or endpoint: answering it with
    the first order would say "placed" of an order never asked for). A key older than the stored
    requests (:data:`idempotency.KEEP_HOURS`) still finds its order, unchecked."""
    existing = order_for_key(session, user, key)
    if existing is not None and key is not None:
        idempotency.replay(session, user.id, ORDER_SCOPE, key, request)
    return existing


def _placed_once(user: User, idempotency_key: str | None, request: Any,
                 place: Callable[[Session], Order]) -> tuple[Order, bool]:
    """Run ``place(session)`` in one write transaction; return the order and whether it is new
    (False: the earlier order of a repeated key, asked with the same ``request``).

    Owns its transactions: the placement's write transaction, and after a lost race a read of
    the winner's order (see the module docstring).
    """
    print_ = idempotency.fingerprint(request)
    try:
        with write_session() as session:
            # One placement per user at a time (PostgreSQL; SQLite's write lock already does this):
            # a repeated key then finds the first order instead of the cart that order emptied.
            session.exec(select(User.id).where(User.id == user.id).with_for_update())
            existing = _repeated(session, user, idempotency_key, print_)
            if existing is not None:
                return existing, False
            order = place(session)
            if idempotency_key is not None:
                idempotency.remember(session, user.id, ORDER_SCOPE, idempotency_key, print_, 201, {"order": order.id})
            return order, True
    except (IntegrityError, ServiceError) as error:
        # Two requests with the same key raced (PostgreSQL): the loser either hit the unique key
        # or, reading after the winner committed, found the cart already emptied. Its writes were
        # rolled back; if the key has an order now, that order is the answer.
        if idempotency_key is None or getattr(error, "code", None) == ErrorCode.IDEMPOTENCY_KEY_REUSED:
            raise
        with session_scope() as session:
            existing = _repeated(session, user, idempotency_key, print_)
        if existing is None:
            raise
        return existing, False


def checkout(
    user: User,
    choice: CheckoutChoice | None = None,
    *,
    coupon_code: str | None = None,
    idempotency_key: str | None = None,
    site_origin: str = "",
    expected_total: Decimal | None = None,
) -> Order:
    """Turn the user's cart into a pending order and empty the cart.

    ``choice`` defaults to home delivery to the default address, cash on delivery (what the
    original client's ``{}`` means). 400 "No address found" (code ``no_address``) / "Cart is
    empty" / "Invalid coupon code" / an invalid choice (see ``services.checkout``); 409 naming
    a product whose availability or stock no longer fits, or (``total_changed``) when
    ``expected_total`` is not what the order would cost; nothing is written then. A repeated
    ``idempotency_key`` returns the first order and changes nothing (409
    ``idempotency_key_reused`` when it comes with another request).

    A mobile-money order is then sent to the payment provider (``site_origin`` is where the
    provider returns the shopper); its ``payment_url`` stays empty if the provider could not
    be reached, and the order waits for payment until it expires.

    Owns its transactions: the placement's (see the module docstring), then the provider's
    (``payments.send_to_provider``), then a read of the order as it stands.
    """
    require_user(user)
    key = clean_idempotency_key(idempotency_key)
    choice = choice or CheckoutChoice()

    def place(session: Session) -> Order:
        return place_from_cart(
            session, user, choice, coupon_code=coupon_code, idempotency_key=key, expected_total=expected_total
        )

    request = {"checkout": dataclasses.asdict(choice), "coupon": coupon_code, "expected_total": expected_total}
    order, new = _placed_once(user, key, request, place)
    if new and order.payment_method == PaymentMethod.MOBILE_MONEY.value and order.payment_reference:
        payments.send_to_provider(order.id, order.payment_reference, site_origin=site_origin)
        with session_scope() as session:
            order = session.get(Order, order.id)
    return order


def create_order(
    user: User,
    items: Sequence[dict[str, Any]],
    *,
    coupon_code: str | None = None,
    idempotency_key: str | None = None,
) -> Order:
    """Place an order for an explicit list of ``{"product": id, "quantity": n}`` (the cart is untouched).

    Same rules as :func:`checkout`; an unknown product is a 400.

    Owns its transactions: the placement's (see the module docstring).
    """
    require_user(user)
    key = clean_idempotency_key(idempotency_key)
    wanted = wanted_items(items)

    def place(session: Session) -> Order:
        return place_from_items(session, user, wanted, coupon_code=coupon_code, idempotency_key=key)

    return _placed_once(user, key, {"items": wanted, "coupon": coupon_code}, place)[0]


