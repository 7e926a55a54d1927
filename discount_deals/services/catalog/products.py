"""Single products: lookup for shoppers and admins, and the admin's create, update, restock and
delete, each recorded in the audit trail in the same transaction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import String, cast, update
from sqlmodel import Session, select

from ...models import Category, Product, User
from .. import ValidationFailed, audit
from ..error_codes import ErrorCode
from ..messages import deals
from ..form_rules import require_object, whole_number
from ..permissions import require_admin
from ..rows import could_be_id, found, save_unique, shown_to
from .categories import find_category
from .fields import MAX_STOCK
from .form_merge import FORM_FIELDS, left_as_shown, merge_since_seen, stored
from .listing import is_visible, visible_clause
from .validation import LIMIT_WITHOUT_DISCOUNT, LIMIT_WITHOUT_DISCOUNT_CODE, clean_product, duplicate_name_message
from .validation import name_key, refresh_derived, validation_detail

# The fields an admin edits, as the audit trail records them.
AUDITED_FIELDS = (
    "name", "description", "brand", "image_url", "price", "discount_price", "discount_start", "discount_end",
    "per_customer_limit", "rating", "stock", "is_featured", "is_available", "status", "tags", "related_products", "category_id",
)
# An update also records the admin's own rating, which differs from ``rating`` once reviews exist.
UPDATE_AUDITED_FIELDS = (*AUDITED_FIELDS, "admin_rating")


def get_product(session: Session, product_id: str, actor: User | None = None) -> tuple[Product, Category]:
    """A product and its category; NotFound when unknown or hidden from ``actor`` (only admins
    see inactive or unavailable products)."""
    row = session.exec(
        select(Product, Category).join(Category, Category.id == Product.category_id).where(Product.id == product_id)
    ).first()
    product, category = shown_to(row, actor, lambda found_row: is_visible(found_row[0]), "Product not found.")
    return product, category


def products_by_ids(
    session: Session, ids: Iterable[str], *, hidden: bool = False
) -> dict[str, tuple[Product, Category]]:
    """The visible products among ``ids`` with their categories, by id (unknown or hidden ids
    are left out; favourites use this to drop what can no longer be shown). ``hidden``: hidden
    products too (a guest's cart shows their lines as no longer available, as an account's does)."""
    ids = list(dict.fromkeys(ids))
    found: dict[str, tuple[Product, Category]] = {}
    for start in range(0, len(ids), 500):
        query = select(Product, Category).join(Category, Category.id == Product.category_id)
        query = query.where(Product.id.in_(ids[start : start + 500]))
        rows = session.exec(query if hidden else query.where(visible_clause())).all()
        found.update({product.id: (product, category) for product, category in rows})
    return found


def existing_product_ids(session: Session, ids: Iterable[str]) -> set[str]:
    """Which of ``ids`` are products (queried in chunks to stay under SQL parameter limits); an id
    no key can be (:func:`rows.could_be_id`) is none, without asking."""
    ids = [product_id for product_id in dict.fromkeys(ids) if could_be_id(product_id)]
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        found.update(session.exec(select(Product.id).where(Product.id.in_(chunk))).all())
    return found


def product_name_taken(session: Session, name: str, *, exclude_id: str | None = None) -> bool:
    query = select(Product.id).where(Product.name_key == name_key(name))
    if exclude_id:
        query = query.where(Product.id != exclude_id)
    return session.exec(query).first() is not None


def _validate_for_write(
    session: Session, data: Mapping[str, Any], *, current: Product | None, partial: bool
) -> dict[str, Any]:
    require_object(data)
    values, errors = clean_product(
        data,
        resolve_category=lambda value: find_category(session, value),
        missing_products=lambda ids: set(ids) - existing_product_ids(session, ids),
        current=current,
        partial=partial,
    )
    exclude_id = current.id if current else None
    # A name kept as it is is not checked again: a look-alike pair stored before today's key
    # (migration 38k left it) stays editable.
    renamed = "name" in values and (current is None or values["name"] != current.name)
    if renamed and "name" not in errors and product_name_taken(session, values["name"], exclude_id=exclude_id):
        errors["name"] = [duplicate_name_message(values["name"])]
    if errors:
        duplicate = len(errors) == 1 and "already exists" in errors.get("name", [""])[0]
        # The one refusal a face branches on: a limit per customer without a discount.
        code = LIMIT_WITHOUT_DISCOUNT_CODE if errors.get("per_customer_limit") == [LIMIT_WITHOUT_DISCOUNT] else ""
        raise ValidationFailed(errors["name"][0] if duplicate else validation_detail(errors), fields=errors,
                               code=code, expose_code=True)
    return values


def _save(session: Session, product: Product, *, keep_key: bool = False) -> Product:
    """Write a product; a name taken meanwhile by a concurrent write is a 400, not a crash.
    ``keep_key``: the name is unchanged, and so is its stored ``name_key`` (see above)."""
    key = product.name_key
    refresh_derived(product)
    if keep_key and key:
        product.name_key = key
    save_unique(session, product, "name", duplicate_name_message(product.name))
    session.refresh(product)
    return product


def apply_admin_rating(product: Product, value: float) -> None:
    """An admin typed ``value``: it is shown while the product has no published review. With
    reviews, the reviews' average sent back unchanged (the original client's edit form returns
    every field it read) leaves the admin's own number as it was."""
    if product.review_count:
        if value != product.rating:
            product.admin_rating = value
    else:
        product.admin_rating = None if product.admin_rating is None else value
        product.rating = value


def create_product(session: Session, actor: User | None, data: Mapping[str, Any]) -> Product:
    """Create a product from the admin form's fields (admins only). ``category`` may be an id,
    slug or name. Raises ValidationFailed with field errors."""
    require_admin(actor)
    values = _validate_for_write(session, data, current=None, partial=False)
    product = _save(session, Product(**values))
    audit.record(session, actor, "product.create", "product", product.id,
                 changes=audit.created(audit.snapshot(product, AUDITED_FIELDS)), label=product.name)
    return product


def _seen_category_by_id(session: Session, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` with a ``seen`` category given by its slug or name (the body takes those too) as
    its id, as the product stores it: compared as written, any save read as a change meanwhile."""
    seen = data.get("seen")
    if not isinstance(seen, Mapping) or not isinstance(seen.get("category"), str) or not seen["category"].strip():
        return data
    category = find_category(session, seen["category"])
    return {**data, "seen": {**seen, "category": category.id}} if category is not None else data


def update_product(
    session: Session, actor: User | None, product_id: str, data: Mapping[str, Any], *, partial: bool = False
) -> Product:
    """Update a product (admins only): a full update (PUT) or, with ``partial``, only the given
    fields (PATCH). An optional ``seen`` (what the admin's form showed; ``stock_seen``, the stock
    alone) merges the save with the changes made meanwhile (:mod:`.form_merge`)."""
    require_admin(actor)
    product = found(session, Product, product_id, "Product not found.", for_update=True)  # rows.by_id
    data = left_as_shown(product, _seen_category_by_id(session, data)) if isinstance(data, Mapping) else data
    values = _validate_for_write(session, data, current=product, partial=partial)
    kept = merge_since_seen(product, values, data)
    if kept:  # the rules across fields hold for the merged product too (a discount under the price kept)
        merged = {**data, **{key: stored(product, key) for key in kept}}
        values = _validate_for_write(session, merged, current=product, partial=partial)
        for key in kept:
            values.pop(FORM_FIELDS[key][1], None)
    typed_rating = values.pop("rating", None)
    name = product.name

    def save(session: Session, row: Product) -> Product:
        if typed_rating is not None:
            apply_admin_rating(row, typed_rating)
        return _save(session, row, keep_key=row.name == name)

    before = deals.snapshot(product)
    product = audit.update_recorded(session, actor, "product.update", product, values, UPDATE_AUDITED_FIELDS,
                                    save=save, label=lambda row: row.name)
    deals.price_changed(session, product, before)  # a price drop or a restock alerts its fans
    return product


def restock(session: Session, actor: User | None, product_id: str, quantity: Any) -> Product:
    """Add ``quantity`` units to a product's stock (admins only), in one guarded UPDATE so that a
    checkout taking stock at the same moment is never lost."""
    require_admin(actor)
    units = whole_number(quantity)
    if units is None:
        message = "Enter a whole number of units to add, at least 1."
        raise ValidationFailed(message, fields={"quantity": [message]}, code=ErrorCode.QUANTITY_INVALID)
    product = found(session, Product, product_id, "Product not found.")
    # The ceiling is checked in the UPDATE too: a restock committed meanwhile may have raised it.
    after = session.execute(
        update(Product).where(Product.id == product.id, Product.stock <= MAX_STOCK - units)
        .values(stock=Product.stock + units).returning(Product.stock)
    ).scalar_one_or_none() if 1 <= units <= MAX_STOCK else None
    if after is None:
        session.refresh(product)
        message = f"Enter a whole number of units from 1 to {max(MAX_STOCK - product.stock, 1):,}."
        raise ValidationFailed(message, fields={"quantity": [message]}, code=ErrorCode.QUANTITY_INVALID)
    session.refresh(product)
    deals.stock_changed(session, product.id, after - units, after)
    audit.record(session, actor, "product.restock", "product", product.id,
                 changes={"stock": [after - units, after]}, label=product.name)
    return product


def delete_product(session: Session, actor: User | None, product_id: str) -> None:
    """Delete a product (admins only) and drop it from other products' related lists.

    Cart lines and favourites go with it; order lines keep their snapshot."""
    require_admin(actor)
    product = found(session, Product, product_id, "Product not found.")
    audit.record(session, actor, "product.delete", "product", product.id,
                 changes=audit.deleted(audit.snapshot(product, AUDITED_FIELDS)), label=product.name)
    referencing = session.exec(
        select(Product).where(
            cast(Product.related_products, String).contains(product_id, autoescape=True), Product.id != product_id
        )
    ).all()
    for other in referencing:
        other.related_products = [pid for pid in other.related_products if pid != product_id]
        session.add(other)
    session.delete(product)
    session.flush()
