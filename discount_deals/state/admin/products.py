"""Admin Products tab: the product form (add and edit modes) and the paged product list (filtered
by status and stock, each deal's window shown, low stock restocked in one step, exported as
CSV). Every event is for admins only; the services check again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from ...db import session_scope, write_session
from ...models import Category, Product, User
from ...services import Conflict, ErrorCode, catalog, exports
from ..actions import busy_call, toast
from ..forms import text_arg
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList, create_or_update
from .product_form import (
    ALL_PRODUCTS,
    REQUIRED_MESSAGE,
    STATUS_FILTERS,
    AdminProductRow,
    CategoryOption,
    ProductFormValues,
    form_values,
    product_payload,
    product_row,
    restock_fields,
)

# Every category is offered in the product form's select (the API hands out the same 1,000).
CATEGORY_OPTIONS_LIMIT = 1000


def restock_product(state: rx.State, admin: User, form: dict[str, Any], refresh: Callable[[], Any],
                    flag: str | None = None):
    """Add the units typed in a row's restock form to that product's stock, then ``refresh`` what
    shows it (``flag``, if any, names the product meanwhile)."""
    product_id, units = restock_fields(form)

    def add() -> tuple[str, int]:
        with write_session() as session:
            product = catalog.restock(session, admin, product_id, units)
            done = (product.name, product.stock)
        refresh()
        return done

    return busy_call(state, flag, add, busy=product_id if flag else True,
                     success=lambda done: ("Stock updated", f"{done[0]} now has {done[1]} in stock."),
                     failure=("Error", "Could not restock the product."))


@admin_tab("products")
class AdminProductsState(AdminList, rx.State):
    PAGE_SIZE: ClassVar[int] = 10
    LIST_NAME: ClassVar[str] = "admin product list"
    FILTERS: ClassVar[dict] = {"status_filter": (STATUS_FILTERS, ALL_PRODUCTS)}
    rows: list[AdminProductRow] = []
    status_filter: str = ALL_PRODUCTS
    categories: list[CategoryOption] = []
    restocking: str = ""  # id of the product being restocked

    editing_id: str = ""
    # What the edit form showed when it was opened: a save sends it as ``seen``, and the service
    # keeps what another admin (or orders) changed meanwhile (services.catalog.form_merge).
    _seen: dict[str, Any] = {}
    form: ProductFormValues = rx.field(default_factory=ProductFormValues)
    # Bumped to remount the (uncontrolled) form with new starting values: Edit, Cancel, after a save.
    form_key: int = 0
    saving: bool = False

    @rx.var
    def heading(self) -> str:
        return f"Products ({self.total})"

    def _load_categories(self) -> None:
        with session_scope() as session:
            found, _count = catalog.list_categories(session, limit=CATEGORY_OPTIONS_LIMIT)
        self.categories = [CategoryOption(id=c.id, name=c.name) for c in found]

    def _query(self, session: Session, admin: User) -> tuple[list[tuple[Product, Category]], int]:
        status = "" if self.status_filter == ALL_PRODUCTS else self.status_filter
        listing = catalog.ListingQuery(search=self.search, status=status, include_inactive=True,
                                       page_size=self.PAGE_SIZE)

        def page_of(page: int) -> catalog.ProductPage:
            return catalog.list_products(session, replace(listing, page=page), actor=admin)

        result = page_of(self.page)
        if not result.items and self.page > 1 and result.count:
            self.page = max(1, result.total_pages)  # the last page went away: show the new last one
            result = page_of(self.page)
        return result.items, result.count

    def _row(self, item: tuple[Product, Category]) -> AdminProductRow:
        return product_row(*item)

    def _reset_form(self) -> None:
        self.editing_id = ""
        self._seen = {}
        self.form = ProductFormValues()
        self.form_key += 1

    def _open(self, admin: User) -> None:
        self._load_categories()  # the form's select
        self._fill(admin)

    @admin_event
    def restock(self, admin: User, form: dict[str, Any]):
        """Add the units typed in a row (low or out of stock) to that product's stock."""
        return restock_product(self, admin, form, lambda: self._fill(admin), flag="restocking")

    @admin_event
    def export(self, admin: User):
        """Download every product as CSV (the bulk-upload template's columns)."""
        token = exports.download_token(admin, "products")
        filename = exports.export_filename("products")
        return rx.download(url=f"/api/admin/exports/products.csv?token={token}", filename=filename)

    @admin_event
    def save(self, admin: User, form: dict[str, Any]):
        """Create (add mode) or update (edit mode) from the form's values."""
        payload = product_payload(form)
        if payload is None:
            return toast(("Error", REQUIRED_MESSAGE, "error"))
        editing = self.editing_id
        if editing and self._seen:
            payload["seen"] = dict(self._seen)

        def save() -> None:
            try:
                create_or_update(admin, editing, payload, catalog.create_product, catalog.update_product)
            except Conflict as refused:
                self._saw_again(admin, editing, refused.code)
                raise
            self._reset_form()
            self._fill(admin)

        return busy_call(
            self, "saving", save, success=("Product updated" if editing else "Product created", None),
            failure=("Error", "Failed to update product" if editing else "Failed to create product"),
        )

    def _saw_again(self, admin: User, product_id: str, code: str) -> None:
        """A save refused for changes made meanwhile: told the stock now, saving again writes the
        typed one; told other fields, the form shows the product as it is now (still editing)."""
        if code not in (ErrorCode.STOCK_CHANGED, ErrorCode.PRODUCT_CHANGED):
            return
        with session_scope() as session:
            product = catalog.get_product(session, product_id, actor=admin)[0]
            now = form_values(product)
        if code == ErrorCode.STOCK_CHANGED:
            self._seen = {**self._seen, "stock": now.stock}
            return
        if not any(option.id == now.category for option in self.categories):
            self._load_categories()  # moved meanwhile to a category made after the form opened
        self._seen = asdict(now)
        self.form = now
        self.form_key += 1

    def _edit(self, admin: User, product_id: str):
        with session_scope() as session:
            product, _category = catalog.get_product(session, product_id, actor=admin)
        if not any(option.id == product.category_id for option in self.categories):
            self._load_categories()
        self.editing_id = product.id
        self.form = form_values(product)
        self._seen = asdict(self.form)
        self.form_key += 1
        return rx.call_script("document.getElementById('product-form')?.scrollIntoView({behavior: 'smooth'})")

    @admin_event
    def edit(self, admin: User, product_id: str):
        """Fill the form with a product (edit mode)."""
        product_id = text_arg(product_id)
        return busy_call(self, None, lambda: self._edit(admin, product_id), then=lambda scroll: scroll)

    @admin_event
    def cancel_edit(self, admin: User):
        self._reset_form()

    @admin_event
    def delete(self, admin: User, product_id: str):
        def delete() -> None:
            with write_session() as session:
                catalog.delete_product(session, admin, product_id)
            if self.editing_id == product_id:
                self._reset_form()
            self._fill(admin)

        return busy_call(self, None, delete, success=("Product deleted", None),
                         failure=("Error", "Failed to delete product"))
