"""The cart: in browser storage for guests (``cart-storage``), on the server for logged-in users.

Whatever the browser stored, prices, stock and totals are always recomputed from the
database by the services (``services.cart`` for the rules, ``services.pricing`` for totals).
"""

from __future__ import annotations

import dataclasses
import json
import logging

import reflex as rx

from .. import routes
from ..db import session_scope, write_session
from ..models import User
from ..services import ServiceError
from ..services import cart as cart_service
from ..services import catalog
from ..services.pricing import PricedLine, cart_totals, priced_line
from .actions import busy_call
from .session import SessionExpired, SessionState
from ..display import money_text, product_snapshot

log = logging.getLogger("discount_deals.cart")

ADD_FAILED = "Failed to add item to cart. Please try again."
UPDATE_FAILED = "Failed to update quantity. Please try again."
REMOVE_FAILED = "Failed to remove item. Please try again."


@dataclasses.dataclass
class CartRow:
    key: str = ""  # the server line id, or the product id for a guest line
    product_id: str = ""
    name: str = ""
    description: str = ""
    brand: str = ""
    category: str = ""
    image_url: str = ""
    price_text: str = ""
    original_text: str = ""
    has_discount: bool = False
    quantity: int = 1
    line_text: str = ""
    stock: int = 0


def _read_guest_cart(raw: str) -> list[dict]:
    """The entries of the client's ``cart-storage`` ({state: {cart: [...]}, version}); junk reads as empty."""
    try:
        data = json.loads(raw) if raw else {}
        entries = data.get("state", {}).get("cart", [])
    except (ValueError, AttributeError):
        return []
    cleaned = []
    for entry in entries if isinstance(entries, list) else []:
        product = entry.get("product") if isinstance(entry, dict) else None
        quantity = entry.get("quantity") if isinstance(entry, dict) else None
        if isinstance(product, dict) and isinstance(product.get("id"), str) and isinstance(quantity, int) and quantity > 0:
            cleaned.append({"product": product, "quantity": quantity})
    return cleaned


def _write_guest_cart(entries: list[dict]) -> str:
    return json.dumps({"state": {"cart": entries}, "version": 0}) if entries else ""


class CartState(rx.State):
    cart_storage: str = rx.LocalStorage(name="cart-storage")

    rows: list[CartRow] = []
    cart_id: str = ""
    item_count: int = 0
    subtotal_text: str = ""
    savings_text: str = ""
    has_savings: bool = False
    shipping_text: str = ""
    tax_text: str = ""
    total_text: str = ""
    free_shipping_gap_text: str = ""
    updating: bool = False
    loaded: bool = False
    coupon: str = ""

    @rx.var
    def item_count_text(self) -> str:
        return f"{self.item_count} item" if self.item_count == 1 else f"{self.item_count} items"

    # --- helpers -----------------------------------------------------------------------------

    async def _user(self) -> User | None:
        session_state = await self.get_state(SessionState)
        return await session_state._authenticated_user()

    def _forget(self) -> None:
        self.cart_storage = ""
        self.rows = []
        self.cart_id = ""
        self._set_totals([])

    def _set_totals(self, lines: list[PricedLine]) -> None:
        totals = cart_totals(lines)
        self.item_count = totals.item_count
        self.subtotal_text = money_text(totals.subtotal)
        self.savings_text = money_text(totals.savings)
        self.has_savings = totals.savings > 0
        self.shipping_text = "Free" if totals.shipping == 0 and totals.item_count else money_text(totals.shipping)
        self.tax_text = money_text(totals.tax)
        self.total_text = money_text(totals.total)
        self.free_shipping_gap_text = money_text(totals.free_shipping_gap) if totals.free_shipping_gap > 0 else ""

    def _show(self, rows: list[tuple[str, object, object, int]]) -> None:
        """Render lines given as (key, product, category, quantity)."""
        view_rows, priced = [], []
        for key, product, category, quantity in rows:
            priced.append(priced_line(product, quantity))
            unit = priced[-1].unit_price
            view_rows.append(
                CartRow(
                    key=key,
                    product_id=product.id,
                    name=product.name,
                    description=product.description,
                    brand=product.brand,
                    category=category.name if category else "",
                    image_url=product.image_url,
                    price_text=money_text(unit),
                    original_text=money_text(product.price),
                    has_discount=unit < product.price,
                    quantity=quantity,
                    line_text=money_text(priced[-1].line_total),
                    stock=product.stock,
                )
            )
        self.rows = view_rows
        self._set_totals(priced)

    def _reload(self, user: User | None) -> None:
        with session_scope() as session:
            if user is not None:
                lines = cart_service.cart_lines(session, user)
                self.cart_id = lines[0].cart_id if lines else ""
                self._show([(line.id, line.product, line.category, line.quantity) for line in lines])
            else:
                entries = _read_guest_cart(self.cart_storage)
                found = catalog.products_by_ids(session, [e["product"]["id"] for e in entries])
                kept = [e for e in entries if e["product"]["id"] in found]
                if len(kept) != len(entries):
                    self.cart_storage = _write_guest_cart(kept)
                self._show(
                    [(e["product"]["id"], *found[e["product"]["id"]], e["quantity"]) for e in kept]
                )
        self.loaded = True

    def _clear_coupon(self) -> None:
        self.coupon = ""

    def _after_order(self, user: User) -> None:
        """An order was placed from the server cart: forget the coupon and show the emptied cart."""
        self._clear_coupon()
        self._reload(user)

    def _guest_set(self, product_id: str, quantity: int, *, add: bool) -> str:
        """Change a guest line after checking the product and its stock; returns the product name."""
        entries = _read_guest_cart(self.cart_storage)
        with session_scope() as session:
            product, category = catalog.get_product(session, product_id)
            current = next((e for e in entries if e["product"]["id"] == product_id), None)
            wanted = (current["quantity"] if current and add else 0) + quantity
            cart_service.check_quantity(product, wanted)
            snapshot = product_snapshot(product, category)
        if current is None:
            entries.append({"product": snapshot, "quantity": wanted, "price": snapshot["price"]})
        else:
            current.update(product=snapshot, quantity=wanted, price=snapshot["price"])
        self.cart_storage = _write_guest_cart(entries)
        return product.name

    # --- events ------------------------------------------------------------------------------

    @rx.event
    async def load(self):
        try:
            self._reload(await self._user())
        except SessionExpired:
            self.loaded = True

    @rx.event
    async def refresh(self):
        """The 'Refresh Cart' button."""
        try:
            self._reload(await self._user())
        except SessionExpired:
            return (await self.get_state(SessionState))._login_redirect()

    @rx.event
    async def add_to_cart(self, product_id: str):
        """A card's 'Add to Cart': one more of the product."""
        async for update in self._add(product_id, 1):
            yield update

    @rx.event
    async def add_quantity(self, product_id: str, quantity: int):
        """The product page's 'Add to Cart' with the chosen quantity."""
        try:
            quantity = int(quantity)
        except (TypeError, ValueError):
            return
        if quantity >= 1:
            async for update in self._add(product_id, quantity):
                yield update

    async def _add(self, product_id: str, quantity: int):
        async def add() -> str:
            user = await self._user()
            if user is not None:
                with write_session() as session:
                    item = cart_service.add_item(session, user, product_id, quantity)
                    name = catalog.get_product(session, item.product_id)[0].name
            else:
                name = self._guest_set(product_id, quantity, add=True)
            self._reload(user)
            return name

        try:
            async for update in busy_call(
                self, "updating", add, success=lambda name: ("Added to cart!", f"{name} has been added to your cart."),
                failure=("Error", ADD_FAILED), describe=lambda exc: exc.detail if exc.status == 400 else ADD_FAILED,
                passes=(SessionExpired,),
            ):
                yield update
        except SessionExpired:
            yield (await self.get_state(SessionState))._login_redirect()

    async def _change(self, key: str, quantity: int):
        """Set a line's quantity (0 removes it): optimistic, then refetched, also after an error."""
        row = next((r for r in self.rows if r.key == key), None)
        if row is None:
            yield rx.toast.error("Error", description="Item not found in cart.")
            return
        if self.updating or quantity < 0:
            return
        row.quantity = quantity
        self.rows = [r for r in self.rows if r.quantity > 0]
        seen: dict[str, User | None] = {}

        async def change() -> None:
            user = seen["user"] = await self._user()
            if user is not None:
                if not key or key == row.product_id:  # a line the server never gave an id to
                    raise ServiceError("Cart item not found or missing ID")
                with write_session() as session:
                    cart_service.set_quantity(session, user, key, quantity)
            elif quantity == 0:
                entries = [e for e in _read_guest_cart(self.cart_storage) if e["product"]["id"] != key]
                self.cart_storage = _write_guest_cart(entries)
            else:
                self._guest_set(key, quantity, add=False)

        fallback = REMOVE_FAILED if quantity == 0 else UPDATE_FAILED
        done = "Item removed successfully!" if quantity == 0 else "Quantity updated successfully!"
        try:
            async for update in busy_call(
                self, "updating", change, success=(done, None), failure=("Error", fallback),
                describe=lambda exc: exc.detail if exc.status == 400 else fallback, passes=(SessionExpired,),
            ):
                yield update
        except SessionExpired:
            yield (await self.get_state(SessionState))._login_redirect()
            return
        user = seen.get("user")
        try:
            self._reload(user)
        except Exception:
            log.exception("cart reload failed")

    @rx.event
    async def increment(self, key: str):
        row = next((r for r in self.rows if r.key == key), None)
        async for update in self._change(key, (row.quantity if row else 0) + 1):
            yield update

    @rx.event
    async def decrement(self, key: str):
        row = next((r for r in self.rows if r.key == key), None)
        if row is not None and row.quantity <= 1:
            return  # the minus button never goes below 1; removing is the remove button's job
        async for update in self._change(key, (row.quantity if row else 0) - 1):
            yield update

    @rx.event
    async def remove(self, key: str):
        async for update in self._change(key, 0):
            yield update

    @rx.event
    def set_coupon(self, value: str):
        self.coupon = value[:64]

    @rx.event
    def apply_coupon(self):
        """'Apply' only acknowledges the code; the server checks it at checkout."""
        code = self.coupon.strip()
        if not code:
            return rx.toast.info("Enter a coupon code first")
        return rx.toast.success("Coupon added", description=f"{code} will be checked at checkout.")

    @rx.event
    async def checkout(self):
        """'Proceed to Checkout': the checkout page; guests log in first and come back to it."""
        session_state = await self.get_state(SessionState)
        if not session_state.access_token:
            return [
                rx.toast.error("Login Required", description="Please log in to proceed with checkout."),
                session_state._login_redirect(routes.CHECKOUT),
            ]
        return rx.redirect(routes.CHECKOUT)
