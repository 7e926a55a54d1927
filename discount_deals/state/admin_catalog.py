"""Admin Products and Categories tabs: the product form (add and edit modes), the paged product
list, and categories. Every event re-checks that the caller is an admin; the services check again.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from datetime import UTC, datetime
from typing import Any

import reflex as rx

from ..db import session_scope, write_session
from ..models import Category, Product, User
from ..services import ServiceError
from ..services import catalog
from .admin import NotAdmin, require_admin
from .views import money_text

log = logging.getLogger("discount_deals.admin")

PRODUCTS_PAGE_SIZE = 10
CATEGORIES_PAGE_SIZE = 20
# Every category is offered in the product form's select (the API hands out the same 1,000).
CATEGORY_OPTIONS_LIMIT = 1000
NO_CATEGORY = "none"  # the select's prompt; select items never have an empty value (SPEC §5)
REQUIRED_MESSAGE = "Please fill in all required fields"


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


def product_row(product: Product, category: Category | None) -> AdminProductRow:
    return AdminProductRow(
        id=product.id,
        name=product.name,
        description=product.description,
        image_url=product.image_url or "/placeholder.webp",
        status=product.status,
        category=category.name if category else "",
        price_text=money_text(product.price),
        discount_text="" if product.discount_price is None else money_text(product.discount_price),
    )


# --- products ----------------------------------------------------------------------------------


class AdminProductsState(rx.State):
    rows: list[AdminProductRow] = []
    count: int = 0
    page: int = 1
    total_pages: int = 0
    search: str = ""
    loading: bool = False
    categories: list[CategoryOption] = []

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
        return f"Page {self.page} of {max(self.total_pages, 1)}"

    async def _require_admin(self) -> User:
        return await require_admin(self)

    def _load_categories(self) -> None:
        with session_scope() as session:
            found, _count = catalog.list_categories(session, limit=CATEGORY_OPTIONS_LIMIT)
        self.categories = [CategoryOption(id=c.id, name=c.name) for c in found]

    def _load_rows(self, admin: User) -> None:
        with session_scope() as session:
            result = catalog.list_products(
                session,
                search=self.search,
                page=self.page,
                page_size=PRODUCTS_PAGE_SIZE,
                include_inactive=True,
                actor=admin,
            )
            if not result.items and self.page > 1 and result.count:
                self.page = max(1, math.ceil(result.count / PRODUCTS_PAGE_SIZE))
                result = catalog.list_products(
                    session, search=self.search, page=self.page, page_size=PRODUCTS_PAGE_SIZE,
                    include_inactive=True, actor=admin,
                )
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
    async def go_to_page(self, page: int):
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        self.page = max(1, min(int(page), max(self.total_pages, 1)))
        self._load_rows(admin)

    @rx.event
    async def save(self, form: dict[str, Any]):
        """Create (add mode) or update (edit mode) from the form's values."""
        try:
            admin = await self._require_admin()
        except NotAdmin as refused:
            return refused.redirect
        payload = product_payload(form)
        if payload is None:
            return rx.toast.error("Error", description=REQUIRED_MESSAGE)
        editing = self.editing_id
        try:
            with write_session() as session:
                if editing:
                    catalog.update_product(session, admin, editing, payload)
                else:
                    catalog.create_product(session, admin, payload)
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        except Exception:
            log.exception("admin product save failed")
            return rx.toast.error("Error", description="Failed to update product" if editing else "Failed to create product")
        self._reset_form()
        self._load_rows(admin)
        return rx.toast.success("Product updated" if editing else "Product created")

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
            return refused.redirect
        try:
            with write_session() as session:
                catalog.delete_product(session, admin, product_id)
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        except Exception:
            log.exception("admin product delete failed")
            return rx.toast.error("Error", description="Failed to delete product")
        if self.editing_id == product_id:
            self._reset_form()
        self._load_rows(admin)
        return rx.toast.success("Product deleted")


# --- categories --------------------------------------------------------------------------------


class AdminCategoriesState(rx.State):
    rows: list[CategoryRow] = []
    count: int = 0
    page: int = 1
    form_key: int = 0
    failed: bool = False

    @rx.var
    def total_pages(self) -> int:
        return math.ceil(self.count / CATEGORIES_PAGE_SIZE) if self.count else 0

    @rx.var
    def page_text(self) -> str:
        return f"Page {self.page} of {max(self.total_pages, 1)}"

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
            return refused.redirect
        name = _text(form, "category_name")
        if not name:
            return
        data = {"name": name, "slug": catalog.slugify(name), "description": _text(form, "category_description")}
        try:
            with write_session() as session:
                catalog.create_category(session, admin, data)
        except ServiceError as exc:
            return rx.toast.error("Failed to create category", description=exc.detail)
        except Exception:
            log.exception("admin category create failed")
            return rx.toast.error("Failed to create category")
        self.form_key += 1
        self._fetch()
        products = await self.get_state(AdminProductsState)
        products._load_categories()
        return rx.toast.success("Category created successfully")
