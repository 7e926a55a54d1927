"""CSV exports for the back office: the catalogue and the order lines of a date range.

Both stream: rows are read a chunk at a time with keyset pagination (each chunk continues after
the last key of the previous one, through an index) inside the caller's session, and written
out as CSV text a chunk at a time, so memory stays flat however many rows there are.

The product export has the bulk-upload template's columns and a flash sale's
``per_customer_limit`` (services.bulk_import's ``PRODUCT_EXPORT_COLUMNS``), so an export uploads
again as it is. The order export has one line per order line, with the customer, the
status, the payment and the order's totals repeated on each of its lines, whether the payment
was a test (``orders.rules.is_test_payment``: mobile money through the fake provider, no money
moved), whether the order's money was received (``orders.rules.counts_as_revenue``, the
overview's definition of revenue), what of it was refunded, and the amounts' currency (the
shop's, ``DD_CURRENCY``: the amounts are plain numbers a spreadsheet can add). The contact phone
is written the Ghanaian way (``024 123 4567``): a spreadsheet keeps it as text (E.164's leading ``+`` would be
escaped as a formula, and digits alone lose their 0), and a rider dials it as it is.

Cells a spreadsheet would run as a formula (text starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return) are escaped with a leading apostrophe (OWASP's advice); the importer
removes that apostrophe again, so the round trip keeps names such as "-50% Rice" as they were.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import jwt
from sqlalchemy import and_, func, or_, select
from sqlmodel import Session

from ..models import Category, Order, OrderItem, Product, User
from ..config.settings import get_settings
from . import NotAuthenticated, ValidationFailed
from .bulk_import import PRODUCT_EXPORT_COLUMNS
from .csv_cells import escape_cell
from .moments import after_day, day_start
from .money import shop_currency
from .orders.rules import counts_as_revenue, is_test_payment
from .permissions import require_admin
from .phones import display_phone
from .receipts import buyer_email

CHUNK_ROWS = 1000
ORDER_COLUMNS = (
    "order_id", "order_number", "placed_at", "customer_email", "customer_name", "contact_phone", "status",
    "payment_method",
    "payment_status", "delivery_method", "coupon_code", "product_id", "product_name", "quantity", "unit_price",
    "original_price", "line_total", "order_subtotal", "order_savings", "order_discount", "order_shipping",
    "order_tax", "order_total", "order_refunded", "payment_test", "counts_as_revenue", "currency",
)
EXPORTS = ("products", "orders", "documents")  # documents: services.register
DOWNLOAD_TOKEN_SECONDS = 120
_DOWNLOAD = "export"


# --- cells ---------------------------------------------------------------------------------------


def csv_chunks(columns: Sequence[str], rows: Iterable[Sequence[Any]], rows_per_chunk: int = 500) -> Iterator[bytes]:
    """UTF-8 CSV: the header, then the rows, ``rows_per_chunk`` to a chunk (every cell escaped)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    pending = 0
    for row in rows:
        writer.writerow([escape_cell(value) for value in row])
        pending += 1
        if pending >= rows_per_chunk:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
            pending = 0
    yield buffer.getvalue().encode("utf-8")


# --- products ----------------------------------------------------------------------------------


def product_rows(session: Session, actor: User | None) -> Iterator[list[Any]]:
    """Every product (hidden ones too), oldest first, as template rows (admins only).

    The category is given by name, which the uploader resolves; dates are ISO 8601 UTC."""
    require_admin(actor)
    return _product_rows(session)


_PRODUCT_COLUMNS = [column for column in PRODUCT_EXPORT_COLUMNS if column != "category"]


def _oldest_first(session: Session, query: Any, table: Any) -> Iterator[list[Any]]:
    """The rows of ``query`` (which selects ``table``'s ``created_at`` and ``id``) oldest first,
    :data:`CHUNK_ROWS` at a time, each chunk read after the last one's key (never an OFFSET)."""
    query = query.order_by(table.c.created_at, table.c.id).limit(CHUNK_ROWS)
    after: tuple[datetime, str] | None = None
    while True:
        paged = query
        if after is not None:
            paged = query.where(
                or_(table.c.created_at > after[0], and_(table.c.created_at == after[0], table.c.id > after[1]))
            )
        chunk = session.execute(paged).all()
        if not chunk:
            return
        yield chunk
        after = (chunk[-1].created_at, chunk[-1].id)


def _product_rows(session: Session) -> Iterator[list[Any]]:
    # Plain rows of the needed columns, not ORM objects: a third of the time, and nothing kept.
    table = Product.__table__
    # The admin's rating, not the reviews' average: the file is for a re-import.
    admins_rating = func.coalesce(table.c.admin_rating, table.c.rating)
    columns = [admins_rating if name == "rating" else table.c[name] for name in _PRODUCT_COLUMNS]
    names: dict[str, str] = {}
    for chunk in _oldest_first(session, select(table.c.created_at, table.c.id, table.c.category_id, *columns), table):
        missing = {row.category_id for row in chunk} - names.keys()
        if missing:
            names.update(session.execute(select(Category.id, Category.name).where(Category.id.in_(missing))).all())
        for row in chunk:
            values = dict(zip(_PRODUCT_COLUMNS, row[3:], strict=True))
            values["category"] = names.get(row.category_id, row.category_id)
            values["rating"] = f"{float(values['rating'] or 0):g}"
            yield [values[column] for column in PRODUCT_EXPORT_COLUMNS]


# --- orders ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DateRange:
    """Whole days in UTC, both included; None leaves that side open."""

    first: date | None = None
    last: date | None = None

    def __post_init__(self) -> None:
        if self.first and self.last and self.last < self.first:
            message = "The end date must not be before the start date."
            raise ValidationFailed(message, fields={"date_to": [message]})

    @property
    def start(self) -> datetime | None:
        return day_start(self.first) if self.first else None

    @property
    def end(self) -> datetime | None:
        return after_day(self.last) if self.last else None


def parse_day(raw: str | None, name: str) -> date | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        message = "Use a date such as 2026-11-23."
        raise ValidationFailed(f"Invalid {name}. {message}", fields={name: [message]}) from None


def order_rows(session: Session, actor: User | None, days: DateRange = DateRange()) -> Iterator[list[Any]]:
    """One row per order line of the orders placed in ``days``, oldest order first (admins only)."""
    require_admin(actor)
    return _order_rows(session, days)


def _order_rows(session: Session, days: DateRange) -> Iterator[list[Any]]:
    orders, items, users = Order.__table__, OrderItem.__table__, User.__table__
    conditions: list[Any] = []
    if days.start:
        conditions.append(orders.c.created_at >= days.start)
    if days.end:
        conditions.append(orders.c.created_at < days.end)
    order_columns = [orders.c[name] for name in (
        "id", "created_at", "contact_phone", "status", "payment_method", "payment_status", "delivery_method",
        "coupon_code", "subtotal", "savings", "discount", "shipping", "tax", "total", "refunded_total", "payment_test",
    )]
    # Chunks of orders (their lines follow), in the order of the created_at index.
    query = (
        select(*order_columns, users.c.email, users.c.first_name, users.c.last_name)
        .join(users, users.c.id == orders.c.user_id)
        .where(*conditions)
    )
    currency = shop_currency().code  # the amounts' currency (a GHS shop's sheet says so)
    for chunk in _oldest_first(session, query, orders):
        lines: dict[str, list[Any]] = {order.id: [] for order in chunk}
        for item in session.execute(
            select(items.c.order_id, items.c.product_id, items.c.name, items.c.quantity, items.c.unit_price,
                   items.c.original_price, items.c.line_total)
            .where(items.c.order_id.in_(list(lines)))
            .order_by(items.c.order_id, items.c.name, items.c.id)
        ).all():
            lines[item.order_id].append(item)
        for order in chunk:
            name = f"{order.first_name} {order.last_name}".strip()
            for item in lines[order.id]:
                yield [
                    order.id, order.id[:8], order.created_at, buyer_email(order.email), name,
                    display_phone(order.contact_phone),
                    order.status, order.payment_method,
                    order.payment_status, order.delivery_method, order.coupon_code or "", item.product_id or "",
                    item.name, item.quantity, item.unit_price, item.original_price, item.line_total, order.subtotal,
                    order.savings, order.discount, order.shipping, order.tax, order.total, order.refunded_total,
                    "yes" if is_test_payment(order) else "no", "yes" if counts_as_revenue(order) else "no", currency,
                ]


def export_filename(kind: str, days: DateRange = DateRange(), today: date | None = None) -> str:
    today = today or datetime.now(UTC).date()
    if kind != "products" and (days.first or days.last):
        span = f"{days.first or 'start'}-to-{days.last or today}"
        return f"{kind}-{span}.csv"
    return f"{kind}-{today.isoformat()}.csv"


# --- download links for the back office ----------------------------------------------------------


def download_token(actor: User | None, kind: str) -> str:
    """A short-lived token that lets the admin's browser download one export by URL (a link
    cannot send the Authorization header). It is good for nothing else."""
    actor = require_admin(actor)
    if kind not in EXPORTS:
        raise ValidationFailed(f"Unknown export: {kind}.")
    now = datetime.now(UTC)
    claims = {
        "sub": actor.id,
        "type": _DOWNLOAD,
        "export": kind,
        "ver": actor.token_version,  # a password change or "log out everywhere" retires it too
        "jti": f"{now.timestamp():.6f}",
        "iat": now,
        "exp": now + timedelta(seconds=DOWNLOAD_TOKEN_SECONDS),
    }
    return jwt.encode(claims, get_settings().secret_key, algorithm="HS256")


def user_for_download_token(session: Session, token: str, kind: str) -> User:
    """The active admin a download token was made for (this export only, of the admin's current
    token version: it outlived "log out everywhere"), else 401."""
    from .auth.tokens import decode_token

    claims = decode_token(token, _DOWNLOAD)
    if claims.get("export") != kind:
        raise NotAuthenticated("Token is invalid or expired")
    user = session.get(User, claims["sub"])
    if user is None or not user.is_active or claims.get("ver", 0) != user.token_version:
        raise NotAuthenticated("Token is invalid or expired")
    return user
