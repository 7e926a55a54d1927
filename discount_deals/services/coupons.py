"""Coupons: the back office's list, create and (de)activate; the checks at checkout; counting uses.

A coupon takes a percentage or a fixed amount off the subtotal (services.pricing applies it).
It may expire (valid until ``expires_at``, exclusive, UTC), have a usage limit (how many orders
may use it in all) and a minimum basket (the smallest subtotal, after product discounts, it
applies to). Codes are letters, digits, ``-`` and ``_``, stored upper-case, unique regardless
of case.

Uses are counted by :func:`redeem` inside the checkout's own transaction with one guarded
``UPDATE coupon SET used_count = used_count + 1 WHERE ... used_count < usage_limit``: however many
shoppers check out at once, no more orders than the limit get the coupon (the others are told it
is used up, and nothing of their order is stored). A cancelled order gives its use back
(:func:`release`). Every admin change is recorded in the audit trail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import func, or_, update
from sqlmodel import Session, select

from ..models import Coupon, CouponKind, User
from . import Conflict, ValidationFailed, audit, pricing
from .money import MONEY_STEP, round_amount
from .catalog.fields import MAX_PRICE
from .error_codes import ErrorCode
from .form_rules import MUST_BE_BOOLEAN, refused, require_object, take_flag
from .moments import after_day
from .money import money_text
from .permissions import require_admin
from .rows import found
from .text_match import contains

COUPON_CODE_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
INVALID_COUPON = "Invalid coupon code"
USED_UP = "This coupon has reached its usage limit."
MAX_USAGE_LIMIT = 1_000_000_000
AUDITED_FIELDS = ("code", "kind", "value", "active", "expires_at", "usage_limit", "min_subtotal")
# The list's status filter.
STATUSES = ("active", "inactive", "expired", "used_up")


def _fail(field: str, message: str, code: str = "") -> ValidationFailed:
    return ValidationFailed(message, fields={field: [message]}, code=code)


def _decimal(raw: Any, what: str, field: str) -> Decimal:
    if isinstance(raw, bool) or raw is None:
        raise _fail(field, f"{what} must be a number.")
    try:
        value = Decimal(str(raw).strip())
    except (InvalidOperation, ValueError):
        raise _fail(field, f"{what} must be a number.") from None
    if not value.is_finite():
        raise _fail(field, f"{what} must be a number.")
    try:
        cents = round_amount(value)
    except ValueError:  # too large to count in cents (1e400)
        raise _fail(field, f"{what} is too large.") from None
    if value != cents:
        raise _fail(field, f"{what} may have at most 2 decimal places.")
    return value


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def clean_code(code: Any) -> str:
    code = code.strip().upper() if isinstance(code, str) else ""
    if not COUPON_CODE_RE.fullmatch(code):
        raise _fail("code", "Coupon code must be 1 to 64 letters, digits, '-' or '_'.")
    return code


def clean_usage_limit(raw: Any) -> int | None:
    if _blank(raw):
        return None
    text = str(raw).strip() if isinstance(raw, int | str) and not isinstance(raw, bool) else ""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_USAGE_LIMIT:
        raise _fail("usage_limit", "Usage limit must be a whole number of at least 1 (or blank for no limit).")
    return int(text)


def clean_min_subtotal(raw: Any) -> Decimal | None:
    if _blank(raw):
        return None
    value = _decimal(raw, "Minimum basket", "min_subtotal")
    if value < 0:
        raise _fail("min_subtotal", "Minimum basket must be 0 or more.")
    if value >= MAX_PRICE:
        raise _fail("min_subtotal", "Minimum basket is too large.")
    return value.quantize(MONEY_STEP) if value > 0 else None


def clean_expiry(raw: Any, now: datetime | None = None) -> datetime | None:
    """A date (valid through that whole day, UTC) or a date and time (valid until then); blank:
    no expiry. It must be in the future."""
    if _blank(raw):
        return None
    moment: datetime | None = None
    if isinstance(raw, datetime):
        moment = raw
    elif isinstance(raw, date):
        moment = after_day(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                moment = after_day(date.fromisoformat(text))
            else:
                moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            moment = None
    try:
        moment = pricing.utc(moment) if moment is not None else None
    except ValueError:  # before the year 1 or after 9999 in UTC
        moment = None
    if moment is None:
        raise _fail("expires_at", "Enter an expiry date such as 2026-12-31.")
    if moment <= (now or pricing.now_utc()):
        raise _fail("expires_at", "Expiry date is in the past.")
    return moment


def _kind_and_value(kind: Any, value: Any) -> tuple[str, Decimal]:
    if kind not in (CouponKind.PERCENT.value, CouponKind.FIXED.value):
        raise _fail("kind", "Kind must be percent or fixed.")
    if kind == CouponKind.PERCENT.value:
        number = _decimal(value, "Percentage", "value")
        if not Decimal(0) < number <= Decimal(100):
            raise _fail("value", "Percentage must be above 0 and at most 100.")
    else:
        number = _decimal(value, "Amount", "value")
        if number <= 0:
            raise _fail("value", "Amount must be above 0.")
        if number >= MAX_PRICE:
            raise _fail("value", "Amount is too large.")
    return kind, number.quantize(MONEY_STEP)


def _insert(session: Session, actor: User | None, coupon: Coupon, actor_fallback: str) -> Coupon:
    if session.exec(select(Coupon.id).where(func.upper(Coupon.code) == coupon.code)).first() is not None:
        raise _fail("code", f"Coupon {coupon.code} already exists.", ErrorCode.COUPON_EXISTS)
    session.add(coupon)
    session.flush()
    audit.record(session, actor, "coupon.create", "coupon", coupon.id,
                 changes=audit.created(audit.snapshot(coupon, AUDITED_FIELDS)), label=coupon.code,
                 actor_fallback=actor_fallback)
    return coupon


def create_coupon(
    session: Session,
    code: str,
    *,
    percent: Any = None,
    amount: Any = None,
    expires_on: date | None = None,
    active: bool = True,
    usage_limit: Any = None,
    min_subtotal: Any = None,
    actor: User | None = None,
    actor_fallback: str = audit.COMMAND_LINE,
) -> Coupon:
    """Add a coupon (the command line; admins use :func:`admin_create_coupon`): ``percent``
    off the subtotal (0 < p ≤ 100) or a fixed ``amount`` off. A coupon with ``expires_on`` is
    valid until the end of that day (UTC)."""
    code = clean_code(code)
    if (percent is None) == (amount is None):
        raise ValidationFailed("Give either a percentage or an amount.")
    kind, value = _kind_and_value(
        CouponKind.PERCENT.value if percent is not None else CouponKind.FIXED.value,
        percent if percent is not None else amount,
    )
    coupon = Coupon(
        code=code,
        kind=kind,
        value=value,
        active=active,
        expires_at=clean_expiry(expires_on),
        usage_limit=clean_usage_limit(usage_limit),
        min_subtotal=clean_min_subtotal(min_subtotal),
    )
    return _insert(session, actor, coupon, actor_fallback)


def admin_create_coupon(session: Session, actor: User | None, data: Mapping[str, Any]) -> Coupon:
    """Admins: create a coupon from ``{code, kind: percent|fixed, value, expires_at?, usage_limit?,
    min_subtotal?, active?}`` (``expires_at``: a date, valid through that day, or a date and time).
    Every problem is reported per field."""
    actor = require_admin(actor)
    require_object(data)
    errors: dict[str, list[str]] = {}
    values: dict[str, Any] = {}

    def take(field: str, clean) -> None:
        try:
            values[field] = clean()
        except ValidationFailed as exc:
            errors.update(exc.fields or {field: [exc.detail]})

    take("code", lambda: clean_code(data.get("code")))
    take("value", lambda: _kind_and_value(data.get("kind"), data.get("value")))
    take("expires_at", lambda: clean_expiry(data.get("expires_at")))
    take("usage_limit", lambda: clean_usage_limit(data.get("usage_limit")))
    take("min_subtotal", lambda: clean_min_subtotal(data.get("min_subtotal")))
    active = data.get("active", True)
    if not isinstance(active, bool):
        errors["active"] = [MUST_BE_BOOLEAN]
    if errors:
        raise refused(errors, "coupon")
    kind, value = values.pop("value")
    coupon = Coupon(kind=kind, value=value, active=active, **values)
    return _insert(session, actor, coupon, audit.SHOP)


def get_coupon(session: Session, actor: User | None, coupon_id: str) -> Coupon:
    require_admin(actor)
    return found(session, Coupon, coupon_id, "Coupon not found.")


def update_coupon(session: Session, actor: User | None, coupon_id: str, data: Mapping[str, Any]) -> Coupon:
    """Admins: change ``active``, ``expires_at``, ``usage_limit`` or ``min_subtotal`` (absent
    fields stay; code, kind and value are fixed once orders may carry them). Switching a coupon
    off or on alone is recorded as ``coupon.deactivate`` / ``coupon.activate``."""
    coupon = get_coupon(session, actor, coupon_id)
    require_object(data)
    fixed = [field for field in ("code", "kind", "value") if field in data]
    if fixed:
        raise ValidationFailed(
            "A coupon's code, kind and value cannot change: create a new coupon instead.",
            fields={field: ["This field cannot be changed."] for field in fixed},
        )
    values: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    cleaners = {"expires_at": clean_expiry, "usage_limit": clean_usage_limit, "min_subtotal": clean_min_subtotal}
    for field, clean in cleaners.items():
        if field in data:
            try:
                values[field] = clean(data[field])
            except ValidationFailed as exc:
                errors.update(exc.fields)
    take_flag(data, "active", values, errors)
    if errors:
        raise refused(errors, "coupon")
    before = audit.snapshot(coupon, AUDITED_FIELDS)
    for field, value in values.items():
        setattr(coupon, field, value)
    session.add(coupon)
    session.flush()
    changes = audit.diff(before, audit.snapshot(coupon, AUDITED_FIELDS))
    if changes:
        action = "coupon.update"
        if set(changes) == {"active"}:
            action = "coupon.activate" if coupon.active else "coupon.deactivate"
        audit.record(session, actor, action, "coupon", coupon.id, changes=changes, label=coupon.code)
    return coupon


def set_active(session: Session, actor: User | None, coupon_id: str, active: bool) -> Coupon:
    """Admins: switch a coupon off (no new order may use it) or on again."""
    return update_coupon(session, actor, coupon_id, {"active": active})


# --- the list ----------------------------------------------------------------------------------


def status_of(coupon: Coupon, now: datetime | None = None) -> str:
    """active, inactive (switched off), expired or used_up."""
    now = now or pricing.now_utc()
    if not coupon.active:
        return "inactive"
    if coupon.expires_at is not None and pricing.utc(coupon.expires_at) <= now:
        return "expired"
    if coupon.usage_limit is not None and coupon.used_count >= coupon.usage_limit:
        return "used_up"
    return "active"


def _status_clause(status: str, now: datetime):
    unexpired = or_(Coupon.expires_at.is_(None), Coupon.expires_at > now)
    available = or_(Coupon.usage_limit.is_(None), Coupon.used_count < Coupon.usage_limit)
    if status == "active":
        return Coupon.active.is_(True) & unexpired & available
    if status == "inactive":
        return Coupon.active.is_(False)
    if status == "expired":
        return Coupon.active.is_(True) & ~unexpired
    if status == "used_up":
        return Coupon.active.is_(True) & unexpired & ~available
    message = f"Status must be one of: {', '.join(STATUSES)}."
    raise _fail("status", message)


def list_coupons(
    session: Session, actor: User | None, *, search: str = "", status: str = "", offset: int = 0, limit: int = 50
) -> tuple[list[Coupon], int]:
    """Coupons newest first (admins only), optionally by code (containing ``search``) and status."""
    require_admin(actor)
    conditions: list[Any] = []
    term = (search or "").strip().upper()[:64]
    if term:
        conditions.append(contains(func.upper(Coupon.code), term))
    if status and status.strip():
        conditions.append(_status_clause(status.strip().lower(), pricing.now_utc()))
    count = session.exec(select(func.count()).select_from(Coupon).where(*conditions)).one()
    rows = session.exec(
        select(Coupon).where(*conditions).order_by(Coupon.created_at.desc(), Coupon.id.desc())
        .offset(max(0, offset)).limit(max(1, limit))
    ).all()
    return list(rows), int(count)


# --- checkout ----------------------------------------------------------------------------------


def find_coupon(session: Session, code: str, at: datetime | None = None) -> Coupon:
    """The usable coupon with this code (any case), else 400 "Invalid coupon code"
    (code ``coupon_invalid``), or 400 ``coupon_used_up`` once its uses have run out."""
    code = (code or "").strip().upper() if isinstance(code, str) else ""
    code = "" if "\x00" in code else code  # no code holds one, and PostgreSQL refuses it in a query
    coupon = session.exec(select(Coupon).where(func.upper(Coupon.code) == code)).first() if code else None
    status = status_of(coupon, at) if coupon is not None else "missing"
    if status == "used_up":
        raise ValidationFailed(USED_UP, fields={"coupon_code": [USED_UP]}, code=ErrorCode.COUPON_USED_UP)
    if status != "active":
        raise ValidationFailed(INVALID_COUPON, code=ErrorCode.COUPON_INVALID)
    return coupon


def given_coupon(session: Session, code: str | None, at: datetime | None = None) -> Coupon | None:
    """:func:`find_coupon` for a code the shopper may have left blank (None then)."""
    return find_coupon(session, code, at) if isinstance(code, str) and code.strip() else None


def minimum_problem(coupon: Coupon, subtotal: Decimal) -> str | None:
    """Why the coupon does not apply to this subtotal, or None."""
    if coupon.min_subtotal is not None and subtotal < coupon.min_subtotal:
        amount = money_text(coupon.min_subtotal)
        return f"This coupon needs a basket of at least {amount}."
    return None


def check_minimum(coupon: Coupon, subtotal: Decimal) -> None:
    problem = minimum_problem(coupon, subtotal)
    if problem:
        raise ValidationFailed(problem, fields={"coupon_code": [problem]}, code=ErrorCode.COUPON_MINIMUM)


@dataclass(frozen=True)
class Redemption:
    coupon_id: str
    used_count: int


def redeem(session: Session, coupon: Coupon, at: datetime | None = None) -> Redemption:
    """Count one use of ``coupon`` in the caller's (the order's) transaction.

    One guarded UPDATE: it succeeds only while the coupon is active, unexpired and under its
    limit, so concurrent checkouts can never use it more often than the limit. 409
    ``coupon_used_up`` (or ``coupon_invalid`` when it was switched off or expired meanwhile)."""
    now = pricing.utc(at) if at is not None else pricing.now_utc()
    result = session.execute(
        update(Coupon)
        .where(
            Coupon.id == coupon.id,
            Coupon.active.is_(True),
            or_(Coupon.expires_at.is_(None), Coupon.expires_at > now),
            or_(Coupon.usage_limit.is_(None), Coupon.used_count < Coupon.usage_limit),
        )
        .values(used_count=Coupon.used_count + 1)
        .returning(Coupon.used_count)
    ).first()
    if result is None:
        session.refresh(coupon)
        if status_of(coupon, now) == "used_up":
            raise Conflict(USED_UP, code=ErrorCode.COUPON_USED_UP)
        raise Conflict(INVALID_COUPON, code=ErrorCode.COUPON_INVALID)
    return Redemption(coupon.id, int(result[0]))


def release(session: Session, code: str | None) -> None:
    """Give back the use an order took (it was cancelled)."""
    if not code:
        return
    session.execute(
        update(Coupon)
        .where(func.upper(Coupon.code) == code.upper(), Coupon.used_count > 0)
        .values(used_count=Coupon.used_count - 1)
    )
