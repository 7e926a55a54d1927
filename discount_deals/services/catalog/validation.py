"""Whole products and categories: the field rules (:mod:`.fields`) plus what needs more.

:func:`clean_product` adds what needs the database or the product being edited: the category,
related products, the discount below the price and the discount window; :func:`clean_category`
the slug and the parent. The columns derived from a product's name and prices
(:func:`derived_columns`) are computed here for single and bulk writes alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from ...models import Category, Product, ProductStatus
from ...config.settings import get_settings
from .. import ErrorCode
from ..form_rules import field_summary
from ..pricing import price_at
from .fields import CategoryFields, ProductFields, as_utc, validate_fields, without_invisible_characters
from .search import fold

REQUIRED = "This field is required."

# Fields of the admin product form. A full update (PUT) resets those it does not receive to their
# defaults (so omitting discount_price clears the discount); brand and rating, which that form
# does not send, keep their values unless given, and so does a flash sale's per_customer_limit
# (the original client's form has no such field) while the discount stays (:func:`_kept_limit`).
PRODUCT_DEFAULTS: dict[str, Any] = {
    "description": "",
    "discount_price": None,
    "discount_start": None,
    "discount_end": None,
    "image_url": "",
    "tags": [],
    "status": ProductStatus.ACTIVE.value,
    "is_available": True,
    "is_featured": False,
    "stock": 0,
    "related_products": [],
}
KEPT_WHEN_ABSENT = {"brand": "", "rating": 0.0}
# Blank text in these means "not given" (the admin form omits blank discount fields; CSV cells are text).
NULLABLE = ("discount_price", "discount_start", "discount_end", "per_customer_limit")
BLANK_MEANS_ABSENT = frozenset({*NULLABLE, "rating", "stock", "status"})
# A cap per customer belongs to a flash sale: without a discount there is no sale to cap.
LIMIT_WITHOUT_DISCOUNT = "A limit per customer needs a discount price."
LIMIT_WITHOUT_DISCOUNT_CODE = ErrorCode.LIMIT_WITHOUT_DISCOUNT


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def comma_list(text: str) -> list[str]:
    """Comma-separated values (tags, related product ids), trimmed, blanks dropped."""
    return [item.strip() for item in text.split(",") if item.strip()]


# --- whole products and categories ---------------------------------------------------------------


NAME_KEY_LENGTH = 200  # the column's
CATEGORY_NAME_LENGTH, CATEGORY_SLUG_LENGTH = 120, 140  # the columns' (NFKC may lengthen a name: "㎏" is "kg")


def name_key(name: str) -> str:
    """Product names are unique regardless of case, blanks, invisible characters and how the
    letters are written: compatibility-normalized (NFKC), so "Ｒｉｃｅ", "Rice\u200b" and "Rice" are one."""
    text = unicodedata.normalize("NFKC", without_invisible_characters(name or ""))
    return " ".join(text.split()).lower()[:NAME_KEY_LENGTH]  # NFKC may lengthen ("㎏" is "kg")


# Letters NFKD does not take apart, as the search index's engines read them ("Øre" sorts with "O").
_UNDECOMPOSED = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ɛ": "e", "ɔ": "o",
                               "æ": "ae", "œ": "oe"})


def name_sort(name: str) -> str:
    """How product names sort: the name as :func:`name_key` reads it, folded as search folds it
    (accents removed, case-blind: "Éclair" sorts with "eclair", before "Zobo"). Stored, and
    compared by code point on both engines (models.catalog), with ``name_key`` after it as the
    unique tie-break, so that SQLite and PostgreSQL, whatever its collation, page alike."""
    text = unicodedata.normalize("NFKC", without_invisible_characters(name or ""))
    return " ".join(fold(text.casefold()).translate(_UNDECOMPOSED).split())[:NAME_KEY_LENGTH]


def category_key(text: str) -> str:
    """How category names and slugs are compared: case-blind and compatibility-normalized (NFKC),
    accents kept (search's ``fold`` drops them; a category's name is not a search)."""
    return unicodedata.normalize("NFKC", text).lower()


def slugify(name: str) -> str:
    """SPEC §5: lowercase, trim, drop characters other than word characters, spaces and hyphens,
    and turn spaces into hyphens (after compatibility normalization: "Ｆｏｏｄ" is "food")."""
    text = re.sub(r"[^\w\s-]", "", unicodedata.normalize("NFKC", name or "").lower().strip())
    return re.sub(r"\s+", "-", text)


def price_columns(
    price: Decimal,
    discount_price: Decimal | None,
    discount_start: datetime | None,
    discount_end: datetime | None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """The stored columns listings filter and sort on, as services.pricing prices the product
    at ``at`` (now), and when they must be computed again (``price_changes_at``)."""
    now = price_at(price, discount_price, discount_start, discount_end, at)
    return {
        "effective_price": now.unit_price,
        "discount_percent": now.discount_percent,
        "price_changes_at": now.changes_at,
    }


def derived_columns(
    name: str,
    price: Decimal,
    discount_price: Decimal | None,
    discount_start: datetime | None = None,
    discount_end: datetime | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """Every column computed from a product's name, prices and discount window: the name's key
    and sort key, and the price columns (shared by single and bulk writes)."""
    return {"name_key": name_key(name), "name_sort": name_sort(name),
            **price_columns(price, discount_price, discount_start, discount_end, at)}


def refresh_derived(product: Product, at: datetime | None = None) -> Product:
    """Recompute the columns derived from a product's prices, window and name (call before every write)."""
    values = derived_columns(
        product.name, product.price, product.discount_price, product.discount_start, product.discount_end, at
    )
    for column, value in values.items():
        setattr(product, column, value)
    return product


def clean_product(
    data: Mapping[str, Any],
    *,
    resolve_category: Callable[[Any], Category | None],
    missing_products: Callable[[list[str]], set[str]],
    current: Product | None = None,
    partial: bool = False,
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate product fields; return (column values, field errors).

    Create: ``current`` is None and absent fields take their defaults. Full update: ``current`` is
    the product and absent form fields take their defaults too. Partial update: only the given
    fields are validated and returned. Cross-field rules (discount not above the price, end
    after start) are checked against the merged result. Name uniqueness is the caller's job.
    """
    errors: dict[str, list[str]] = {}
    values = _product_values(data, errors, current, partial)
    if not partial or "category" in data:
        _check_category(data.get("category"), resolve_category, values, errors)
    _check_related(values, errors, current, missing_products)
    _check_discount(values, errors, current)
    return values, errors


def _same_list(sent: Any, stored: Any) -> bool:
    return (isinstance(sent, list) and isinstance(stored, list) and len(sent) == len(stored)
            and all(isinstance(item, str) and item.strip() == kept for item, kept in zip(sent, stored, strict=True)))


def _kept_limit(data: Mapping[str, Any], current: Product | None, values: dict[str, Any]) -> bool:
    """A full update that does not send ``per_customer_limit`` keeps the product's cap while it keeps
    a discount; sent blank, or with the discount gone, the cap goes (it belongs to a sale)."""
    return current is not None and "per_customer_limit" not in data and values.get("discount_price") is not None


def _product_values(
    data: Mapping[str, Any], errors: dict[str, list[str]], current: Product | None, partial: bool
) -> dict[str, Any]:
    """The fields' own rules, and the defaults of a create or full update (see :func:`clean_product`)."""
    given = {
        field: data[field]
        for field in ProductFields.model_fields
        if field in data and not (field in BLANK_MEANS_ABSENT and _blank(data[field]))
    }
    # A list sent back as stored is kept as it is: one stored before today's limits (50 tags of
    # 100 characters) must not block a form that changes the stock.
    kept = {field: list(getattr(current, field)) for field in ("tags", "related_products")
            if current is not None and field in given and _same_list(given[field], getattr(current, field))}
    # So is a name: one stored in full-width letters beside its look-alike (left by migration 38k)
    # would otherwise be folded into the other's name and refused as taken.
    if current is not None and isinstance(given.get("name"), str) and given["name"].strip() == current.name:
        kept["name"] = current.name
    for field in kept:
        del given[field]
    for field in ("name", "price"):
        if (not partial or field in data) and _blank(data.get(field)):
            errors[field] = [REQUIRED]
            given.pop(field, None)
    values, invalid = validate_fields(ProductFields, given)
    errors.update(invalid)
    if values.get("name") == "":  # nothing but invisible characters
        errors["name"] = [REQUIRED]
        del values["name"]
    if partial:
        # An explicit null or blank clears a discount field (absent leaves it as it is).
        values.update({field: None for field in NULLABLE if field in data and _blank(data[field])})
    else:
        for field, default in PRODUCT_DEFAULTS.items():
            if field not in given:
                values[field] = list(default) if isinstance(default, list) else default
        if current is None:
            for field, default in KEPT_WHEN_ABSENT.items():
                if field not in given:
                    values[field] = default
        if "per_customer_limit" not in given and not _kept_limit(data, current, values):
            values["per_customer_limit"] = None
    values.update(kept)
    if "image_url" in values and not values["image_url"]:
        values["image_url"] = get_settings().placeholder_image_url
    if "price" in values:
        values["price"] = values["price"].quantize(Decimal("0.01"))
    if values.get("discount_price") is not None:
        values["discount_price"] = values["discount_price"].quantize(Decimal("0.01"))
    return values


def _check_category(
    raw: Any, resolve_category: Callable[[Any], Category | None], values: dict[str, Any], errors: dict[str, list[str]]
) -> None:
    if _blank(raw):
        errors["category"] = [REQUIRED]
        return
    category = resolve_category(raw)
    if category is None:
        label = raw.get("id") if isinstance(raw, Mapping) else raw
        errors["category"] = [f'Category "{label}" not found.']
    else:
        values["category_id"] = category.id


def _check_related(
    values: dict[str, Any],
    errors: dict[str, list[str]],
    current: Product | None,
    missing_products: Callable[[list[str]], set[str]],
) -> None:
    related = values.get("related_products") or []
    if current is not None and current.id in related:
        errors["related_products"] = ["A product cannot be related to itself."]
    elif related and "related_products" not in errors:
        missing = missing_products(related)
        if missing:
            errors["related_products"] = [missing_products_message(missing)]


def _check_discount(values: dict[str, Any], errors: dict[str, list[str]], current: Product | None) -> None:
    """The rules across fields, on the merged result: the discount not above the price, the
    window's end after its start, a limit per customer only with a discount."""

    def merged(field: str) -> Any:
        return values[field] if field in values else getattr(current, field, None)

    price, discount = merged("price"), merged("discount_price")
    checkable = price is not None and discount is not None and not {"price", "discount_price"} & errors.keys()
    if checkable and discount > price:
        # Equal means "no discount" (retailer feeds carry it); above the price is a mistake.
        errors["discount_price"] = ["Discount price must not be above the price."]
    start, end = merged("discount_start"), merged("discount_end")
    checkable = start is not None and end is not None and not {"discount_start", "discount_end"} & errors.keys()
    if checkable and as_utc(end) <= as_utc(start):
        errors["discount_end"] = ["The discount end must be after the discount start."]
    limit_checkable = not {"per_customer_limit", "discount_price"} & errors.keys()
    if limit_checkable and merged("per_customer_limit") is not None and discount is None:
        errors["per_customer_limit"] = [LIMIT_WITHOUT_DISCOUNT]


def clean_category(
    data: Mapping[str, Any],
    *,
    require_slug_and_description: bool = False,
    resolve_parent: Callable[[Any], Category | None],
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate category fields; return (column values, field errors). A blank slug is derived
    from the name (SPEC §5) unless ``require_slug_and_description`` (bulk uploads) asks for it."""
    texts = {"name": "Name is required", "slug": "Slug is required", "description": "Description is required"}
    errors: dict[str, list[str]] = {}
    given: dict[str, Any] = {}
    for field in texts:
        if _blank(data.get(field)):
            if field == "name" or require_slug_and_description:
                errors[field] = [texts[field]]
        else:
            given[field] = data[field]
    values, invalid = validate_fields(CategoryFields, given)
    errors.update(invalid)
    if "name" in values:
        # Categories are found by name (the original client sends names): one look, one category.
        values["name"] = unicodedata.normalize("NFKC", values["name"])
        if not values["name"] or len(values["name"]) > CATEGORY_NAME_LENGTH:  # invisible only, or "㎏" × 120
            errors["name"] = [texts["name"] if not values["name"] else f"Must be at most {CATEGORY_NAME_LENGTH} characters."]
            del values["name"]
    if "name" in values and "slug" not in errors:
        slug = slugify(values.get("slug") or values["name"])
        if not slug:
            errors["slug"] = ["Enter a slug made of letters, numbers, hyphens or underscores."]
        elif len(slug) > CATEGORY_SLUG_LENGTH:
            errors["slug"] = [f"Must be at most {CATEGORY_SLUG_LENGTH} characters."]
        values["slug"] = slug
    values.setdefault("description", "")
    parent = data.get("parent")
    values["parent_id"] = None
    if not _blank(parent):
        found = resolve_parent(parent)
        if found is None:
            errors["parent"] = [f'Category "{parent}" not found.']
        else:
            values["parent_id"] = found.id
    return values, errors


def validation_detail(errors: Mapping[str, list[str]], what: str = "product") -> str:
    """One sentence summarising field errors (required fields first)."""
    missing = [field for field, messages in errors.items() if REQUIRED in messages]
    if missing:
        return f"Please fill in all required fields: {', '.join(missing)}."
    return f"Invalid {what}. {field_summary(errors)}"


def missing_products_message(ids: set[str]) -> str:
    return f"Products not found: {', '.join(sorted(ids))}."


def duplicate_name_message(name: str) -> str:
    return f'A product named "{name}" already exists.'

