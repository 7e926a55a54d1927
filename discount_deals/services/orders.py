"""Checkout and orders: totals from pricing, stock decremented with guarded updates, coupons
counted with a guarded update too (services.coupons).

Placing an order (:func:`checkout`, :func:`create_order`) opens its own write transaction
(``BEGIN IMMEDIATE`` on SQLite) so that it reads prices and stock and writes the order as one
unit: either the order, its lines, the stock decrements and the emptied cart are all stored,
or nothing is. Stock is decremented with a guarded ``UPDATE ... WHERE stock >= :q`` so that it
never goes below zero, whatever the database. A mobile-money order then starts its charge
with the payment provider, outside that transaction (``services.payments``).

What happens to an order afterwards (status changes, cancellation, the timeline) lives in
``services.order_status``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..db import session_scope, write_session
from ..models import (
    Address,
    Cart,
    CartItem,
    Coupon,
    Order,
    OrderItem,
    OrderStatus,
    PaymentMethod,
    PaymentStatus,
    Product,
    User,
)
from . import Conflict, NotFound, ServiceError, ValidationFailed, coupons, pricing
from . import order_status as lifecycle
from . import pickup_stores
from .cart import parse_quantity
from .catalog import is_visible
from .checkout import NO_ADDRESS, CheckoutChoice, ResolvedChoice, coupon_effect, default_address, resolve_choice
from .permissions import is_admin, require_user
from .users import address_dict

MAX_IDEMPOTENCY_KEY_LENGTH = 128


class OrderLine(NamedTuple):
    """A stored order line and its product (None once the product has been deleted)."""

    item: OrderItem
    product: Product | None


# --- coupons (services.coupons; the names stay here for older callers) --------------------------

create_coupon = coupons.create_coupon
find_coupon = coupons.find_coupon
COUPON_CODE_RE = coupons.COUPON_CODE_RE
INVALID_COUPON = coupons.INVALID_COUPON


# --- placing orders --------------------------------------------------------------------------


def _clean_idempotency_key(key: str | None) -> str | None:
    key = (key or "").strip()
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValidationFailed(f"Idempotency-Key may have at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters.")
    return key or None


def _order_for_key(session: Session, user: User, key: str | None) -> Order | None:
    if key is None:
        return None
    return session.exec(select(Order).where(Order.user_id == user.id, Order.idempotency_key == key)).first()


def shipping_address(session: Session, user: User) -> Address:
    """The address an order ships to: the default one, else the first saved (400 when none)."""
    address = default_address(session, user)
    if address is None:
        raise ValidationFailed(NO_ADDRESS, code="no_address")
    return address


def _address_snapshot(address: Address) -> dict[str, str]:
    """The address as the order keeps it: the account's address dict, without the default flag."""
    return {key: value for key, value in address_dict(address).items() if key != "is_default"}


def _merge(wanted: Iterable[tuple[str, int]]) -> dict[str, int]:
    merged: dict[str, int] = {}
    for product_id, quantity in wanted:
        merged[product_id] = merged.get(product_id, 0) + quantity
    return merged


def _cash_on_delivery(address: Address) -> ResolvedChoice:
    return ResolvedChoice("delivery", PaymentMethod.CASH_ON_DELIVERY.value, address, None, None, None)


def _place_order(
    session: Session,
    user: User,
    wanted: dict[str, int],
    *,
    choice: ResolvedChoice,
    coupon: Coupon | None,
    idempotency_key: str | None,
    expected_total: Decimal | None = None,
) -> Order:
    """Re-check ``wanted`` (product id → quantity) against today's catalogue, take the stock, store the order."""
    # Locked in id order so that two PostgreSQL transactions never wait on each other in a cycle.
    products = {
        product.id: product
        for product in session.exec(
            select(Product).where(Product.id.in_(list(wanted))).order_by(Product.id).with_for_update()
        )
    }
    lines: list[tuple[Product, pricing.PricedLine]] = []
    now = pricing.now_utc()  # one moment prices every line of the order
    for product_id, quantity in wanted.items():
        product = products.get(product_id)
        if product is None:
            raise Conflict("A product in your order no longer exists.")
        if not is_visible(product):
            raise Conflict(f"{product.name} is no longer available.")
        if product.stock < quantity:
            raise Conflict(f"Not enough stock for {product.name}: only {product.stock} left.")
        lines.append((product, pricing.priced_line(product, quantity, now)))

    for product, line in sorted(lines, key=lambda pair: pair[0].id):
        taken = session.execute(
            update(Product)
            .where(Product.id == product.id, Product.stock >= line.quantity)
            .values(stock=Product.stock - line.quantity)
        )
        if taken.rowcount != 1:
            raise Conflict(f"Not enough stock for {product.name}.")

    totals = pricing.cart_totals((line for _product, line in lines), coupon_effect(coupon), pickup=choice.pickup)
    if coupon is not None:
        coupons.check_minimum(coupon, totals.subtotal)
        coupons.redeem(session, coupon, now)  # one use, counted atomically in this transaction
    if expected_total is not None and totals.total != expected_total:
        raise Conflict(
            f"Your order now comes to {pricing.format_money(totals.total)}: please review it again.",
            code="total_changed",
        )
    mobile_money = choice.mobile_money
    order = Order(
        user_id=user.id,
        status=OrderStatus.PENDING.value,
        item_count=totals.item_count,
        subtotal=totals.subtotal,
        savings=totals.savings,
        discount=totals.discount,
        shipping=totals.shipping,
        tax=totals.tax,
        total=totals.total,
        coupon_code=coupon.code if coupon else None,
        address=_address_snapshot(choice.address) if choice.address is not None else None,
        idempotency_key=idempotency_key,
        delivery_method=choice.delivery_method,
        pickup_store_id=choice.store.id if choice.store is not None else None,
        pickup_store=pickup_stores.snapshot(choice.store) if choice.store is not None else None,
        payment_method=choice.payment_method,
        payment_status=(PaymentStatus.AWAITING_PAYMENT if mobile_money else PaymentStatus.PAY_ON_DELIVERY).value,
        payment_network=choice.network,
        payment_phone=choice.phone,
    )
    session.add(order)
    session.flush()
    lifecycle.record_event(session, order, "status", OrderStatus.PENDING.value, actor=user, note="Order placed")
    if mobile_money:
        from . import payments  # payments applies provider results through order_status

        payments.open_payment(session, order)
        order.payment_due_at = payments.payment_deadline()
        session.add(order)
    session.add_all(
        OrderItem(
            order_id=order.id,
            product_id=product.id,
            name=product.name,
            image_url=product.image_url,
            unit_price=line.unit_price,
            original_price=line.original_price,
            quantity=line.quantity,
            line_total=line.line_total,
        )
        for product, line in lines
    )
    session.flush()
    return order


def _placed_once(user: User, idempotency_key: str | None, place) -> Order:
    """Run ``place(session)`` in one write transaction, returning the earlier order for a repeated key."""
    try:
        with write_session() as session:
            # One placement per user at a time (PostgreSQL; SQLite's write lock already does this):
            # a repeated key then finds the first order instead of the cart that order emptied.
            session.exec(select(User.id).where(User.id == user.id).with_for_update())
            existing = _order_for_key(session, user, idempotency_key)
            if existing is not None:
                return existing
            return place(session)
    except (IntegrityError, ServiceError):
        # Two requests with the same key raced (PostgreSQL): the loser either hit the unique key
        # or, reading after the winner committed, found the cart already emptied. Its writes were
        # rolled back; if the key has an order now, that order is the answer.
        if idempotency_key is None:
            raise
        with session_scope() as session:
            existing = _order_for_key(session, user, idempotency_key)
        if existing is None:
            raise
        return existing


def checkout(
    user: User,
    choice: CheckoutChoice | None = None,
    *,
    coupon_code: str | None = None,
    idempotency_key: str | None = None,
    site_origin: str = "",
    expected_total: Decimal | None = None,
) -> Order:
    """Turn the user's cart into a pending order and empty the cart; the service owns the transaction.

    ``choice`` defaults to home delivery to the default address, cash on delivery (what the
    original client's ``{}`` means). 400 "No address found" (code ``no_address``) / "Cart is
    empty" / "Invalid coupon code" / an invalid choice (see ``services.checkout``); 409 naming
    a product whose availability or stock no longer fits, or (``total_changed``) when
    ``expected_total`` is not what the order would cost; nothing is written then. A repeated
    ``idempotency_key`` returns the first order and changes nothing.

    A mobile-money order is then sent to the payment provider (``site_origin`` is where the
    provider returns the shopper); its ``payment_url`` stays empty if the provider could not
    be reached, and the order waits for payment until it expires.
    """
    require_user(user)
    key = _clean_idempotency_key(idempotency_key)
    choice = choice or CheckoutChoice()
    placed: dict[str, bool] = {}

    def place(session: Session) -> Order:
        resolved = resolve_choice(session, user, choice)
        cart = session.exec(select(Cart).where(Cart.user_id == user.id)).first()
        items = session.exec(select(CartItem).where(CartItem.cart_id == cart.id)).all() if cart else []
        if not items:
            raise ValidationFailed("Cart is empty", code="cart_empty")
        coupon = find_coupon(session, coupon_code) if coupon_code and coupon_code.strip() else None
        order = _place_order(
            session,
            user,
            _merge((item.product_id, item.quantity) for item in items),
            choice=resolved,
            coupon=coupon,
            idempotency_key=key,
            expected_total=expected_total,
        )
        for item in items:
            session.delete(item)
        session.flush()
        placed["new"] = True
        return order

    order = _placed_once(user, key, place)
    if placed.get("new") and order.payment_method == PaymentMethod.MOBILE_MONEY.value and order.payment_reference:
        from . import payments

        payments.send_to_provider(order.id, order.payment_reference, site_origin=site_origin)
        with session_scope() as session:
            order = session.get(Order, order.id)
    return order


def _wanted_items(items: Any) -> dict[str, int]:
    if not isinstance(items, list) or not items:
        message = "An order needs at least one item."
        raise ValidationFailed(message, fields={"items": [message]})
    errors: list[str] = []
    wanted: list[tuple[str, int]] = []
    for index, entry in enumerate(items, start=1):
        product = entry.get("product") if isinstance(entry, dict) else None
        if isinstance(product, dict):
            product = product.get("id")
        if not isinstance(product, str) or not product:
            errors.append(f"Item {index}: product is required.")
            continue
        try:
            quantity = parse_quantity(entry.get("quantity", 1), minimum=1)
        except ValidationFailed as exc:
            errors.append(f"Item {index}: {exc.detail}")
            continue
        wanted.append((product, quantity))
    if errors:
        raise ValidationFailed("; ".join(errors), fields={"items": errors})
    return _merge(wanted)


def create_order(
    user: User,
    items: Sequence[dict[str, Any]],
    *,
    coupon_code: str | None = None,
    idempotency_key: str | None = None,
) -> Order:
    """Place an order for an explicit list of ``{"product": id, "quantity": n}`` (the cart is untouched).

    Same rules as :func:`checkout`; an unknown product is a 400.
    """
    require_user(user)
    key = _clean_idempotency_key(idempotency_key)
    wanted = _wanted_items(items)

    def place(session: Session) -> Order:
        address = shipping_address(session, user)
        known = set(session.exec(select(Product.id).where(Product.id.in_(list(wanted)))).all())
        missing = [f"Product {product_id} not found." for product_id in wanted if product_id not in known]
        if missing:
            raise ValidationFailed(missing[0], fields={"items": missing})
        coupon = find_coupon(session, coupon_code) if coupon_code and coupon_code.strip() else None
        return _place_order(
            session, user, wanted, choice=_cash_on_delivery(address), coupon=coupon, idempotency_key=key
        )

    return _placed_once(user, key, place)


# --- reading and managing orders -------------------------------------------------------------


def list_orders(session: Session, user: User, offset: int = 0, limit: int = 100) -> tuple[list[Order], int]:
    """The user's own orders, newest first, and how many they have in all."""
    require_user(user)
    count = session.exec(select(func.count()).select_from(Order).where(Order.user_id == user.id)).one()
    orders = session.exec(
        select(Order)
        .where(Order.user_id == user.id)
        .order_by(Order.created_at.desc(), Order.id.desc())
        .offset(offset)
        .limit(limit)
    ).all()
    return list(orders), count


def get_order(session: Session, user: User, order_id: str) -> Order:
    """One of the user's orders (admins may read any); 404 for anyone else's."""
    require_user(user)
    order = session.get(Order, order_id)
    if order is None or (order.user_id != user.id and not is_admin(user)):
        raise NotFound("Order not found.")
    return order


def items_for_orders(session: Session, orders: Sequence[Order]) -> dict[str, list[OrderLine]]:
    """The lines of several orders in one query, keyed by order id."""
    by_order: dict[str, list[OrderLine]] = {order.id: [] for order in orders}
    if not by_order:
        return by_order
    rows = session.exec(
        select(OrderItem, Product)
        .join(Product, Product.id == OrderItem.product_id, isouter=True)
        .where(OrderItem.order_id.in_(list(by_order)))
        .order_by(OrderItem.name, OrderItem.id)
    ).all()
    for item, product in rows:
        by_order[item.order_id].append(OrderLine(item, product))
    return by_order


def order_items(session: Session, order: Order) -> list[OrderLine]:
    """The snapshotted lines of one order."""
    return items_for_orders(session, [order])[order.id]


def update_status(session: Session, actor: User, order_id: str, status: Any) -> Order:
    """An admin moves an order along its statuses (see ``services.order_status``)."""
    return lifecycle.admin_change_status(session, actor, order_id, status)
