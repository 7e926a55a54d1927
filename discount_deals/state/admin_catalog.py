"""Admin Products and Categories tabs: the product form (add and edit modes), the paged product
list (filtered by status and stock, each deal's window shown, low stock restocked in one step,
exported as CSV), and categories. Every event re-checks that the caller is an admin; the
services check again.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from datetime import UTC, datetime
from typing import Any

import reflex as rx

from ..db import session_scope, write_session
from ..models import Category, Product, User
from ..services import ServiceError, exports, pricing
from ..services import catalog
from .actions import busy_call
from .admin import NotAdmin, require_admin
from ..display import money_text
from .paging import page_count, page_label

log = logging.getLogger("discount_deals.admin")

PRODUCTS_PAGE_SIZE = 10
CATEGORIES_PAGE_SIZE = 20
# Every category is offered in the product form's select (the API hands out the same 1,000).
CATEGORY_OPTIONS_LIMIT = 1000
NO_CATEGORY = "none"  # the select's prompt; select items never have an empty value (SPEC §5)
REQUIRED_MESSAGE = "Please fill in all required fields"
ALL_PRODUCTS = "all"
STATUS_FILTERS: list[tuple[str, str]] = [
    (ALL_PRODUCTS, "All products"),
    ("active", "Active"),
    ("inactive", "Inactive"),
    ("low_stock", f"Low stock ({catalog.LOW_STOCK_THRESHOLD} or fewer)"),
    ("out_of_stock", "Out of stock"),
]


@dataclasses.dataclass
class ProductFormValues:
    """What the product form starts with (add mode: the defaults; edit mode: the product)."""

    name: str = ""
    description: str = ""
    brand: str = ""
    price: str = ""
    discount_price: str = ""
    discount_start: str = ""
    discount_end: str = ""
    image_url: str = ""
    category: str = NO_CATEGORY
    tags: str = ""
    related_products: str = ""
    stock: str = "0"
    rating: str = ""
    status: str = "active"
    is_available: bool = True
    is_featured: bool = False


@dataclasses.dataclass
class AdminProductRow:
    id: str = ""
    name: str = ""
    description: str = ""
    image_url: str = ""
    status: str = ""
    category: str = ""
    price_text: str = ""
    discount_text: str = ""
    # The discount window: "" (no discount), "active", "scheduled" or "expired", and when.
    deal: str = ""
    deal_text: str = ""
    stock: int = 0
    restockable: bool = False  # low or out of stock: the row offers a one-step restock


@dataclasses.dataclass
class CategoryOption:
    id: str = ""
    name: str = ""


@dataclasses.dataclass
class CategoryRow:
    id: str = ""
    name: str = ""
    slug: str = ""
    description: str = ""


# --- the product form's fields -----------------------------------------------------------------


def _text(form: dict[str, Any], key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


def _checked(form: dict[str, Any], key: str) -> bool:
    value = form.get(key)
    return value is True or (isinstance(value, str) and value.lower() in {"on", "true"})


def parse_stock_text(text: str) -> int:
    """The leading whole number of the stock field, 0 when there is none (SPEC §5)."""
    match = re.match(r"\s*([+-]?\d+)", text or "")
    return int(match.group(1)) if match else 0


def product_payload(form: dict[str, Any]) -> dict[str, Any] | None:
    """The service's product fields from the form's values, or None when name, price or category
    is missing. Blank discount fields and a blank rating are left out; a blank image URL becomes
    the placeholder picture (in the service)."""
    name, price, category = _text(form, "product_name"), _text(form, "product_price"), _text(form, "product_category")
    if not name or not price or not category or category == NO_CATEGORY:
        return None
    payload: dict[str, Any] = {
        "name": name,
        "description": _text(form, "product_description"),
        "brand": _text(form, "product_brand"),
        "price": price,
        "image_url": _text(form, "product_image_url"),
        "category": category,
        "tags": catalog.comma_list(_text(form, "product_tags")),
        "related_products": catalog.comma_list(_text(form, "product_related_products")),
        "stock": parse_stock_text(_text(form, "product_stock")),
        "status": _text(form, "product_status") or "active",
        "is_available": _checked(form, "product_is_available"),
        "is_featured": _checked(form, "product_is_featured"),
    }
    for field in ("discount_price", "discount_start", "discount_end", "rating"):
        value = _text(form, f"product_{field}")
        if value:
            payload[field] = value
    return payload


def _local_datetime(moment: datetime | None) -> str:
    """A stored UTC time as a datetime-local value (the service reads those as UTC)."""
    if moment is None:
        return ""
    moment = moment.astimezone(UTC) if moment.tzinfo else moment
    return moment.strftime("%Y-%m-%dT%H:%M")


def form_values(product: Product) -> ProductFormValues:
    return ProductFormValues(
        name=product.name,
        description=product.description,
        brand=product.brand,
        price=f"{product.price:.2f}",
        discount_price="" if product.discount_price is None else f"{product.discount_price:.2f}",
        discount_start=_local_datetime(product.discount_start),
        discount_end=_local_datetime(product.discount_end),
        image_url=product.image_url,
        category=product.category_id,
        tags=", ".join(product.tags or []),
        related_products=", ".join(product.related_products or []),
        stock=str(product.stock),
        rating=f"{float(product.rating or 0):g}",
        status=product.status,
        is_available=bool(product.is_available),
        is_featured=bool(product.is_featured),
    )


def _when(moment: datetime) -> str:
    return pricing.utc(moment).strftime("%d %b %Y %H:%M UTC").lstrip("0")


def deal_text(product: Product, at: datetime | None = None) -> tuple[str, str]:
    """(discount state, what the admin reads) for the product's discount window."""
    now = pricing.product_price(product, at)
    state = now.discount_state
    if state == pricing.SCHEDULED:
        return state, f"Scheduled: starts {_when(product.discount_start)}"
    if state == pricing.EXPIRED:
        return state, f"Expired: ended {_when(product.discount_end)}"
    if state == pricing.ACTIVE and product.discount_end is not None:
        return state, f"Deal on until {_when(product.discount_end)}"
    if state == pricing.ACTIVE and product.discount_start is not None:
        return state, f"Deal on since {_when(product.discount_start)}"
    return "", ""  # no discount, or one without a window (always on): nothing to point out


def product_row(product: Product, category: Category | None) -> AdminProductRow:
    deal, text = deal_text(product)
    return AdminProductRow(
        id=product.id,
        name=product.name,
        description=product.description,
        image_url=product.image_url or "/placeholder.webp",
        status=product.status,
        category=category.name if category else "",
        price_text=money_text(product.price),
        discount_text="" if product.discount_price is None else money_text(product.discount_price),
        deal=deal,
        deal_text=text,
        stock=product.stock,
        restockable=product.stock <= catalog.LOW_STOCK_THRESHOLD,
    )


def restock_fields(form: dict[str, Any]) -> tuple[str, str]:
    """(product id, units to add) from a row's restock form."""
    product_id, units = form.get("product_id"), form.get("units")
    return (product_id if isinstance(product_id, str) else "", units.strip() if isinstance(units, str) else "")


# --- products ----------------------------------------------------------------------------------


class AdminProductsState(rx.State):
    rows: list[AdminProductRow] = []
    count: int = 0
    page: int = 1
    total_pages: int = 0
    search: str = ""
    status_filter: str = ALL_PRODUCTS
    loading: bool = False
    categories: list[CategoryOption] = []
    restocking: str = ""  # id of the product being restocked

    editing_id: str = ""
    form: ProductFormValues = rx.field(default_factory=ProductFormValues)
    # Bumped to remount the (uncontrolled) form with new starting values: Edit, Cancel, after a save.
    form_key: int = 0
    saving: bool = False

    @rx.var
    def heading(self) -> str:
        return f"Products ({self.count})"

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    async def _require_admin(self) -> User:
        return await require_admin(self)

    def _load_categories(self) -> None:
        with session_scope() as session:
            found, _count = catalog.list_categories(session, limit=CATEGORY_OPTIONS_LIMIT)
        self.categories = [CategoryOption(id=c.id, name=c.name) for c in found]

    def _load_rows(self, admin: User) -> None:
        status = "" if self.status_filter == ALL_PRODUCTS else self.status_filter
        with session_scope() as session:

            def page_of(page: int) -> catalog.ProductPage:
                return catalog.list_products(
                    session, search=self.search, page=page, page_size=PRODUCTS_PAGE_SIZE, include_inactive=True,
                    actor=admin, status=status,
                )

            result = page_of(self.page)
            if not result.items and self.page > 1 and result.count:
                self.page = max(1, page_count(result.count, PRODUCTS_PAGE_SIZE))
                result = page_of(self.page)
        self.rows = [product_row(p, c) for p, c in result.items]
        self.count = result.count
        self.total_pages = result.total_pages

    def _reset_form(self) -> None:
        self.editing_id = ""
        self.form = ProductFormValues()
        self.form_key += 1

    @rx.event
    async def load(self):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.loading = True
        try:
            self._load_categories()
            self._load_rows(admin)
        except Exception:
            log.exception("admin product list failed")
        finally:
            self.loading = False

    @rx.event
    async def set_search(self, value: str):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.search = (value or "").strip()[:100]
        self.page = 1
        self._load_rows(admin)

    @rx.event
    async def set_status_filter(self, value: str):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.status_filter = value if value in dict(STATUS_FILTERS) else ALL_PRODUCTS
        self.page = 1
        self._load_rows(admin)

    @rx.event
    async def go_to_page(self, page: int):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        self._load_rows(admin)

    @rx.event
    async def restock(self, form: dict[str, Any]):
        """Add the units typed in a row (low or out of stock) to that product's stock."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            yield refused.redirect
            return
        product_id, units = restock_fields(form)

        def add() -> tuple[str, int]:
            self.restocking = product_id
            with write_session() as session:
                product = catalog.restock(session, admin, product_id, units)
                result = (product.name, product.stock)
            self._load_rows(admin)
            return result

        try:
            async for update in busy_call(
                self, None, add, success=lambda done: ("Stock updated", f"{done[0]} now has {done[1]} in stock."),
                failure=("Error", "Could not restock the product."),
            ):
                yield update
        finally:
            self.restocking = ""

    @rx.event
    async def export(self):
        """Download every product as CSV (the bulk-upload template's columns)."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        token = exports.download_token(admin, "products")
        filename = exports.export_filename("products")
        return rx.download(url=f"/api/admin/exports/products.csv?token={token}", filename=filename)

    @rx.event
    async def save(self, form: dict[str, Any]):
        """Create (add mode) or update (edit mode) from the form's values."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            yield refused.redirect
            return
        payload = product_payload(form)
        if payload is None:
            yield rx.toast.error("Error", description=REQUIRED_MESSAGE)
            return
        editing = self.editing_id

        def save() -> None:
            with write_session() as session:
                if editing:
                    catalog.update_product(session, admin, editing, payload)
                else:
                    catalog.create_product(session, admin, payload)
            self._reset_form()
            self._load_rows(admin)

        async for update in busy_call(
            self, "saving", save, success=("Product updated" if editing else "Product created", None),
            failure=("Error", "Failed to update product" if editing else "Failed to create product"),
        ):
            yield update

    @rx.event
    async def edit(self, product_id: str):
        """Fill the form with a product (edit mode)."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        try:
            with session_scope() as session:
                product, _category = catalog.get_product(session, product_id, actor=admin)
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        if not any(option.id == product.category_id for option in self.categories):
            self._load_categories()
        self.editing_id = product.id
        self.form = form_values(product)
        self.form_key += 1
        return rx.call_script("document.getElementById('product-form')?.scrollIntoView({behavior: 'smooth'})")

    @rx.event
    async def cancel_edit(self):
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self._reset_form()

    @rx.event
    async def delete(self, product_id: str):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            yield refused.redirect
            return

        def delete() -> None:
            with write_session() as session:
                catalog.delete_product(session, admin, product_id)
            if self.editing_id == product_id:
                self._reset_form()
            self._load_rows(admin)

        async for update in busy_call(self, None, delete, success=("Product deleted", None),
                                      failure=("Error", "Failed to delete product")):
            yield update


# --- categories --------------------------------------------------------------------------------


class AdminCategoriesState(rx.State):
    rows: list[CategoryRow] = []
    count: int = 0
    page: int = 1
    form_key: int = 0
    failed: bool = False

    @rx.var
    def total_pages(self) -> int:
        return page_count(self.count, CATEGORIES_PAGE_SIZE)

    @rx.var
    def page_text(self) -> str:
        return page_label(self.page, self.total_pages)

    async def _require_admin(self) -> User:
        return await require_admin(self)

    def _load_rows(self) -> None:
        with session_scope() as session:
            found, count = catalog.list_categories(
                session, offset=(self.page - 1) * CATEGORIES_PAGE_SIZE, limit=CATEGORIES_PAGE_SIZE
            )
        self.rows = [CategoryRow(id=c.id, name=c.name, slug=c.slug, description=c.description) for c in found]
        self.count = count

    def _fetch(self) -> bool:
        try:
            self._load_rows()
        except Exception:
            log.exception("admin category list failed")
            self.failed = True
            return False
        self.failed = False
        return True

    @rx.event
    async def load(self):
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        if not self._fetch():
            return rx.toast.error("Failed to fetch categories")

    @rx.event
    async def refresh(self):
        """The list's Refresh button."""
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        if not self._fetch():
            return rx.toast.error("Failed to fetch categories")
        return rx.toast.success("Categories fetched successfully")

    @rx.event
    async def go_to_page(self, page: int):
        try:
            await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        self._fetch()

    @rx.event
    async def add(self, form: dict[str, Any]):
        """Add a category; nothing happens while the name is empty (SPEC §5)."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            yield refused.redirect
            return
        name = _text(form, "category_name")
        if not name:
            return
        data = {"name": name, "slug": catalog.slugify(name), "description": _text(form, "category_description")}

        async def add() -> None:
            with write_session() as session:
                catalog.create_category(session, admin, data)
            self.form_key += 1
            await self._changed()

        async for update in busy_call(self, None, add, success=("Category created successfully", None),
                                      failure=("Failed to create category", None)):
            yield update

    @rx.event
    async def delete(self, category_id: str):
        """Delete a category that holds no products (the service refuses otherwise and says why)."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            yield refused.redirect
            return

        async def delete() -> None:
            with write_session() as session:
                catalog.delete_category(session, admin, category_id)
            await self._changed()

        async for update in busy_call(self, None, delete, success=("Category deleted", None),
                                      failure=("Failed to delete category", None)):
            yield update

    async def _changed(self) -> None:
        """The categories changed: this list and the product form's select show it."""
        self._fetch()
        products = await self.get_state(AdminProductsState)
        products._load_categories()
