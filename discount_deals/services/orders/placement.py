"""Placing an order inside the caller's write transaction: re-check, take the stock, store it.

:func:`place_from_cart` and :func:`place_from_items` re-check what the shopper wants against
today's catalogue, price it with ``services.pricing`` (one moment prices every line), take the
stock with guarded updates (``UPDATE ... WHERE stock >= :q``, so it never goes below zero
whatever the database), hold a flash sale to its limit per customer (``services.flash_sales``,
counted once the product rows are locked), count the coupon's use (``services.coupons.redeem``)
and store the order with its lines and its first timeline event. A refusal raises before the caller commits, so
either all of it is stored or nothing. ``services.orders`` runs them in their transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from sqlalchemy import case, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from ...models import Address, Cart, CartItem, Coupon, Order, OrderItem, OrderStatus, PaymentMethod, PaymentStatus
from ...models import Product, User
from ...config.settings import get_settings
from .. import Conflict, ValidationFailed, coupons, flash_sales, payments, pickup_stores, pricing
from . import status as lifecycle
from ..cart import check_lines, no_longer_available, parse_quantity, remove_to_check_out
from ..catalog import is_visible, visible_clause
from ..catalog.fields import MAX_PRICE
from ..error_codes import ErrorCode
from ..form_rules import as_sentences
from ..money import money_text
from ..checkout import NO_ADDRESS, CheckoutChoice, ResolvedChoice, account_contact_phone, default_address, order_totals
from ..checkout import resolve_choice
from ..rows import canonical_id, could_be_id, values_of
from ..users import address_dict

MAX_IDEMPOTENCY_KEY_LENGTH = 128
# What an order and its lines keep of the prices at the moment it was placed (services.pricing).
ORDER_TOTALS = ("item_count", "subtotal", "savings", "discount", "shipping", "tax", "total")
LINE_PRICES = ("unit_price", "original_price", "quantity", "line_total")

PricedProducts = list[tuple[Product, pricing.PricedLine]]


def clean_idempotency_key(key: str | None) -> str | None:
    """The client's ``Idempotency-Key`` stripped (None when blank); 400 when too long."""
    key = (key or "").strip()
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValidationFailed(f"Idempotency-Key may have at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters.")
    return key or None


def order_for_key(session: Session, user: User, key: str | None) -> Order | None:
    """The user's order placed with this idempotency key, if any."""
    if key is None:
        return None
    return session.exec(select(Order).where(Order.user_id == user.id, Order.idempotency_key == key)).first()


def shipping_address(session: Session, user: User) -> Address:
    """The address an order ships to: the default one, else the first saved (400 when none)."""
    address = default_address(session, user)
    if address is None:
        raise ValidationFailed(NO_ADDRESS, code=ErrorCode.NO_ADDRESS)
    return address


def merge_quantities(wanted: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Product id → quantity, adding up repeated products."""
    merged: dict[str, int] = {}
    for product_id, quantity in wanted:
        merged[product_id] = merged.get(product_id, 0) + quantity
    return merged


def wanted_items(items: Any) -> dict[str, int]:
    """An explicit order's ``[{"product": id, "quantity": n}]`` as product id → quantity (400
    naming each bad item)."""
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
        wanted.append((canonical_id(product), quantity))  # "8DE148B9-…" is the product the cart takes
    if errors:
        raise ValidationFailed(as_sentences(errors), fields={"items": errors})
    return merge_quantities(wanted)


# --- the two ways in --------------------------------------------------------------------------


def place_from_cart(
    session: Session,
    user: User,
    choice: CheckoutChoice,
    *,
    coupon_code: str | None,
    idempotency_key: str | None,
    expected_total: Decimal | None,
) -> Order:
    """The user's cart as a pending order, and the cart emptied (see ``orders.checkout``)."""
    resolved = resolve_choice(session, user, choice)
    # The cart's row is this transaction's (PostgreSQL), as a change of a line takes it first
    # (services.cart): a change the server confirmed is in the order, or comes after it (404);
    # read unlocked, a change made while the checkout waited for a product's lock was lost.
    cart = session.exec(select(Cart).where(Cart.user_id == user.id).with_for_update()).first()
    items = session.exec(select(CartItem).where(CartItem.cart_id == cart.id)).all() if cart else []
    if not items:
        raise ValidationFailed("Cart is empty", code=ErrorCode.CART_EMPTY)
    check_lines(len(items))
    _refuse_withdrawn(session, items)
    order = place_order(
        session,
        user,
        merge_quantities((item.product_id, item.quantity) for item in items),
        choice=resolved,
        coupon=coupons.given_coupon(session, coupon_code),
        idempotency_key=idempotency_key,
        expected_total=expected_total,
    )
    for item in items:
        session.delete(item)
    session.flush()
    return order


def _refuse_withdrawn(session: Session, items: list[CartItem]) -> None:
    """409 ``no_longer_available`` naming the first line of the cart taken off sale, with the
    way out (remove it): before the coupon, the total or the stock are looked at, which it would
    only confuse. ``place_order`` checks again once the rows are locked."""
    ids = [item.product_id for item in items]
    hidden = {product.id: product for product in session.exec(
        select(Product).where(Product.id.in_(ids), ~visible_clause()))}  # one read, however long the cart
    first = next((hidden[product_id] for product_id in ids if product_id in hidden), None)
    if first is not None:
        raise Conflict(remove_to_check_out(first.name), code=ErrorCode.NO_LONGER_AVAILABLE)


def place_from_items(
    session: Session, user: User, wanted: dict[str, int], *, coupon_code: str | None, idempotency_key: str | None
) -> Order:
    """An explicit list of products as a pending cash-on-delivery order to the shipping address
    (the cart is untouched); 400 for an unknown product."""
    address = shipping_address(session, user)
    asked = [product_id for product_id in wanted if could_be_id(product_id)]
    known = set(session.exec(select(Product.id).where(Product.id.in_(asked))).all())
    missing = [f"Product {product_id} not found." for product_id in wanted if product_id not in known]
    if missing:
        raise ValidationFailed(missing[0], fields={"items": missing})
    cash = ResolvedChoice("delivery", PaymentMethod.CASH_ON_DELIVERY.value, address, None, None, None,
                          account_contact_phone(user))
    coupon = coupons.given_coupon(session, coupon_code)
    return place_order(session, user, wanted, choice=cash, coupon=coupon, idempotency_key=idempotency_key)


# An order's amounts are kept in the money columns (12 digits, 2 of them decimals), as prices are.
MAX_ORDER_AMOUNT = MAX_PRICE


# --- placing ----------------------------------------------------------------------------------


def place_order(
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
    now = pricing.now_utc()  # one moment prices every line of the order
    products = _locked_products(session, wanted)
    lines = _priced_available(products, wanted, now)
    # After the lock: a concurrent checkout of the same customer has committed by now (flash_sales).
    flash_sales.check_order(session, user, products, wanted, now)
    _take_stock(session, lines)
    totals = order_totals((line for _product, line in lines), coupon, pickup=choice.pickup)
    if max(totals.subtotal, totals.savings, totals.total) >= MAX_ORDER_AMOUNT:  # the rest are at most these
        raise ValidationFailed("This order is too large to place: order fewer items.",
                               code=ErrorCode.ORDER_TOO_LARGE, expose_code=True)
    if choice.mobile_money and totals.total <= 0:  # no network charges 0.00 (Paystack reads it as "all")
        message = "Nothing is left to pay on this order: choose cash on delivery."
        raise ValidationFailed(message, fields={"payment_method": [message]}, code=ErrorCode.NOTHING_TO_PAY,
                               expose_code=True)
    if coupon is not None:
        coupons.redeem(session, coupon, now)  # one use, counted atomically in this transaction
    if expected_total is not None and totals.total != expected_total:
        raise Conflict(
            f"Your order now comes to {money_text(totals.total)}: please review it again.",
            code=ErrorCode.TOTAL_CHANGED,
        )
    order = _new_order(user, totals, choice, coupon, idempotency_key)
    session.add(order)
    session.flush()
    lifecycle.record_event(session, order, "status", OrderStatus.PENDING.value, actor=user, note="Order placed")
    if choice.mobile_money:
        payments.open_payment(session, order)  # the module: payments imports orders.status in turn
        order.payment_due_at = payments.payment_deadline()
        session.add(order)
    session.add_all(_order_item(order, product, line) for product, line in lines)
    session.flush()
    return order


def _locked_products(session: Session, wanted: dict[str, int]) -> dict[str, Product]:
    # Locked in id order so that two PostgreSQL transactions never wait on each other in a cycle.
    query = select(Product).where(Product.id.in_(list(wanted))).order_by(Product.id).with_for_update()
    return {product.id: product for product in session.exec(query)}


def _priced_available(products: dict[str, Product], wanted: dict[str, int], now) -> PricedProducts:
    """Each wanted product priced at ``now``; 409 naming one that is gone, hidden or short."""
    lines: PricedProducts = []
    for product_id, quantity in wanted.items():
        product = products.get(product_id)
        if product is None:
            raise Conflict("A product in your order no longer exists.", code=ErrorCode.NO_LONGER_AVAILABLE)
        if not is_visible(product):  # taken off sale: no restocking brings it back (not STOCK_SHORT)
            raise Conflict(no_longer_available(product.name), code=ErrorCode.NO_LONGER_AVAILABLE)
        if product.stock <= 0:
            raise Conflict(f"{product.name} is sold out.", code=ErrorCode.STOCK_SHORT)
        if product.stock < quantity:
            raise Conflict(f"Not enough stock for {product.name}: only {product.stock} left.", code=ErrorCode.STOCK_SHORT)
        lines.append((product, pricing.priced_line(product, quantity, now)))
    return lines


def _take_stock(session: Session, lines: PricedProducts) -> None:
    """One guarded decrement for every line (``stock >= quantity`` on each row, one statement
    however many lines): a row that no longer has its quantity refuses (409, the first in id order)."""
    wanted = {product.id: line.quantity for product, line in lines}
    quantity = case(wanted, value=Product.id)
    taken = session.execute(
        update(Product)
        .where(Product.id.in_(list(wanted)), Product.stock >= quantity)
        .values(stock=Product.stock - quantity)
        .returning(Product.id, Product.stock, Product.updated_at),
        execution_options={"synchronize_session": False},
    ).all()
    left = {row.id: row for row in taken}
    for product, _line in sorted(lines, key=lambda pair: pair[0].id):
        row = left.get(product.id)
        if row is None:
            raise Conflict(f"Not enough stock for {product.name}.", code=ErrorCode.STOCK_SHORT)
        # The loaded rows now read as the database holds them, without a write of their own.
        set_committed_value(product, "stock", row.stock)
        set_committed_value(product, "updated_at", row.updated_at)


def _new_order(
    user: User, totals: pricing.CartTotals, choice: ResolvedChoice, coupon: Coupon | None, key: str | None
) -> Order:
    store = choice.store
    return Order(
        user_id=user.id,
        status=OrderStatus.PENDING.value,
        **values_of(totals, ORDER_TOTALS),
        tax_lines=[line.as_json() for line in totals.tax_lines],
        coupon_code=coupon.code if coupon else None,
        address=_address_snapshot(choice.address) if choice.address is not None else None,
        idempotency_key=key,
        delivery_method=choice.delivery_method,
        pickup_store_id=store.id if store is not None else None,
        pickup_store=pickup_stores.snapshot(store) if store is not None else None,
        payment_method=choice.payment_method,
        payment_status=(
            PaymentStatus.AWAITING_PAYMENT if choice.mobile_money else PaymentStatus.PAY_ON_DELIVERY
        ).value,
        payment_network=choice.network,
        payment_phone=choice.phone,
        contact_phone=choice.contact_phone,
        return_days=get_settings().returns.days,  # the promise the checkout made ("Free returns within 30 days")
    )


def _address_snapshot(address: Address) -> dict[str, str]:
    """The address as the order keeps it: the account's address dict, without the default flag."""
    return {key: value for key, value in address_dict(address).items() if key != "is_default"}


def _order_item(order: Order, product: Product, line: pricing.PricedLine) -> OrderItem:
    return OrderItem(
        order_id=order.id, product_id=product.id, name=product.name, image_url=product.image_url,
        **values_of(line, LINE_PRICES),
    )
