"""What an admin's product form saw, and a save merged with what changed meanwhile.

Two admins open one product; the second to save sent back every field its form showed, and the
first one's change was undone (a price rise lost, a hidden product on sale again). A form sends
``seen``, the values it showed when it was opened (:func:`form_view`; the back office keeps them),
and :func:`merge_since_seen` merges the save three ways, field by field: a field the product
still has as the form showed it takes the value sent; one that changed meanwhile but that the
admin left as shown keeps the product's own; one that changed meanwhile and that the admin
changed too refuses the whole save (409, ``product_changed``, or ``stock_changed`` when the stock
alone: the form opened before orders took some). Values are compared as the form shows them
(money with 2 decimals, times to the minute, tags joined), so a field left alone never counts as
changed. Without ``seen`` (the original client) the fields sent are written, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ...models import Product
from .. import Conflict, ValidationFailed
from ..error_codes import ErrorCode
from ..form_rules import whole_number
from ..money import api_amount
from .fields import parse_datetime
from .validation import comma_list

TEXT, MONEY, MOMENT, COUNT, LIST, RATING, FLAG = "text", "money", "moment", "count", "list", "rating", "flag"

# The form's fields by the API body's names (the back office's form fields, in its order): how
# each is shown, and the column a save writes.
FORM_FIELDS: dict[str, tuple[str, str]] = {
    "name": (TEXT, "name"),
    "description": (TEXT, "description"),
    "brand": (TEXT, "brand"),
    "price": (MONEY, "price"),
    "discount_price": (MONEY, "discount_price"),
    "discount_start": (MOMENT, "discount_start"),
    "discount_end": (MOMENT, "discount_end"),
    "per_customer_limit": (COUNT, "per_customer_limit"),
    "image_url": (TEXT, "image_url"),
    "category": (TEXT, "category_id"),
    "tags": (LIST, "tags"),
    "related_products": (LIST, "related_products"),
    "stock": (COUNT, "stock"),
    "rating": (RATING, "rating"),
    "status": (TEXT, "status"),
    "is_available": (FLAG, "is_available"),
    "is_featured": (FLAG, "is_featured"),
}
# How the refusal names a field (the form's label, lower case); the others by their own name.
LABELS = {"image_url": "image URL", "per_customer_limit": "limit per customer", "is_available": "available",
          "is_featured": "featured"}
PRODUCT_CHANGED = "This product was changed meanwhile ({fields}). Check the form and save again."
STOCK_CHANGED = ("The stock changed to {now} while you edited this product (orders, or another admin): "
                 "check it and save again.")
_TRUE_WORDS = frozenset({"true", "1", "on", "yes"})


def admin_rating_of(product: Product) -> float:
    """The admin's number for a product (the back office's form shows and edits this one)."""
    return float(product.admin_rating if product.admin_rating is not None else product.rating or 0)


def _moment_text(value: Any) -> str:
    """A time as a datetime-local value in UTC, to the minute (the service reads those as UTC)."""
    moment = value if isinstance(value, datetime) else parse_datetime(value)
    moment = moment.astimezone(UTC) if moment.tzinfo else moment
    return moment.strftime("%Y-%m-%dT%H:%M")


def _count_text(value: Any) -> str:
    number = whole_number(value)
    if number is None:
        raise ValueError(value)
    return str(number)


def _list_text(value: Any) -> str:
    items = comma_list(value) if isinstance(value, str) else [str(item).strip() for item in value]
    return ", ".join(item for item in items if item)


_SHOWN: dict[str, Callable[[Any], str]] = {
    TEXT: str, MONEY: api_amount, MOMENT: _moment_text, COUNT: _count_text, LIST: _list_text,
    RATING: lambda value: f"{float(value):g}",
}


def shown(kind: str, value: Any) -> str | bool:
    """``value`` as the form shows it (a stored value, or one a form or snapshot sent as text);
    what cannot be read as its kind stays as its text, so it only ever equals itself."""
    if kind == FLAG:
        return value.strip().lower() in _TRUE_WORDS if isinstance(value, str) else bool(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    try:
        return _SHOWN[kind](value)
    except (ValueError, TypeError, ArithmeticError):
        return str(value)


def stored(product: Product, key: str) -> Any:
    """The product's value of a form field (its rating: the admin's own number)."""
    return admin_rating_of(product) if key == "rating" else getattr(product, FORM_FIELDS[key][1])


def form_view(product: Product) -> dict[str, Any]:
    """The product as the form shows it, by field: what the back office's form starts with, and
    the ``seen`` it sends back."""
    return {key: shown(kind, stored(product, key)) for key, (kind, _column) in FORM_FIELDS.items()}


def _comparable(kind: str, value: Any) -> str | bool:
    text = shown(kind, value)
    return text.strip() if isinstance(text, str) else text


def _said(product: Product, key: str) -> str:
    """A field's value now, in a refusal's words."""
    now = shown(FORM_FIELDS[key][0], stored(product, key))
    return ("yes" if now else "no") if isinstance(now, bool) else now or "blank"


def _seen(data: Mapping[str, Any]) -> dict[str, Any]:
    """What the form showed, by field: ``seen``, and ``stock_seen`` (the stock alone; the API's
    older word for it, which wins over ``seen``'s stock)."""
    seen = data.get("seen")
    if seen is not None and not isinstance(seen, Mapping):
        message = "Send what the form showed as an object of its fields."
        raise ValidationFailed(message, fields={"seen": [message]})
    seen = dict(seen or {})
    stock = data.get("stock_seen")
    if stock is not None and stock != "":
        if whole_number(stock) is None:
            message = "Send the stock the form showed: a whole number of 0 or more."
            raise ValidationFailed(message, fields={"stock_seen": [message]})
        seen["stock"] = stock
    return seen


def left_as_shown(product: Product, data: Mapping[str, Any]) -> dict[str, Any]:
    """The save's ``data`` with each field the admin left as the form showed it, but that changed
    meanwhile, set to the product's own value, before the save is validated: what the form showed
    may no longer be valid (a related product deleted, the old category removed, the old name
    taken by another product), and the admin never touched it."""
    seen, merged = _seen(data), dict(data)
    for key, (kind, _column) in FORM_FIELDS.items():
        if key in data and key in seen:
            was = _comparable(kind, seen[key])
            if _comparable(kind, data[key]) == was and _comparable(kind, stored(product, key)) != was:
                merged[key] = stored(product, key)
    return merged


def merge_since_seen(product: Product, values: dict[str, Any], data: Mapping[str, Any]) -> list[str]:
    """Merge a save's cleaned ``values`` with the product's changes since its form showed the
    ``seen`` in ``data`` (see the module's docstring). Returns the fields whose value changed
    meanwhile and that the admin left as shown: the product keeps its own (the caller writes
    them back as stored). Raises Conflict, writing nothing, on a field both changed."""
    seen, kept, changed = _seen(data), [], []
    for key, (kind, column) in FORM_FIELDS.items():
        if column not in values or key not in seen:
            continue  # not saved, or not seen: written as sent
        was, now = _comparable(kind, seen[key]), _comparable(kind, stored(product, key))
        sent = _comparable(kind, values[column])
        if was == now or sent == now:
            continue  # nothing moved meanwhile, or typed as it is now
        if sent == was or (key in data and _comparable(kind, data[key]) == was):
            kept.append(key)  # left as shown: the change made meanwhile stays
        else:
            changed.append(key)
    if changed == ["stock"]:
        message = STOCK_CHANGED.format(now=product.stock)
        raise Conflict(message, fields={"stock": [message]}, code=ErrorCode.STOCK_CHANGED, expose_code=True)
    if changed:
        names = ", ".join(LABELS.get(key, key.replace("_", " ")) for key in changed)
        fields = {key: [f"Changed meanwhile to {_said(product, key)}."] for key in changed}
        raise Conflict(PRODUCT_CHANGED.format(fields=names), fields=fields, code=ErrorCode.PRODUCT_CHANGED,
                       expose_code=True)
    return kept
