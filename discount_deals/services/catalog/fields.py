"""Product and category field rules, carried by pydantic models.

:class:`ProductFields` and :class:`CategoryFields` declare each field's type and limits; the
few rules pydantic has no word for (plain decimal text, no booleans for numbers, no control
characters, http(s) or site-relative URLs) are validators on those types. Failures come back
DRF-style, ``{field: [message]}``, in the shop's own words (see ``_MESSAGES``). The rules that
need the database or the product being edited are :mod:`.validation`'s.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from typing_extensions import TypedDict

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from ...config.settings import get_settings
from .. import moments

MAX_PRICE = Decimal(10000000000)  # the columns hold 12 digits, 2 of them decimals
MAX_STOCK = 2_147_483_647  # a 32-bit INTEGER column on PostgreSQL
_DECIMAL_TEXT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")  # plain ASCII decimals: no exponents, "_", "NaN" or "١٢"
# C0 and C1 control characters except tab and newline (carriage returns become newlines first).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("shop_rule", message)


# --- field types --------------------------------------------------------------------------------


CONTROL_CHARACTERS = "Must not contain control characters."


def normalize_newlines(text: str) -> str:
    """Carriage returns (a browser's textarea sends CRLF) become newlines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# The zero-width joiner and non-joiner: some scripts and emoji need them; other "format"
# characters (bidirectional overrides, zero-width spaces, soft hyphens, the BOM) are invisible,
# and only make one text look like another ("Rice" and "Rice\u200b") or read backwards.
_JOINERS = frozenset("\u200c\u200d")
# A subdivision flag (England, Scotland, Wales): the black flag, then invisible "tag" characters.
_TAG_FLAG = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")


def _visible_part(text: str) -> str:
    return "".join(char for char in text if char in _JOINERS or unicodedata.category(char) != "Cf")


def without_invisible_characters(text: str) -> str:
    """``text`` less its Unicode format characters, except the two joiners and a flag's tags."""
    if text.isascii():
        return text
    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(text):
        kept += [_visible_part(text[start:flag.start()]), flag.group()]
        start = flag.end()
    return "".join([*kept, _visible_part(text[start:])])


def has_invisible_characters(text: str) -> bool:
    """True when ``text`` holds a format character :func:`without_invisible_characters` drops:
    a right-to-left override in a name, a zero-width space in an email."""
    return without_invisible_characters(text) != text


def has_control_characters(text: str) -> bool:
    """True when ``text`` holds a C0 or C1 control character other than tab and newline: the
    one rule every stored text field of the shop follows (refused with :data:`CONTROL_CHARACTERS`)."""
    return _CONTROL.search(text) is not None


def _as_text(value: Any) -> Any:
    """Numbers become text; other non-text values are refused; blanks around are dropped."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _fail("Must be text.")
    # Invisible characters go (a retailer's feed carries zero-width spaces and soft hyphens), and
    # the text is stored composed (NFC): "Café" is one spelling whichever way it was typed.
    text = unicodedata.normalize("NFC", without_invisible_characters(normalize_newlines(str(value)))).strip()
    if has_control_characters(text):
        raise _fail(CONTROL_CHARACTERS)
    return text


def Text(max_length: int) -> Any:
    return Annotated[str, BeforeValidator(_as_text), Field(max_length=max_length)]


# The Halfwidth and Fullwidth Forms ("Ｒｉｃｅ Ｏｉｌ" pasted from a supplier's site, "ｶﾞｰﾅ") and the
# ideographic space, but the full-width macron (NFKC makes it a blank and a combining accent).
_WIDTH_FORMS = re.compile("[\u3000\uff01-\uffe2\uffe4-\uffee]+")


def fold_width(text: str) -> str:
    """``text`` with its full-width and half-width forms written as the ordinary characters
    (NFKC of those characters only: "Ｒｉｃｅ　１ｋｇ" is "Rice 1kg", "½" and "㎏" stay as typed).
    The search index holds catalogue text as stored, and the query side folds what is typed:
    stored in full-width letters, a name would be found by neither spelling."""
    if text.isascii():
        return text
    return _WIDTH_FORMS.sub(lambda forms: unicodedata.normalize("NFKC", forms.group()), text)


def _as_catalogue_text(value: Any) -> str:
    return unicodedata.normalize("NFC", fold_width(_as_text(value))).strip()


def CatalogueText(max_length: int) -> Any:
    """Text the catalogue shows and searches (a product's name, brand and description, a
    category's name): :func:`Text`, its width forms folded (:func:`fold_width`)."""
    return Annotated[str, BeforeValidator(_as_catalogue_text), Field(max_length=max_length)]


def _plain_decimal(value: Any) -> Any:
    text = str(value).strip() if isinstance(value, int | float | Decimal | str) and not isinstance(value, bool) else ""
    if not _DECIMAL_TEXT.fullmatch(text):
        raise _fail("Enter a valid amount, e.g. 12.50.")
    return Decimal(text).normalize() if "." in text else Decimal(text)


Money = Annotated[Decimal, BeforeValidator(_plain_decimal), Field(ge=0, lt=MAX_PRICE, decimal_places=2)]


def _no_bool(message: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool):
            raise _fail(message)
        return value

    return check


# A moment is written as a date first (2026-11-30, 2026-11-30T10:00): pydantic would read a bare
# number ("2030", "-5") as seconds since 1970, and a sale typed for 2030 would start at once.
_DATE_FIRST = re.compile(r"\d{4}-\d{2}-\d{2}")


def _text_or_datetime(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text and not _DATE_FIRST.match(text):
            raise _fail("Enter a valid date and time, e.g. 2026-11-30T10:00.")
        return f"{text[:-1]}+00:00" if text.endswith(("Z", "z")) else text
    if isinstance(value, datetime):
        return value
    raise _fail("Enter a valid date and time, e.g. 2026-11-30T10:00.")


def as_utc(moment: datetime) -> datetime:
    """Values without a time zone are taken as UTC; one before the year 1 or after 9999 in UTC
    is refused like any other bad date."""
    try:
        return moments.as_utc(moment)
    except ValueError:
        raise _fail("Enter a valid date and time, e.g. 2026-11-30T10:00.") from None


Moment = Annotated[datetime, BeforeValidator(_text_or_datetime), AfterValidator(as_utc)]
Stock = Annotated[int, BeforeValidator(_no_bool("Stock must be a whole number of 0 or more.")), Field(ge=0, le=MAX_STOCK)]
LIMIT_INVALID = "Limit per customer must be a whole number of 1 or more."
Limit = Annotated[int, BeforeValidator(_no_bool(LIMIT_INVALID)), Field(ge=1, le=MAX_STOCK)]
Rating = Annotated[float, BeforeValidator(_no_bool("Rating must be a number from 0 to 5.")), Field(ge=0, le=5)]
Flag = Annotated[bool, BeforeValidator(lambda v: v.strip().lower() if isinstance(v, str) else v)]
Status = Annotated[
    Literal["active", "inactive"], BeforeValidator(lambda v: v.strip().lower() if isinstance(v, str) else v)
]


LIST_ITEMS, ITEM_LENGTH = 50, 100  # tags and related products: each listing and search result carries them


def _trimmed_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = [unicodedata.normalize("NFC", without_invisible_characters(item)).strip() for item in value]
        items = [item for item in items if item]
        if len(items) > LIST_ITEMS:
            raise _fail(f"Ensure this list has at most {LIST_ITEMS} items.")
        if any(len(item) > ITEM_LENGTH for item in items):
            raise _fail(f"Ensure each item has at most {ITEM_LENGTH} characters.")
        if any(has_control_characters(item) for item in items):
            raise _fail(CONTROL_CHARACTERS)
        return items
    return value  # refused by list[str] below


TextList = Annotated[list[str], BeforeValidator(_trimmed_list)]


def _no_commas(tags: list[str]) -> list[str]:
    """A CSV cell (the admin form's field too) lists tags with commas: a tag holding one would come
    back from an export as two."""
    if any("," in tag for tag in tags):
        raise _fail("Tags must not contain commas.")
    return tags


TagList = Annotated[TextList, AfterValidator(_no_commas)]


def _image_url(value: str) -> str:
    """Blank → the placeholder picture; otherwise an http(s) URL or a path on this site."""
    if not value:
        return get_settings().placeholder_image_url
    if not re.match(r"^(https?://|/(?!/))", value, re.IGNORECASE):
        raise _fail("Enter a valid URL (http://, https:// or a path starting with /).")
    return value


def _none_as_blank(value: Any) -> Any:
    return "" if value is None else _as_text(value)


ImageUrl = Annotated[str, BeforeValidator(_none_as_blank), Field(max_length=500), AfterValidator(_image_url)]


class ProductFields(BaseModel):
    """The product fields a client may send; category and related products are checked by
    :func:`clean_product` against the database."""

    model_config = ConfigDict(extra="ignore")

    name: CatalogueText(200) = None
    description: CatalogueText(100_000) = None
    brand: CatalogueText(80) = None
    image_url: ImageUrl = None
    price: Money = None
    discount_price: Money = None
    discount_start: Moment = None
    discount_end: Moment = None
    per_customer_limit: Limit = None  # a flash sale's cap (services.flash_sales)
    rating: Rating = None
    stock: Stock = None
    is_featured: Flag = None
    is_available: Flag = None
    status: Status = None
    tags: TagList = None
    related_products: TextList = None


class CategoryFields(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: CatalogueText(120) = None
    slug: Text(140) = None
    description: Text(100_000) = None


# Messages for pydantic's own error types, by field; "*" covers the rest.
_MONEY = {
    "greater_than_equal": "Must not be negative.",
    "less_than": "Must be less than 10,000,000,000.",
    "decimal_max_places": "Use at most 2 decimal places.",
    "*": "Enter a valid amount, e.g. 12.50.",
}
_TEXT = {"string_too_long": "Must be at most {max_length} characters.", "too_long": "Must be at most {max_length} characters.", "*": "Must be text."}
_MESSAGES: dict[str, dict[str, str]] = {
    "name": _TEXT,
    "description": _TEXT,
    "brand": _TEXT,
    "slug": _TEXT,
    "image_url": _TEXT,
    "price": _MONEY,
    "discount_price": _MONEY,
    "discount_start": {"*": "Enter a valid date and time, e.g. 2026-11-30T10:00."},
    "discount_end": {"*": "Enter a valid date and time, e.g. 2026-11-30T10:00."},
    "per_customer_limit": {"*": LIMIT_INVALID},
    "rating": {"*": "Rating must be a number from 0 to 5."},
    "stock": {"less_than_equal": f"Stock must be at most {MAX_STOCK:,}.", "*": "Stock must be a whole number of 0 or more."},
    "is_featured": {"*": "Must be true or false."},
    "is_available": {"*": "Must be true or false."},
    "status": {"*": 'Status must be "active" or "inactive".'},
    "tags": {"*": "Tags must be a list of text values."},
    "related_products": {"*": "Related products must be a list of text values."},
}


def field_errors(error: ValidationError) -> dict[str, list[str]]:
    """A pydantic error as ``{field: [message]}`` (the first problem of each field)."""
    errors: dict[str, list[str]] = {}
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem.get("loc") else "non_field_errors"
        if field in errors:
            continue
        if problem["type"] == "shop_rule":
            message = problem["msg"]
        else:
            table = _MESSAGES.get(field, {"*": "Invalid value."})
            message = table.get(problem["type"], table["*"]).format(**problem.get("ctx", {}))
        errors[field] = [message]
    return errors


def _dict_adapter(model: type[BaseModel]) -> TypeAdapter:
    """The model's fields as a TypedDict validator: the same rules, validated straight into a
    dict of the fields given (no model object), which bulk uploads of 100,000 rows notice."""
    fields = {
        name: Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        for name, info in model.model_fields.items()
    }
    return TypeAdapter(TypedDict(f"{model.__name__}Dict", fields, total=False))


_ADAPTERS: dict[type[BaseModel], TypeAdapter] = {}


def validate_fields(model: type[BaseModel], data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The given fields validated: (values of the valid ones, errors of the others)."""
    adapter = _ADAPTERS.get(model) or _ADAPTERS.setdefault(model, _dict_adapter(model))
    try:
        return adapter.validate_python(data), {}
    except ValidationError as exc:
        errors = field_errors(exc)
        valid = {k: v for k, v in data.items() if k not in errors}
        return (validate_fields(model, valid)[0] if valid else {}), errors


# --- single values (the admin screens, the CLI) --------------------------------------------------


class _Invalid(ValueError):
    """One value is unacceptable; the message is shown to the user."""


def _one(field: str, value: Any) -> Any:
    values, errors = validate_fields(ProductFields, {field: value})
    if errors:
        raise _Invalid(errors[field][0])
    return values[field]


def parse_money(value: Any) -> Decimal:
    """A non-negative amount with at most 2 decimal places, from a number or decimal text."""
    return _one("price", value).quantize(Decimal("0.01"))


def parse_datetime(value: Any) -> datetime:
    """ISO date-times, including the browser's datetime-local ``2026-11-30T10:00``; values without
    a time zone are taken as UTC."""
    return _one("discount_start", value)
