"""The cart: in browser storage for guests (``cart-storage``), on the server for logged-in users.

Whatever the browser stored, prices, stock and totals are always recomputed from the
database by the services (``services.cart`` for the rules, ``services.pricing`` for totals).
"""

from __future__ import annotations

import dataclasses
import time

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...display import LineStockView, ProductFace, face_fields, line_stock, money_text, product_snapshot, whatsapp_chat_url
from ...display import price_moves
from ...models import User
from ...services import ErrorCode, ServiceError
from ...services import cart as cart_service
from ...services import catalog, flash_sales
from ...services.pricing import PricedLine, cart_totals, priced_line
from ..account.session import SessionState, fresh, per_user, visit_key
from ..actions import busy_call, load_list, seq_number, toast
from ..forms import form_text, int_arg
from ..guards import current_user, user_event
from .guest_cart import guest_lines, guest_product, read_guest_cart, write_guest_cart
from .totals import TotalsView, totals_view

LOGIN_REQUIRED = ("Login Required", "Please log in to proceed with checkout.", "error")
ADD_FAILED = "Failed to add item to cart. Please try again."
UPDATE_FAILED = "Failed to update quantity. Please try again."
REMOVE_FAILED = "Failed to remove item. Please try again."


def _refusal_or(fallback: str):
    """What a toast says of a refused cart change: the rule's words for a bad quantity (400), a
    flash sale's limit or a product taken off sale, else the spec's ``fallback`` (a retry may help)."""
    told = (flash_sales.LIMIT_CODE, ErrorCode.NO_LONGER_AVAILABLE)
    return lambda exc: exc.detail if exc.status == 400 or exc.code in told else fallback


class _Gone(ServiceError):
    """A line's product deleted or taken off sale, found out by a refused change (named once)."""

    status = 409


def _explained(exc: ServiceError, row: CartRow) -> ServiceError:
    """A refused change of a line whose product was deleted or taken off sale meanwhile (a
    missing line, a product not found) says so by the name the shopper saw, never "try again"."""
    if exc.code == ErrorCode.NO_LONGER_AVAILABLE:
        return exc
    with session_scope() as session:
        gone = cart_service.unavailable_names(session, {row.product_id: row.name})
    if not gone:
        return exc
    return _Gone(cart_service.no_longer_available(gone[0]), code=ErrorCode.NO_LONGER_AVAILABLE)


GONE = "No longer available"  # the toast naming lines whose products were deleted meanwhile
PRICE_CHANGED = "Price changed"  # the toast naming lines whose price moved since the page showed them
SHORT_LINES = "Some items have less stock left than your cart holds: change or remove the marked lines first."
UPDATED = "Quantity updated successfully!"
REMOVED = "Item removed successfully!"


@dataclasses.dataclass
class CartRow(ProductFace, LineStockView):
    """A line as the cart page shows it: the product as every face shows it, with its stock note."""

    key: str = ""  # the server line id, or the product id for a guest line
    product_id: str = ""
    quantity: int = 1
    line_text: str = ""
    stock: int = 0


@per_user
class CartState(rx.State):
    # Synced across tabs: a tab adds to what another tab added (each wrote from its own old copy,
    # and the last tab to add dropped the other's items).
    cart_storage: str = rx.LocalStorage(name="cart-storage", sync=True)

    rows: list[CartRow] = []
    cart_id: str = ""
    item_count: int = 0
    totals: TotalsView = TotalsView()
    updating: bool = False
    loaded: bool = False
    # The last add, quantity or removal tap answered (its time in the browser): the page shows
    # the tap's expected result until this catches up (components/optimistic.py).
    acked_seq: int = 0
    coupon: str = ""
    coupon_version: int = 0  # bumped when the server empties the coupon field (the field is the browser's)
    # Whose cart the header's badge shows, and since when (account/session.fresh).
    _shown_for: str = ""
    _shown_at: float = 0.0

    @rx.var
    def item_count_text(self) -> str:
        return f"{self.item_count} item" if self.item_count == 1 else f"{self.item_count} items"

    @rx.var
    def chat_url(self) -> str:
        """"Chat with us on WhatsApp" about this cart, its lines typed in ("" without DD_WHATSAPP_NUMBER)."""
        lines = ", ".join(f"{row.quantity} x {row.name}" for row in self.rows[:10])
        return whatsapp_chat_url(f"Hello, I have a question about my cart: {lines}." if lines else
                                 "Hello, I have a question about my cart.")

    # --- helpers -----------------------------------------------------------------------------

    def _forget(self) -> None:
        self.cart_storage = ""
        self.rows = []
        self.cart_id = ""
        self._set_totals([])

    def _set_totals(self, lines: list[PricedLine], held: int = 0) -> None:
        """The summary of the lines that can be bought; the badge counts every unit held (``held``)."""
        totals = cart_totals(lines)
        self.item_count = held
        self.totals = totals_view(totals)

    def _show(self, rows: list[tuple[str, object, object, int]]) -> None:
        """Render lines given as (key, product, category, quantity); a line taken off sale is
        shown, marked, outside the totals."""
        view_rows, priced = [], []
        for key, product, category, quantity in rows:
            line = priced_line(product, quantity)
            unit = line.unit_price
            note = cart_service.stock_note(product, quantity)
            if not note.withdrawn:
                priced.append(line)
            view_rows.append(
                CartRow(
                    key=key,
                    product_id=product.id,
                    **face_fields(product, category, unit, discounted=unit < product.price),
                    quantity=quantity,
                    line_text=money_text(line.line_total),
                    stock=product.stock,
                    **line_stock(note),
                )
            )
        self.rows = view_rows
        self._set_totals(priced, sum(row.quantity for row in view_rows))

    def _reload(self, user: User | None):
        """The lines as they are now; a toast naming the lines whose products were deleted since
        the page showed them (a guest's: since the browser stored them), or None."""
        shown = {row.product_id: row.name for row in self.rows}
        prices = {row.product_id: row.price_text for row in self.rows if not row.withdrawn}
        with session_scope() as session:
            if user is not None:
                lines = cart_service.cart_lines(session, user)
                self.cart_id = lines[0].cart_id if lines else ""
                rows = [(line.id, line.product, line.category, line.quantity) for line in lines]
                held = {product.id for _key, product, _category, _quantity in rows}
                vanished = {pid: name for pid, name in shown.items() if pid not in held}
                gone = cart_service.unavailable_names(session, vanished) if vanished else []
            else:
                entries = read_guest_cart(self.cart_storage)
                rows, kept, gone = guest_lines(session, entries)
                if len(kept) != len(entries):
                    self.cart_storage = write_guest_cart(kept)
        self._show(rows)
        self.loaded = True
        if gone:
            return toast((GONE, cart_service.withdrawn_from_cart(gone), "warning"))
        moved = price_moves(prices, self.rows)
        return toast((PRICE_CHANGED, moved, "info")) if moved else None

    def _prices_moved(self, now: dict[str, str]) -> bool:
        """Whether a line shows another price than ``now`` (price texts by product id) says."""
        return any(now.get(row.product_id, row.price_text) != row.price_text for row in self.rows if not row.withdrawn)

    def _clear_coupon(self) -> None:
        self.coupon = ""
        self.coupon_version += 1

    def _after_order(self, user: User) -> None:
        """An order was placed from the server cart: forget the coupon and show the emptied cart."""
        self._clear_coupon()
        self._reload(user)

    def _guest_set(self, product_id: str, quantity: int, *, add: bool) -> str:
        """Change a guest line after checking the product and its stock; returns the product name."""
        entries = read_guest_cart(self.cart_storage)
        with session_scope() as session:
            product, category = guest_product(session, product_id)
            current = next((e for e in entries if e["product"]["id"] == product_id), None)
            if current is None:
                cart_service.check_room(len(entries))
            wanted = (current["quantity"] if current and add else 0) + quantity
            cart_service.check_quantity(product, wanted, in_cart=current is not None)
            flash_sales.check_cart_quantity(session, None, product, wanted)
            snapshot = product_snapshot(product, category)
        if current is None:
            entries.append({"product": snapshot, "quantity": wanted, "price": snapshot["price"]})
        else:
            current.update(product=snapshot, quantity=wanted, price=snapshot["price"])
        self.cart_storage = write_guest_cart(entries)
        return product.name

    # --- events ------------------------------------------------------------------------------

    def _refill(self, user: User | None):
        return load_list(self, lambda: self._reload(user), "cart reload", loading=None, failed=None)

    async def _load_once(self):
        """The header's cart badge, once per visit and account (see account/session.fresh; the
        cart's own events keep it current). An expired session reads as a guest here: the
        session's own page-load check sends that browser to /login."""
        who = visit_key(self, "user:" + (await self.get_state(SessionState)).user_id)
        if self.loaded and fresh(who, self._shown_for, self._shown_at):
            return None
        self._shown_for, self._shown_at = who, time.time()
        return self._refill(await current_user(self))

    @rx.event
    async def load_page(self):
        """/cart: the lines as they are now (prices, stock marks), whatever the badge knew."""
        return self._refill(await current_user(self))

    @user_event(guests=True)
    def refresh(self, user: User | None):
        """The 'Refresh Cart' button."""
        return self._refill(user)

    def _ack(self, seq: int) -> None:
        """The tap ``seq`` is answered: its expectation gives way to what this update shows."""
        self.acked_seq = max(self.acked_seq, seq_number(seq))

    @user_event(guests=True)
    def add_to_cart(self, user: User | None, product_id: str, seq: int = 0):
        """A card's 'Add to Cart': one more of the product."""
        return self._add(user, product_id, 1, seq)

    @user_event(guests=True)
    def add_quantity(self, user: User | None, product_id: str, quantity: int, seq: int = 0):
        """The product page's 'Add to Cart' with the chosen quantity."""
        quantity = int_arg(quantity)
        if quantity < 1:
            return self._ack(seq)
        return self._add(user, product_id, quantity, seq)

    def _add(self, user: User | None, product_id: str, quantity: int, seq: int = 0):
        def add() -> str:
            try:
                if user is not None:
                    with write_session() as session:
                        item = cart_service.add_item(session, user, product_id, quantity)
                        name = catalog.get_product(session, item.product_id)[0].name
                else:
                    name = self._guest_set(product_id, quantity, add=True)
                self._reload(user)
                return name
            finally:
                self._ack(seq)

        return busy_call(
            self, "updating", add, success=lambda name: ("Added to cart!", f"{name} has been added to your cart."),
            failure=("Error", ADD_FAILED), describe=_refusal_or(ADD_FAILED),
        )

    async def _change(self, user: User | None, key: str, quantity: int, seq: int = 0):
        """Set a line's quantity (0 removes it): shown at the tap in the browser, then refetched,
        also after an error."""
        row = next((r for r in self.rows if r.key == key), None)
        if row is None or self.updating or quantity < 0:
            self._ack(seq)
            if row is None:
                yield toast(("Error", "Item not found in cart.", "error"))
            return
        row.quantity = quantity
        self.rows = [r for r in self.rows if r.quantity > 0]

        def change() -> None:
            try:
                apply()
            except ServiceError as exc:
                raise _explained(exc, row) from None

        def apply() -> None:
            if user is not None:
                if not key or key == row.product_id:  # a line the server never gave an id to
                    raise ServiceError("Cart item not found or missing ID")
                with write_session() as session:
                    cart_service.set_quantity(session, user, key, quantity)
            elif quantity == 0:
                entries = [e for e in read_guest_cart(self.cart_storage) if e["product"]["id"] != key]
                self.cart_storage = write_guest_cart(entries)
            else:
                self._guest_set(key, quantity, add=False)

        fallback = REMOVE_FAILED if quantity == 0 else UPDATE_FAILED
        done = REMOVED if quantity == 0 else UPDATED
        async for update in busy_call(
            self, "updating", change, success=(done, None), failure=("Error", fallback),
            describe=_refusal_or(fallback), on_refusal=lambda exc: self._told(exc, row),
        ):
            yield update
        for update in self._refill(user):
            yield update
        self._ack(seq)  # with the refetched lines

    def _told(self, exc: ServiceError, row: CartRow) -> None:
        """A refusal named the line's product as no longer available: the refetch names it no more."""
        if exc.code == ErrorCode.NO_LONGER_AVAILABLE:
            self.rows = [r for r in self.rows if r is not row]
        if isinstance(exc, _Gone) and self.cart_storage:
            kept = [e for e in read_guest_cart(self.cart_storage) if e["product"]["id"] != row.product_id]
            self.cart_storage = write_guest_cart(kept)

    def _fit(self, user: User | None, key: str) -> str:
        """Set a short line to what is left, or remove a sold-out one; what was done."""
        if user is not None:
            with write_session() as session:
                kept = cart_service.fit_to_stock(session, user, key)
            return "set" if kept is not None else "removed"
        entries = read_guest_cart(self.cart_storage)
        entry = next((e for e in entries if e["product"]["id"] == key), None)
        if entry is None:
            raise ServiceError("Item not found in cart.")
        with session_scope() as session:
            found = catalog.products_by_ids(session, [key], hidden=True).get(key)
            note = cart_service.stock_note(found[0], entry["quantity"]) if found else None
        if note is None or note.sold_out:  # sold out, taken off sale or deleted
            self.cart_storage = write_guest_cart([e for e in entries if e is not entry])
            return "removed"
        entry["quantity"] = min(entry["quantity"], note.available)
        self.cart_storage = write_guest_cart(entries)
        return "set"

    @user_event(guests=True)
    async def fit_to_stock(self, user: User | None, key: str):
        """A short line's one-tap fix: 'Change to 2' (what is left) or 'Remove' (sold out)."""
        if self.updating or not any(r.key == key for r in self.rows):
            return

        async for update in busy_call(
            self, "updating", lambda: self._fit(user, key), failure=("Error", UPDATE_FAILED),
            success=lambda done: (REMOVED if done == "removed" else UPDATED, None),
            describe=lambda exc: exc.detail if exc.status in (400, 404) else UPDATE_FAILED,
        ):
            yield update
        for update in self._refill(user):  # refetched after the fix, and after a refusal too
            yield update

    @rx.var
    def short_lines(self) -> int:
        """How many lines want more than is left (checkout cannot go ahead with them)."""
        return sum(1 for row in self.rows if row.short)

    def _quantity(self, key: str) -> int:
        row = next((r for r in self.rows if r.key == key), None)
        return row.quantity if row else 0

    @user_event(guests=True)
    def increment(self, user: User | None, key: str, seq: int = 0):
        return self._change(user, key, self._quantity(key) + 1, seq)

    @user_event(guests=True)
    def decrement(self, user: User | None, key: str, seq: int = 0):
        if 0 < self._quantity(key) <= 1:
            return self._ack(seq)  # the minus button never goes below 1; removing is the remove button's job
        return self._change(user, key, self._quantity(key) - 1, seq)

    @user_event(guests=True)
    def remove(self, user: User | None, key: str, seq: int = 0):
        return self._change(user, key, 0, seq)

    @rx.event
    def set_coupon(self, value: str):
        """The coupon after a pause in typing (kept for the checkout page)."""
        self.coupon = str(value or "")[:64]

    @rx.event
    def apply_coupon(self, form: dict):
        """'Apply' only acknowledges the code; the server checks it at checkout."""
        self.coupon = form_text(form, "coupon", limit=64)
        code = self.coupon.strip()
        if not code:
            return toast(("Enter a coupon code first", None, "info"))
        return toast(("Coupon added", f"{code} will be checked at checkout.", "success"))

    @user_event(login_to=routes.CHECKOUT, notice=LOGIN_REQUIRED)
    def checkout(self, user: User, coupon: str = ""):
        """'Proceed to Checkout' (with the coupon field as it is): the checkout page; guests log
        in first and come back to it. A line marked short is fixed here first (its one-tap fix
        is beside it)."""
        self.coupon = str(coupon or "")[:64]
        withdrawn = next((row for row in self.rows if row.withdrawn), None)
        if withdrawn is not None:  # no restocking brings it back: the spec's "Checkout Error" with the detail
            return toast(("Checkout Error", cart_service.remove_to_check_out(withdrawn.name), "error"))
        if self.short_lines:
            return toast(("Not enough stock", SHORT_LINES, "error"))
        return rx.redirect(routes.CHECKOUT)
