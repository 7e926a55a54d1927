"""Ghanaian phone numbers: parsed and normalised once, for checkout, mobile money, riders and SMS.

Parsing is Google's libphonenumber (the ``phonenumbers`` package): it knows Ghana's numbering
plan (which ranges are mobile, how long a number is) and is updated as the plan changes, so we
keep no pattern of our own. Numbers are stored and sent as E.164 (``+233241234567``) and shown
the Ghanaian way (``024 123 4567``).

The mobile-money network of a number is only a guess from its prefix: numbers are portable
between networks, so the shopper can change it.
"""

from __future__ import annotations

from typing import Any

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberFormat, PhoneNumberType

from . import ValidationFailed
from .error_codes import ErrorCode

REGION = "GH"
COUNTRY_CODE = "+233"
PHONE_EXAMPLE = "024 123 4567"
PHONE_INVALID = f"Enter a Ghanaian mobile money number, such as {PHONE_EXAMPLE}."
CONTACT_PHONE_INVALID = f"Enter a Ghanaian phone number the rider can call, such as {PHONE_EXAMPLE}."
# Mobile-money networks and the prefixes (after the leading 0) each was first given.
NETWORKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mtn": ("MTN MoMo", ("24", "25", "53", "54", "55", "59")),
    "telecel": ("Telecel Cash", ("20", "50")),
    "airteltigo": ("AirtelTigo Money", ("26", "27", "56", "57")),
}
# Networks whose mobile money asks the shopper to type a code back (Telecel Cash: a voucher
# dialled on the phone) instead of approving a prompt.
CODE_NETWORKS = frozenset({"telecel"})
MOBILE_PREFIXES = frozenset(prefix for _name, prefixes in NETWORKS.values() for prefix in prefixes)
_MOBILE_TYPES = (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE)


def _parse_ghanaian(raw: Any) -> phonenumbers.PhoneNumber | None:
    """A valid Ghanaian number (mobile or fixed line) from what a person typed, else None."""
    if not isinstance(raw, str) or not raw.strip() or len(raw) > 40:
        return None
    text = raw.strip()
    digits = "".join(ch for ch in text if ch.isdigit())
    if text.startswith(("+", "233")) and digits.startswith("2330"):
        return None  # the trunk 0 kept after the country code: not a number anyone can dial
    if text.startswith("233"):
        text = "+" + text  # written without the plus
    try:
        number = phonenumbers.parse(text, REGION)
    except NumberParseException:
        return None
    if number.country_code != 233 or not phonenumbers.is_valid_number(number):
        return None
    return number


def parse_phone(raw: Any) -> str | None:
    """Any Ghanaian number a rider can call (mobile or fixed line: ``024 123 4567``,
    ``030 290 0000``, ``+233 24 123 4567``, ``233241234567``) as E.164; None when it is not one."""
    number = _parse_ghanaian(raw)
    return phonenumbers.format_number(number, PhoneNumberFormat.E164) if number is not None else None


def normalise_phone(raw: Any, field: str = "contact_phone") -> str:
    """:func:`parse_phone`, refusing anything else with 400 ``contact_phone_invalid`` on ``field``."""
    phone = parse_phone(raw)
    if phone is None:
        raise ValidationFailed(CONTACT_PHONE_INVALID, fields={field: [CONTACT_PHONE_INVALID]},
                               code=ErrorCode.CONTACT_PHONE_INVALID)
    return phone


def parse_mobile(raw: Any) -> str | None:
    """A Ghanaian mobile number as E.164 from ``024 123 4567``, ``+233 24 123 4567``,
    ``233241234567`` or ``0241234567``; None when it is not one."""
    number = _parse_ghanaian(raw)
    if number is None or phonenumbers.number_type(number) not in _MOBILE_TYPES:
        return None
    e164 = phonenumbers.format_number(number, PhoneNumberFormat.E164)
    return e164 if e164[4:6] in MOBILE_PREFIXES else None


def normalise_mobile(raw: Any, field: str = "phone") -> str:
    """:func:`parse_mobile`, refusing anything else with 400 ``phone_invalid`` on ``field``."""
    phone = parse_mobile(raw)
    if phone is None:
        raise ValidationFailed(PHONE_INVALID, fields={field: [PHONE_INVALID]}, code=ErrorCode.PHONE_INVALID)
    return phone


def guess_network(phone: str | None) -> str | None:
    """The network a normalised number was first issued by (a guess: numbers can be ported)."""
    if not phone or not phone.startswith(COUNTRY_CODE):
        return None
    prefix = phone[4:6]
    return next((code for code, (_name, prefixes) in NETWORKS.items() if prefix in prefixes), None)


def network_name(code: str | None, default: str = "") -> str:
    """``mtn`` → ``MTN MoMo``."""
    return NETWORKS[code][0] if code in NETWORKS else default


def display_phone(phone: str | None) -> str:
    """``+233241234567`` → ``024 123 4567`` (anything else as it is)."""
    if not phone or not phone.startswith(COUNTRY_CODE) or len(phone) != 13:
        return phone or ""
    national = "0" + phone[4:]
    return f"{national[:3]} {national[3:6]} {national[6:]}"


def tel_href(phone: str | None) -> str:
    """A tap-to-call link for a stored E.164 number (``tel:+233241234567``), "" for none."""
    return f"tel:{phone}" if phone and phone.startswith("+") and phone[1:].isdigit() else ""
