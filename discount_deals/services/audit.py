"""The audit trail: who changed what in the back office, when, and what it was before.

Services call :func:`record` (or :func:`record_change`) in the same session, and so the same
transaction, as the change they record: when the change rolls back its event goes with it, and
an event cannot be stored without its change. Events are only ever added; nothing here (or in
the API) changes or deletes one, but for :func:`forget_person`: an account its owner closes
(services.users.privacy) is no longer named by its email in the events it acted in or is about.

``changes`` maps each field that changed to ``[before, after]`` as JSON values (money as
2-decimal strings, times as ISO 8601): a creation has ``None`` before, a deletion ``None``
after. Secrets are never stored, only that they changed.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select, update

from ..models import AuditEvent, User
from . import ValidationFailed
from .moments import after_day, as_utc, day_start, utc_text
from .money import api_amount
from .permissions import require_admin

SHOP = "Discount Deals"  # the shop's own timers
COMMAND_LINE = "command line"
HIDDEN = "(hidden)"
SECRET_FIELDS = frozenset({"password", "password_hash", "token_version"})

# What the Activity screen offers as filters (events may carry others: the API accepts any text).
ACTIONS: dict[str, str] = {
    "product.create": "Product created",
    "product.update": "Product updated",
    "product.delete": "Product deleted",
    "product.restock": "Product restocked",
    "product.bulk_upload": "Products bulk-uploaded",
    "category.create": "Category created",
    "category.update": "Category updated",
    "category.delete": "Category deleted",
    "category.bulk_upload": "Categories bulk-uploaded",
    "user.role": "User role changed",
    "user.update": "User details changed",
    "user.deactivate": "User deactivated",
    "user.activate": "User reactivated",
    "order.status": "Order status changed",
    "order.refund": "Order refunded",
    "order.resolve": "Order flag resolved",
    "coupon.create": "Coupon created",
    "coupon.update": "Coupon changed",
    "coupon.deactivate": "Coupon deactivated",
    "coupon.activate": "Coupon reactivated",
    "pickup_store.create": "Pickup store added",
    "pickup_store.update": "Pickup store changed",
    "pickup_store.delete": "Pickup store deleted",
    "message.resend": "Message sent again",
    "review.hide": "Review hidden",
    "review.show": "Review shown again",
    "return.request": "Return requested",
    "return.approve": "Return approved",
    "return.reject": "Return rejected",
    "return.receive": "Returned items received",
    "return.refund": "Return refunded",
    "return.refund_sent": "Return refund sent to the provider",
    "return.refund_in_cash": "Return refunded in cash instead",
    "return.withdraw": "Return withdrawn by the customer",
}
TARGET_TYPES: dict[str, str] = {
    "product": "Product",
    "category": "Category",
    "user": "User",
    "order": "Order",
    "coupon": "Coupon",
    "pickup_store": "Pickup store",
    "message": "Message",
    "review": "Review",
    "return": "Return",
}
_TEXT_FILTER = re.compile(r"^[\w.@+-]{1,254}$")


# --- values ------------------------------------------------------------------------------------


def json_value(value: Any) -> Any:
    """A column value as JSON: money "12.50", times ISO 8601, enums by value, lists and dicts
    element by element."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, Decimal):
        return api_amount(value) if value.as_tuple().exponent in (-1, -2) else str(value)
    if isinstance(value, datetime):
        return utc_text(value)  # as every answer writes a moment (events kept before say +00:00)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return json_value(value.value)
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_value(v) for v in value]
    return str(value)


def snapshot(obj: Any, fields: Iterable[str]) -> dict[str, Any]:
    """The named fields of a row as JSON values (secrets as ``(hidden)``)."""
    return {field: HIDDEN if field in SECRET_FIELDS else json_value(getattr(obj, field, None)) for field in fields}


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, list[Any]]:
    """``{field: [before, after]}`` for the fields whose JSON value differs (a field missing on
    one side counts as None there)."""
    changes: dict[str, list[Any]] = {}
    for field in dict.fromkeys([*before, *after]):
        old, new = json_value(before.get(field)), json_value(after.get(field))
        if old != new:
            changes[field] = [old, new]
    return changes


def created(values: Mapping[str, Any]) -> dict[str, list[Any]]:
    return diff({}, values)


def deleted(values: Mapping[str, Any]) -> dict[str, list[Any]]:
    return diff(values, {})


# --- recording ---------------------------------------------------------------------------------


def actor_label(actor: User | None, fallback: str = SHOP) -> str:
    return (actor.email if actor is not None else fallback)[:254]


def record(
    session: Session,
    actor: User | None,
    action: str,
    target_type: str,
    target_id: str | None,
    *,
    changes: Mapping[str, Any] | None = None,
    label: str = "",
    actor_fallback: str = SHOP,
) -> AuditEvent:
    """Add one event to the caller's transaction (flushed, so a refusal surfaces here)."""
    event = AuditEvent(
        actor_id=actor.id if actor is not None else None,
        actor_label=actor_label(actor, actor_fallback),
        action=action[:64],
        target_type=target_type[:32],
        target_id=target_id[:64] if target_id else None,
        target_label=(label or "")[:254],
        changes=json_value(dict(changes or {})),
    )
    session.add(event)
    session.flush()
    return event


def update_recorded(
    session: Session,
    actor: User | None,
    action: str,
    row: Any,
    values: Mapping[str, Any],
    fields: Iterable[str],
    *,
    save: Callable[[Session, Any], Any],
    label: Callable[[Any], str],
) -> Any:
    """Set ``values`` on ``row``, write it with ``save(session, row)`` and record the ``fields``
    that changed as ``action`` on the row (its type is the action's first word)."""
    fields = tuple(fields)
    before = snapshot(row, fields)
    for field, value in values.items():
        setattr(row, field, value)
    row = save(session, row)
    record_change(session, actor, action, action.split(".")[0], row.id, before, snapshot(row, fields), label=label(row))
    return row


def record_change(
    session: Session,
    actor: User | None,
    action: str,
    target_type: str,
    target_id: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    label: str = "",
) -> AuditEvent | None:
    """Record an update: only the fields that changed; nothing when none did."""
    changes = diff(before, after)
    if not changes:
        return None
    return record(session, actor, action, target_type, target_id, changes=changes, label=label)


# What an event about a closed account keeps of its changes: the rest named the person.
KEPT_ABOUT_A_CLOSED_ACCOUNT = frozenset({"role", "is_active"})


def forget_person(session: Session, user_id: str, label: str) -> None:
    """Replace what names the user ``user_id`` in the trail with ``label``: the actor of the
    events they acted in, the target of the events about their account, and that account's
    values in those events' changes (hidden; which fields changed, the role and the activation
    stay). In the caller's transaction: the closing that asks it."""
    session.execute(update(AuditEvent).where(AuditEvent.actor_id == user_id).values(actor_label=label[:254]))
    about = select(AuditEvent).where(AuditEvent.target_type == "user", AuditEvent.target_id == user_id)
    for event in session.exec(about).all():
        event.target_label = label[:254]
        event.changes = {field: values if field in KEPT_ABOUT_A_CLOSED_ACCOUNT or not isinstance(values, list)
                         else [None if value is None else HIDDEN for value in values]
                         for field, values in (event.changes or {}).items()}
        session.add(event)


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditFilters:
    """``actor``: a user id or an email (any case); ``date_from``/``date_to``: whole days (UTC),
    both included; ``since``/``until``: exact moments (since included, until excluded)."""

    actor: str = ""
    action: str = ""
    target_type: str = ""
    target_id: str = ""
    date_from: date | None = None
    date_to: date | None = None
    since: datetime | None = None
    until: datetime | None = None


def _text_filter(name: str, value: str) -> str:
    value = (value or "").strip()
    if value and not _TEXT_FILTER.match(value):
        message = "Use letters, digits and . _ - @ + only."
        raise ValidationFailed(f"Invalid {name}. {message}", fields={name: [message]})
    return value


def _conditions(filters: AuditFilters) -> list[Any]:
    conditions: list[Any] = []
    actor = _text_filter("actor", filters.actor)
    if actor:
        if "@" in actor:
            conditions.append(func.lower(AuditEvent.actor_label) == actor.lower())
        else:
            conditions.append(AuditEvent.actor_id == actor)
    action = _text_filter("action", filters.action)
    if action:
        conditions.append(AuditEvent.action == action.lower())
    target_type = _text_filter("target_type", filters.target_type)
    if target_type:
        conditions.append(AuditEvent.target_type == target_type.lower())
    target_id = _text_filter("target_id", filters.target_id)
    if target_id:
        conditions.append(AuditEvent.target_id == target_id)
    if filters.date_from:
        conditions.append(AuditEvent.created_at >= day_start(filters.date_from))
    if filters.date_to:
        conditions.append(AuditEvent.created_at < after_day(filters.date_to))
    if filters.since:
        conditions.append(AuditEvent.created_at >= as_utc(filters.since))
    if filters.until:
        conditions.append(AuditEvent.created_at < as_utc(filters.until))
    if filters.date_from and filters.date_to and filters.date_to < filters.date_from:
        message = "The end date must not be before the start date."
        raise ValidationFailed(message, fields={"date_to": [message]})
    return conditions


def list_events(
    session: Session, actor: User | None, filters: AuditFilters = AuditFilters(), *, offset: int = 0, limit: int = 50
) -> tuple[list[AuditEvent], int]:
    """Events newest first (admins only), filtered in SQL, with how many match in all."""
    require_admin(actor)
    conditions = _conditions(filters)
    count = session.exec(select(func.count()).select_from(AuditEvent).where(*conditions)).one()
    rows = session.exec(
        select(AuditEvent)
        .where(*conditions)
        .order_by(AuditEvent.created_at.desc(), AuditEvent.id.desc())
        .offset(max(0, offset))
        .limit(max(1, limit))
    ).all()
    return list(rows), int(count)


def get_event(session: Session, actor: User | None, event_id: str) -> AuditEvent:
    from .rows import found

    require_admin(actor)
    return found(session, AuditEvent, event_id, "Event not found.")


def action_label(action: str) -> str:
    return ACTIONS.get(action, action.replace("_", " ").replace(".", " ").capitalize())
