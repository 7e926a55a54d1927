"""Phone numbers: parsed and normalised once, for accounts, checkout, mobile money, riders and SMS.

Parsing is Google's libphonenumber (the ``phonenumbers`` package): it knows Ghana's numbering
plan (which ranges are mobile, how long a number is) and is updated as the plan changes, so we
keep no pattern of our own. Numbers are stored and sent as E.164 (``+233241234567``) and shown
the Ghanaian way (``024 123 4567``).

The account's phone number is parsed once, when it is written (:func:`parse_account_phone`:
registration, the profile, an admin's edit, the original client's calls), and stored E.164; its
readers (texts, order channels, checkout, the password reset) take it as stored through
:func:`ghanaian_number` and :func:`mobile_number`, which parse nothing. The API and the profile
form show it as :func:`account_phone_text` writes it (``0241234567``).

The mobile-money network of a number is only a guess from its prefix: numbers are portable
between networks, so the shopper can change it.
"""

from __future__ import annotations

import re
from typing import Any

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberFormat, PhoneNumberType

from . import ValidationFailed
from .error_codes import ErrorCode

REGION = "GH"
COUNTRY_CODE = "+233"
# What the spec's client and the original back end take as a phone: 7 to 15 digits, spaces,
# brackets, dots and dashes (CLIENT-CONTRACT: ^\+?\d{10,15}$ on the original).
PHONE_SHAPED = re.compile(r"^\+?[\d\s().-]+$")
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


def parse_account_phone(raw: Any) -> str | None:
    """An account's phone number as E.164, parsed once when it is written: a Ghanaian number in any
    usual spelling (``024 123 4567``, ``233241234567``), or another country's with its code
    (``+44 7911 123456``); None when it is not a valid number."""
    number = _parse_ghanaian(raw)
    if number is None and isinstance(raw, str) and 0 < len(raw.strip()) <= 40:
        try:
            number = phonenumbers.parse(raw.strip(), REGION)
        except NumberParseException:
            return None
        if number.country_code == 233 or not phonenumbers.is_valid_number(number):
            return None  # a Ghanaian one _parse_ghanaian refused, or no number at all
    return phonenumbers.format_number(number, PhoneNumberFormat.E164) if number is not None else None


def account_phone(raw: Any) -> str | None:
    """What an account's phone number is stored as: E.164 when it is a real number
    (:func:`parse_account_phone`); phone-shaped text that libphonenumber knows as no number
    (``1234567890``: 7 to 15 digits, as registration always took) as typed, which no text is sent
    to (:func:`mobile_number` sees no number in it); None when it is no phone at all."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not PHONE_SHAPED.match(text) or not 7 <= sum(ch.isdigit() for ch in text) <= 15:
        return None  # words around a number ("call 024...") are no phone either
    return parse_account_phone(text) or text


def ghanaian_number(stored: str | None) -> str | None:
    """A stored E.164 number (``+233241234567``) when it is Ghanaian, else None. Parses nothing:
    numbers are parsed when written; an old one the migration could not convert is no number."""
    if isinstance(stored, str) and len(stored) == 13 and stored.startswith(COUNTRY_CODE) and stored[1:].isdigit():
        return stored
    return None


def mobile_number(stored: str | None) -> str | None:
    """A stored E.164 number when it is a Ghanaian mobile number (texts reach it), else None.
    Every valid Ghanaian number in :data:`MOBILE_PREFIXES` is a mobile one (tests/unit/test_account_phones.py)."""
    number = ghanaian_number(stored)
    return number if number is not None and number[4:6] in MOBILE_PREFIXES else None


def account_phone_text(stored: str | None) -> str:
    """An account's stored phone number as the API and the profile form show it: a Ghanaian one
    the way it is usually typed, in one word (``+233241234567`` → ``0241234567``, what the
    original client always read back); another country's, or an old unconverted one, as stored."""
    number = ghanaian_number(stored)
    return "0" + number[4:] if number is not None else stored or ""


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
