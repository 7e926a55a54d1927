"""The logged-in user's cart: lines, quantities against stock, clearing.

Stock can run out while a product waits in a cart: :func:`stock_note` says what a line can
still have ("Only 2 left", "Sold out"), and :func:`fit_to_stock` is the one-tap fix (the
quantity set to what is left, or the line removed), both from the database's stock.

Every function takes the acting ``user`` and works only on that user's cart: another user's
line or cart is reported as not found. Guests keep their cart in the browser.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import delete, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..models import Cart, CartItem, Category, Product, User
from . import NotFound, ServiceError, ValidationFailed, flash_sales
from .catalog import is_visible
from .error_codes import ErrorCode
from .permissions import require_user
from .pricing import LineTotal, product_price
from .money import round_amount
from .rows import by_id, could_be_id

log = logging.getLogger("discount_deals.cart")

_WHOLE_NUMBER = re.compile(r"-?\d{1,9}")


# A cart holds at most this many different products: the API's one page of cart lines, all the
# original client reads of a cart (CLIENT-CONTRACT §4). A 101st line was ordered unseen: the cart
# and its summary showed 100, the checkout charged for them all.
MAX_LINES = 100
CART_FULL = f"Your cart holds {MAX_LINES} different products, the most it can. Check out or remove some first."
CART_OVER = f"Your cart holds more than {MAX_LINES} different products: remove some before checking out."
SOLD_OUT = "Sold out"
NO_LONGER_SOLD = "No longer available"


def no_longer_available(name: str) -> str:
    """What a shopper is told of a product taken off sale (hidden or deleted) in their cart."""
    return f"{name} is no longer available."


def remove_to_check_out(name: str) -> str:
    """Checkout's refusal of a line taken off sale: what it is, and what to do."""
    return f"{no_longer_available(name)} Remove it from your cart to check out."


def withdrawn_from_cart(names: list[str]) -> str:
    """Lines whose products were deleted, gone from the cart: "Kettle is no longer available and
    was removed from your cart." (several: "A, B are ... were ...")."""
    if len(names) == 1:
        return f"{names[0]} is no longer available and was removed from your cart."
    return f"{', '.join(names)} are no longer available and were removed from your cart."


@dataclass(frozen=True)
class StockNote:
    """What a cart line can have of its product now."""

    available: int  # how many can be bought (0: sold out, or no longer sold)
    short: bool  # the line wants more than that
    text: str  # "Only 2 left", "Sold out", "No longer available"; "" when the line fits
    # Taken off sale: the line cannot be bought at all, so it stays out of every total (the cart's
    # summary, checkout's review) until the shopper removes it.
    withdrawn: bool = False

    @property
    def sold_out(self) -> bool:
        return self.available == 0


def stock_note(product: Product, quantity: int) -> StockNote:
    """The line's stock as the database has it; never "only 0 left"."""
    visible = is_visible(product)
    available = max(product.stock, 0) if visible else 0
    if available == 0:
        return StockNote(0, True, SOLD_OUT if visible else NO_LONGER_SOLD, withdrawn=not visible)
    if quantity > available:
        return StockNote(available, True, f"Only {available} left")
    return StockNote(available, False, "")


@dataclass(frozen=True)
class CartLine(LineTotal):
    """One cart line with its product and today's prices."""

    id: str
    cart_id: str
    product: Product
    category: Category | None
    quantity: int
    unit_price: Decimal
    original_price: Decimal

    @property
    def stock(self) -> StockNote:
        return stock_note(self.product, self.quantity)


def buyable(lines: Iterable[CartLine]) -> list[CartLine]:
    """The lines that can be bought: every line but those taken off sale (they are shown, marked,
    outside the totals)."""
    return [line for line in lines if not line.stock.withdrawn]


def unavailable_names(session: Session, products: dict[str, str]) -> list[str]:
    """The names (of ``products``: id → the name the shopper saw) of those deleted or taken off
    sale since: what a cart or checkout that lost a line tells the shopper."""
    ids = [product_id for product_id in products if could_be_id(product_id)]
    rows = {product.id: product for product in session.exec(select(Product).where(Product.id.in_(ids)))} if ids else {}
    return [name for product_id, name in products.items()
            if product_id not in rows or not is_visible(rows[product_id])]


def parse_quantity(value: Any, *, minimum: int = 1, field: str = "quantity") -> int:
    """A whole number of at least ``minimum`` from JSON or form input (``2``, ``"2"``, ``2.0``)."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None:
        message = "Quantity must be a whole number."
    elif number < 0 and minimum == 0:
        message = "Quantity cannot be negative."
    elif number < minimum:
        message = f"Quantity must be at least {minimum}."
    else:
        return number
    raise ValidationFailed(message, fields={field: [message]})


def check_quantity(product: Product, quantity: int, *, in_cart: bool = False) -> None:
    """Refuse (400) a quantity the shop cannot sell: hidden product (``no_longer_available``; said
    so of a line ``in_cart``), no stock, or more than the stock."""
    if not is_visible(product):
        message = no_longer_available(product.name) if in_cart else f"{product.name} is not available."
        raise ValidationFailed(message, fields={"product": [message]}, code=ErrorCode.NO_LONGER_AVAILABLE)
    if product.stock <= 0:
        message = f"{product.name} is out of stock."
        raise ValidationFailed(message, fields={"product": [message]})
    if quantity > product.stock:
        message = f"Only {product.stock} left in stock for {product.name}."
        raise ValidationFailed(message, fields={"quantity": [message]})


def check_room(lines: int) -> None:
    """A new line may join a cart that holds ``lines`` already (400 ``cart_full`` when it is full)."""
    if lines >= MAX_LINES:
        raise ValidationFailed(CART_FULL, fields={"product": [CART_FULL]}, code=ErrorCode.CART_FULL, expose_code=True)


def check_lines(lines: int) -> None:
    """A cart checks out with at most ``MAX_LINES`` lines (400 ``cart_full``): one filled before
    the cap showed 100 and ordered them all."""
    if lines > MAX_LINES:
        raise ValidationFailed(CART_OVER, code=ErrorCode.CART_FULL, expose_code=True)


def get_cart(session: Session, user: User) -> Cart | None:
    """The user's cart, or None before their first add."""
    require_user(user)
    return session.exec(select(Cart).where(Cart.user_id == user.id)).first()


def _get_or_create_cart(session: Session, user: User, *, lock: bool = False) -> Cart:
    """The user's cart, made at their first add; ``lock``: its row is this transaction's until it
    ends (PostgreSQL; SQLite's writers take turns already)."""
    query = select(Cart).where(Cart.user_id == require_user(user).id)
    query = query.with_for_update() if lock else query
    cart = session.exec(query).first()
    if cart is not None:
        return cart
    try:
        with session.begin_nested():
            cart = Cart(user_id=user.id)
            session.add(cart)
    except IntegrityError:
        # A concurrent request of the same user created it first (one cart per user).
        cart = session.exec(query).first()
    return cart


def _touch(session: Session, cart_id: str) -> None:
    """Every change of a cart's lines (a removal too) is a touch: the cart's reminder waits
    again from now (services.messages.reminders)."""
    session.execute(update(Cart).where(Cart.id == cart_id).values(updated_at=datetime.now(UTC)))


def _own_line(session: Session, user: User, item_id: str) -> CartItem:
    require_user(user)
    # Locked until the change is written (PostgreSQL): a checkout taking the line meanwhile makes
    # this a 404, as it would be a moment later, rather than a write that finds no row. The cart
    # first, then the line: the order an add takes them in (_get_or_create_cart, then the line),
    # so a change and an add of one line at once queue instead of deadlocking.
    session.exec(select(Cart.id).where(Cart.user_id == user.id).with_for_update()).first()
    line = session.exec(
        select(CartItem).join(Cart, Cart.id == CartItem.cart_id).where(CartItem.id == item_id, Cart.user_id == user.id)
        .with_for_update(of=CartItem)
    ).first()
    if line is None:
        raise NotFound("Cart item not found.")
    return line


def _product(session: Session, product_id: Any) -> Product:
    product = by_id(session, Product, product_id)
    if product is None:
        message = "Product not found."
        raise ValidationFailed(message, fields={"product": [message]})
    return product


def _lines(session: Session, user: User, *where) -> list[CartLine]:
    require_user(user)
    rows = session.exec(
        select(CartItem, Product, Category)
        .join(Cart, Cart.id == CartItem.cart_id)
        .join(Product, Product.id == CartItem.product_id)
        .join(Category, Category.id == Product.category_id, isouter=True)
        .where(Cart.user_id == user.id, *where)
        .order_by(CartItem.created_at, CartItem.id)
    ).all()
    now = datetime.now(UTC)
    return [
        CartLine(
            id=item.id,
            cart_id=item.cart_id,
            product=product,
            category=category,
            quantity=item.quantity,
            unit_price=product_price(product, now).unit_price,
            original_price=round_amount(product.price),
        )
        for item, product, category in rows
    ]


def cart_lines(session: Session, user: User) -> list[CartLine]:
    """The user's cart lines, oldest first, with products and current prices."""
    return _lines(session, user)


def cart_line(session: Session, user: User, item_id: str) -> CartLine:
    """One of the user's cart lines (404 for anyone else's)."""
    lines = _lines(session, user, CartItem.id == item_id)
    if not lines:
        raise NotFound("Cart item not found.")
    return lines[0]


def add_item(session: Session, user: User, product_id: str, quantity: Any = 1) -> CartItem:
    """Add ``quantity`` of a product, merging into the existing line; the total must fit the stock."""
    require_user(user)
    quantity = parse_quantity(quantity, minimum=1)
    product = _product(session, product_id)
    # The cart's row is this request's until it ends: two adds at once (two tabs, a double tap)
    # each add to the line the other left, instead of both creating it (a 409) or both writing
    # the quantity they read (one add lost).
    cart = _get_or_create_cart(session, user, lock=True)
    line = session.exec(
        select(CartItem).where(CartItem.cart_id == cart.id, CartItem.product_id == product.id)
        .execution_options(populate_existing=True)
    ).first()
    total = quantity + (line.quantity if line else 0)
    check_quantity(product, total)
    flash_sales.check_cart_quantity(session, user, product, total)
    if line is None:
        check_room(session.exec(select(func.count()).select_from(CartItem).where(CartItem.cart_id == cart.id)).one())
        line = CartItem(cart_id=cart.id, product_id=product.id, quantity=total)
    else:
        line.quantity = total
    session.add(line)
    session.flush()
    _touch(session, cart.id)
    return line


def set_quantity(session: Session, user: User, item_id: str, quantity: Any) -> CartItem | None:
    """Set a line's quantity; 0 removes the line (returns None), a negative number is refused."""
    quantity = parse_quantity(quantity, minimum=0)
    line = _own_line(session, user, item_id)
    if quantity == 0:
        _touch(session, line.cart_id)
        session.delete(line)
        session.flush()
        return None
    product = _product(session, line.product_id)
    check_quantity(product, quantity, in_cart=True)
    flash_sales.check_cart_quantity(session, user, product, quantity)
    _touch(session, line.cart_id)
    line.quantity = quantity
    session.add(line)
    session.flush()
    return line


def fit_to_stock(session: Session, user: User, item_id: str) -> CartItem | None:
    """The one-tap fix of a short line: its quantity becomes what is left now, or the line goes
    when nothing is (returns None then). A line that fits is left as it is."""
    line = _own_line(session, user, item_id)
    _touch(session, line.cart_id)
    note = stock_note(_product(session, line.product_id), line.quantity)
    if note.available == 0:
        session.delete(line)
        session.flush()
        return None
    if note.short:
        line.quantity = note.available
        session.add(line)
        session.flush()
    return line


def merge_guest_cart(session: Session, user: User, lines: Iterable[tuple[str, int]]) -> int:
    """Copy a guest's cart (``(product_id, quantity)`` pairs) into the user's cart after login or
    registration (SPEC §4): line by line, merging quantities; a line the rules refuse (sold out,
    unknown product, more than the stock) is skipped and the others still go in. Returns how
    many lines went in."""
    require_user(user)
    merged = 0
    for product_id, quantity in lines:
        try:
            with session.begin_nested():  # a refused line leaves nothing behind
                add_item(session, user, product_id, quantity)
        except ServiceError as exc:
            log.info("guest cart line not merged: %s", exc.detail)
        else:
            merged += 1
    return merged


def remove_item(session: Session, user: User, item_id: str) -> None:
    """Remove one of the user's lines (404 for anyone else's)."""
    line = _own_line(session, user, item_id)
    _touch(session, line.cart_id)
    session.delete(line)
    session.flush()


def clear_cart(session: Session, user: User, cart_id: str | None = None) -> None:
    """Empty the user's cart. With ``cart_id``, it must be the user's own cart (else 404)."""
    cart = get_cart(session, user)
    if cart_id is not None and (cart is None or cart.id != cart_id):
        raise NotFound("Cart not found.")
    if cart is not None:
        session.execute(delete(CartItem).where(CartItem.cart_id == cart.id))
        _touch(session, cart.id)
        session.flush()
