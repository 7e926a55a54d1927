"""Partner stores where shoppers collect their orders: listed to everyone, edited by admins.

A store that orders point to is never deleted, only deactivated (orders keep a snapshot of it
anyway); a store nobody ordered from may be deleted.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from ..models import Attention, Order, OrderStatus, PickupStore, User
from . import Conflict, NotFound, ValidationFailed, audit
from .catalog.fields import CONTROL_CHARACTERS, has_control_characters
from .error_codes import ErrorCode
from .form_rules import refused, require_object, take_flag
from .permissions import require_admin
from .rows import by_id, values_of

STORE_FIELDS: dict[str, tuple[int, bool]] = {
    # name: (max length, required)
    "name": (120, True),
    "retailer": (80, False),
    "address": (255, True),
    "city": (120, True),
    "phone": (32, False),
    "opening_hours": (120, False),
}
# What the audit trail records of a store.
AUDITED_FIELDS = (*STORE_FIELDS, "is_active")
REQUIRED_MESSAGE = "This field is required."
# An order still to be collected (its store's closing or move concerns it).
OPEN_PICKUP_STATUSES = (OrderStatus.PENDING.value, OrderStatus.PROCESSING.value, OrderStatus.READY_FOR_PICKUP.value)


def list_stores(session: Session, *, include_inactive: bool = False) -> list[PickupStore]:
    """Stores by city then name; only active ones unless ``include_inactive`` (the back office)."""
    query = select(PickupStore).order_by(PickupStore.city, PickupStore.name)
    if not include_inactive:
        query = query.where(PickupStore.is_active == True)
    return list(session.exec(query).all())


def get_store(session: Session, store_id: Any, *, active_only: bool = True) -> PickupStore:
    """A store by id (404 when unknown, or inactive when ``active_only``)."""
    store = by_id(session, PickupStore, store_id)
    if store is None or (active_only and not store.is_active):
        raise NotFound("Pickup store not found.", code=ErrorCode.UNKNOWN_STORE)
    return store


def snapshot(store: PickupStore) -> dict[str, str]:
    """What an order keeps of its pickup store."""
    return values_of(store, ("id", *STORE_FIELDS))


def _clean(data: Any, *, partial: bool) -> dict[str, Any]:
    require_object(data)
    clean: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name, (limit, required) in STORE_FIELDS.items():
        if name not in data:
            if required and not partial:
                errors[name] = [REQUIRED_MESSAGE]
            continue
        value = data[name]
        if value is None:
            value = ""
        if not isinstance(value, str):
            errors[name] = ["Must be text."]
            continue
        if has_control_characters(value.replace("\r", "")):
            errors[name] = [CONTROL_CHARACTERS]
            continue
        value = " ".join(value.split())
        if required and not value:
            errors[name] = [REQUIRED_MESSAGE]
        elif len(value) > limit:
            errors[name] = [f"At most {limit} characters."]
        else:
            clean[name] = value
    take_flag(data, "is_active", clean, errors)
    if errors:
        raise refused(errors)
    return clean


def _check_unique_name(session: Session, name: str, store_id: str | None = None) -> None:
    # Compared here, not by SQL lower(): SQLite's lowers ASCII only ("MELCOM ÉLAN" passed beside
    # "Melcom Élan"). The shop has tens of stores.
    query = select(PickupStore.name)
    if store_id is not None:
        query = query.where(PickupStore.id != store_id)
    if any(other.casefold() == name.casefold() for other in session.exec(query).all()):
        message = f"A pickup store named {name} already exists."
        raise ValidationFailed(message, fields={"name": [message]})


def create_store(session: Session, actor: User | None, data: Any) -> PickupStore:
    """Add a store (admins): name, address and city required; retailer, phone, hours optional."""
    require_admin(actor)
    clean = _clean(data, partial=False)
    _check_unique_name(session, clean["name"])
    store = PickupStore(**clean)
    session.add(store)
    session.flush()
    audit.record(session, actor, "pickup_store.create", "pickup_store", store.id,
                 changes=audit.created(audit.snapshot(store, AUDITED_FIELDS)), label=store.name)
    return store


def update_store(session: Session, actor: User | None, store_id: str, data: Any) -> PickupStore:
    """Change some of a store's fields (admins); ``is_active: false`` hides it from checkout."""
    require_admin(actor)
    store = get_store(session, store_id, active_only=False)
    clean = _clean(data, partial=True)
    if "name" in clean:
        _check_unique_name(session, clean["name"], store.id)
    before = audit.snapshot(store, AUDITED_FIELDS)
    for name, value in clean.items():
        setattr(store, name, value)
    session.add(store)
    session.flush()
    audit.record_change(session, actor, "pickup_store.update", "pickup_store", store.id, before,
                        audit.snapshot(store, AUDITED_FIELDS), label=store.name)
    _flag_open_orders(session, actor, store, before)
    return store


def open_orders(session: Session, store_id: str) -> list[Order]:
    """The orders still to be collected at a store (not delivered, not cancelled)."""
    return list(session.exec(select(Order).where(Order.pickup_store_id == store_id,
                                                 Order.status.in_(OPEN_PICKUP_STATUSES))
                             .order_by(Order.created_at, Order.id)).all())


def _flag_open_orders(session: Session, actor: User, store: PickupStore, before: dict[str, Any]) -> None:
    """A store closed (hidden from checkout) or moved with orders still to collect there: each
    is flagged for an admin to agree another store or delivery with its customer (the order
    keeps the store as it was when placed, and nobody was told)."""
    # Imported here: the orders package places orders through services.checkout, which reads the
    # stores from this module (importing services.checkout first failed on the circle).
    from .orders import status as lifecycle

    if before.get("is_active") and not store.is_active:
        why = f"{store.name} was closed (hidden from checkout) before this order was collected"
    elif store.is_active and any(before.get(name) != getattr(store, name) for name in ("address", "city")):
        why = f"{store.name} moved to {store.address}, {store.city} before this order was collected"
    else:
        return
    for order in open_orders(session, store.id):
        lifecycle.flag(session, order, Attention.PICKUP_STORE_CHANGED.value,
                       f"{why}: agree another store or delivery with the customer.", actor=actor)


def delete_store(session: Session, actor: User | None, store_id: str) -> None:
    """Delete a store nobody has ordered from (admins); others can only be deactivated (409)."""
    require_admin(actor)
    store = get_store(session, store_id, active_only=False)
    used = session.exec(select(Order.id).where(Order.pickup_store_id == store.id).limit(1)).first()
    if used is not None:
        raise Conflict("Orders were collected from this store: deactivate it instead.", code=ErrorCode.STORE_IN_USE)
    audit.record(session, actor, "pickup_store.delete", "pickup_store", store.id,
                 changes=audit.deleted(audit.snapshot(store, AUDITED_FIELDS)), label=store.name)
    session.delete(store)
    session.flush()
