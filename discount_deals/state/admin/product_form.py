"""The admin product form and product list rows: the form's values for a product (edit mode),
the service's fields from a submitted form, a row with its deal window, a restock form's fields."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Any

from ...config.settings import get_settings
from ...display import ghana_time, money_text
from ...models import Category, Product
from ...services import catalog, pricing
from ..forms import form_checked, form_text

NO_CATEGORY = "none"  # the select's prompt; select items never have an empty value (SPEC §5)
REQUIRED_MESSAGE = "Please fill in all required fields"
ALL_PRODUCTS = "all"
STATUS_FILTERS: list[tuple[str, str]] = [
    (ALL_PRODUCTS, "All products"),
    ("active", "Active"),
    ("inactive", "Inactive"),
    # Sold-out products have their own filter; the overview's "Low stock (5 or fewer)" counts both.
    ("low_stock", f"Low stock (1 to {catalog.LOW_STOCK_THRESHOLD} left)"),
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
    per_customer_limit: str = ""  # a flash sale's cap; blank: none
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


# --- the product form's fields -----------------------------------------------------------------


def _text(form: dict[str, Any], key: str) -> str:
    return form_text(form, key, strip=True)


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
        "is_available": form_checked(form, "product_is_available"),
        "is_featured": form_checked(form, "product_is_featured"),
    }
    for field in ("discount_price", "discount_start", "discount_end", "rating"):
        value = _text(form, f"product_{field}")
        if value:
            payload[field] = value
    # Always sent: blank clears a sale's cap (left out, an update keeps it: the original client's way).
    payload["per_customer_limit"] = _text(form, "product_per_customer_limit") or None
    return payload


def form_values(product: Product) -> ProductFormValues:
    """The form's starting values for a product (also the ``seen`` a save sends back: the service
    compares as the form shows, services.catalog.form_merge)."""
    return ProductFormValues(**catalog.form_view(product))


def _when(moment: datetime) -> str:
    return ghana_time(pricing.utc(moment), "%d %b %Y %H:%M")


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
        image_url=product.image_url or get_settings().placeholder_image_url,
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
    return form_text(form, "product_id"), form_text(form, "units", strip=True)
