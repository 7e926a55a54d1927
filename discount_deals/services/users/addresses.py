"""Addresses: a user's saved addresses, one of them the default an order ships to.

The checkout asks for a Ghanaian address (:func:`add_ghana_address`): a region, a GhanaPost GPS
digital address, a landmark, a city or town. They are stored in the address's own fields
(region → ``state``, digital address → ``postal_code``, landmark → ``line2``, country Ghana), so
the API and the original client read the same addresses as before. Through the API too, a
Ghanaian address's ``state`` is one of the sixteen regions or blank (issue 32).
"""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import Session, col, func, select

from ...models import Address, User
from .. import ValidationFailed
from ..error_codes import ErrorCode
from ..permissions import require_user
from ..places import place_name  # noqa: F401  (re-exported by services.users)
from ..rows import owned, values_of
from .fields import ADDRESS_MAX_LENGTHS, ADDRESS_REQUIRED, MAX_ADDRESSES, Errors, clean_address, invalid, require_mapping

GHANA = "Ghana"
# Ghana's sixteen regions (since 2019), in alphabetical order.
GHANA_REGIONS = (
    "Ahafo", "Ashanti", "Bono", "Bono East", "Central", "Eastern", "Greater Accra", "North East", "Northern",
    "Oti", "Savannah", "Upper East", "Upper West", "Volta", "Western", "Western North",
)
GPS_EXAMPLE = "GA-123-4567"
GPS_INVALID = (
    f"Enter the GhanaPost GPS digital address as two letters and two groups of digits, such as {GPS_EXAMPLE} "
    "or AK-0123-4567 (or leave it blank)."
)
REGION_REQUIRED = "Choose the region."
REGION_INVALID = "Choose one of Ghana's 16 regions, such as Greater Accra."
_REGIONS_BY_KEY = {region.lower(): region for region in GHANA_REGIONS}
# The checkout form's own words for its required fields (the profile's form keeps the spec's).
GHANA_REQUIRED = {
    "line1": "Enter the area and street, with the house number if there is one.",
    "city": "Enter the city or town.",
}
# Two letters (region and district), then 3 or 4 digits and 4 digits; hyphens or spaces optional.
_GPS = re.compile(r"([A-Z]{2})[\s-]*(\d{3,4})[\s-]*(\d{4})")


def _region_of(state: str) -> str | None:
    """The region ``state`` names ("greater accra", "Bono East Region"), "" for none, None when unknown."""
    key = " ".join(state.split()).lower()
    key = key.removesuffix(" region") if key not in _REGIONS_BY_KEY else key
    return "" if not key else _REGIONS_BY_KEY.get(key)


def _check_region(clean: dict[str, Any], address: Address | None, errors: Errors) -> None:
    """A Ghanaian address's ``state`` is one of the sixteen regions (spelled as the checkout spells
    it) or blank; elsewhere it stays free text. Only checked when the state or country is sent."""
    if "state" not in clean and "country" not in clean:
        return
    country = clean.get("country", address.country if address else "")
    state = clean.get("state", address.state if address else "") or ""
    if country.strip().lower() != GHANA.lower():
        return
    region = _region_of(state)
    if region is None:
        errors["state"] = [REGION_INVALID]
    elif "state" in clean or region != state:
        clean["state"] = region


def addresses_of(session: Session, user: User) -> list[Address]:
    """The user's addresses: the default first, then oldest first."""
    return list(
        session.exec(
            select(Address)
            .where(Address.user_id == user.id)
            .order_by(col(Address.is_default).desc(), col(Address.created_at), col(Address.id))
        )
    )


def address_dict(address: Address) -> dict[str, Any]:
    return values_of(address, ("id", *ADDRESS_MAX_LENGTHS, "is_default"))


def _clear_default(session: Session, user_id: str) -> None:
    """Unset the user's default address, flushed before another becomes the default (unique index)."""
    for address in session.exec(select(Address).where(Address.user_id == user_id, col(Address.is_default))):
        address.is_default = False
        session.add(address)
    session.flush()


def list_addresses(session: Session, actor: User | None) -> list[Address]:
    """The actor's addresses, the default first."""
    return addresses_of(session, require_user(actor))


def _hold_addresses(session: Session, user_id: str) -> None:
    """Take the user's row lock until the transaction ends (PostgreSQL; SQLite has one writer at
    a time): one change of a user's addresses at a time, so the count limit and the one default
    are decided on what the others wrote, never beside them."""
    session.exec(select(User.id).where(User.id == user_id).with_for_update()).first()


def _held_address(session: Session, actor: User | None, address_id: str) -> Address:
    """One of the actor's own addresses, read after :func:`_hold_addresses`."""
    actor = require_user(actor)
    _hold_addresses(session, actor.id)
    return get_address(session, actor, address_id)


def get_address(session: Session, actor: User | None, address_id: str) -> Address:
    """One of the actor's own addresses; anyone else's answers not found."""
    return owned(session, Address, address_id, require_user(actor), "Address not found.")


def add_address(session: Session, actor: User | None, data: dict[str, Any]) -> Address:
    """Save an address for the actor: line1, city and country required; line2, state, postal_code optional.

    The first address, or one sent with ``is_default: true``, becomes the only default.
    """
    actor = require_user(actor)
    errors: Errors = {}
    clean = clean_address(require_mapping(data), tuple(ADDRESS_MAX_LENGTHS), errors)
    if not errors:
        _check_region(clean, None, errors)
    if errors:
        raise invalid(errors, code=ErrorCode.REGION_INVALID if "state" in errors else "")
    _hold_addresses(session, actor.id)
    count = session.exec(select(func.count()).select_from(Address).where(Address.user_id == actor.id)).one()
    if count >= MAX_ADDRESSES:
        raise ValidationFailed(f"You can save at most {MAX_ADDRESSES} addresses.")
    is_default = clean.pop("is_default", False) or count == 0
    if is_default:
        _clear_default(session, actor.id)
    address = Address(user_id=actor.id, is_default=is_default, **clean)
    session.add(address)
    session.flush()
    return address


def normalise_gps_address(raw: Any) -> str:
    """A GhanaPost GPS digital address as ``GA-123-4567`` / ``AK-0123-4567`` (upper case, hyphens),
    "" for a blank one; 400 ``gps_invalid`` on ``postal_code`` for anything else."""
    text = raw.strip().upper() if isinstance(raw, str) else None
    if text == "":
        return ""
    match = _GPS.fullmatch(text) if text is not None and len(text) <= 20 else None
    if match is None:
        raise ValidationFailed(GPS_INVALID, fields={"postal_code": [GPS_INVALID]}, code=ErrorCode.GPS_INVALID)
    return "-".join(match.groups())


def ghana_address_fields(data: Any) -> dict[str, Any]:
    """The checkout's Ghanaian address as address fields: ``region`` (one of the sixteen) → state,
    ``gps`` → postal_code (normalised), ``landmark`` → line2, ``city``, ``line1``; country Ghana.
    Every problem is reported at once (400 naming the address field of each)."""
    data = require_mapping(data)
    region = data.get("region")
    fields = {
        "line1": data.get("line1"), "line2": data.get("landmark") or "", "city": data.get("city"),
        "state": region if isinstance(region, str) else "", "country": GHANA,
        "is_default": data.get("is_default", False),
    }
    errors: Errors = {}
    clean = clean_address(fields, ("line1", "line2", "city", "state", "country"), errors)
    for name, message in GHANA_REQUIRED.items():
        if errors.get(name) == [ADDRESS_REQUIRED[name]]:
            errors[name] = [message]
    if region not in GHANA_REGIONS:
        errors["state"] = [REGION_REQUIRED]
    try:
        clean["postal_code"] = normalise_gps_address(data.get("gps") or "")
    except ValidationFailed as exc:
        errors.update(exc.fields)
    if errors:
        raise invalid(errors)
    return clean


def add_ghana_address(session: Session, actor: User | None, data: Any) -> Address:
    """Save the checkout's Ghanaian address (:func:`ghana_address_fields`) as one of the actor's addresses."""
    return add_address(session, actor, ghana_address_fields(data))


def update_address(session: Session, actor: User | None, address_id: str, changes: dict[str, Any]) -> Address:
    """Change one of the actor's addresses; ``is_default: true`` makes it the only default.

    The default cannot be unset directly (set another address as default instead).
    """
    address = _held_address(session, actor, address_id)
    errors: Errors = {}
    changes = require_mapping(changes)
    clean = clean_address(changes, tuple(n for n in ADDRESS_MAX_LENGTHS if n in changes), errors)
    if clean.get("is_default") is False and address.is_default:
        errors["is_default"] = ["A default address is required: set another address as default instead."]
    if not errors:
        _check_region(clean, address, errors)
    if errors:
        raise invalid(errors, code=ErrorCode.REGION_INVALID if "state" in errors else "")
    if clean.pop("is_default", False) and not address.is_default:
        _clear_default(session, address.user_id)
        address.is_default = True
    for name, value in clean.items():
        setattr(address, name, value)
    session.add(address)
    session.flush()
    return address


def delete_address(session: Session, actor: User | None, address_id: str) -> None:
    """Delete one of the actor's addresses; if it was the default, the oldest remaining one takes over."""
    address = _held_address(session, actor, address_id)
    was_default, user_id = address.is_default, address.user_id
    session.delete(address)
    session.flush()
    if was_default:
        successor = session.exec(
            select(Address).where(Address.user_id == user_id).order_by(col(Address.created_at), col(Address.id))
        ).first()
        if successor is not None:
            successor.is_default = True
            session.add(successor)
            session.flush()
