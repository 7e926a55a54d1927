"""The shop's money settings (issue 33): the taxes it charges, its receipts and returns, read from the environment.

Part of :mod:`discount_deals.config.settings` (``Settings.tax``, ``Settings.receipts``, ``Settings.returns``), in a module of its own so that
settings.py stays under its size limit; nothing else reads these variables. What each scheme
charges (its parts and rates) is a business rule: services/taxes.py.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# DD_TAX: "spec" (the spec's 8 % of the subtotal, one line "Tax") or "ghana" (VAT 15 %, NHIL
# 2.5 %, GETFund levy 2.5 %, each of the taxable value: VAT Act 2025, Act 1151).
TAX_SCHEMES = ("spec", "ghana")
_YES = ("1", "true", "yes", "on")
_NO = ("", "0", "false", "no", "off")


@dataclass(frozen=True)
class TaxSettings:
    """``scheme`` (DD_TAX): the taxes charged; ``prices_include_tax`` (DD_PRICES_INCLUDE_TAX):
    shelf prices already include them (the tax lines are then the part inside the total)."""

    scheme: str = "spec"
    prices_include_tax: bool = False


def _flag(name: str) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if raw in _YES:
        return True
    if raw in _NO:
        return False
    raise ValueError(f"{name} must be 1 or 0 (yes or no), got {raw!r}")


def tax_settings() -> TaxSettings:
    """Read DD_TAX and DD_PRICES_INCLUDE_TAX (ValueError naming the setting when wrong)."""
    scheme = os.environ.get("DD_TAX", "").strip().lower() or "spec"
    if scheme not in TAX_SCHEMES:
        raise ValueError(f"DD_TAX must be one of {', '.join(TAX_SCHEMES)}, got {scheme!r}")
    return TaxSettings(scheme=scheme, prices_include_tax=_flag("DD_PRICES_INCLUDE_TAX"))


# DD_RECEIPT_PREFIX: letters and digits only, as it starts every receipt number ("DD-2026-000001").
RECEIPT_PREFIX_PATTERN = re.compile(r"[A-Z0-9]{1,10}")


@dataclass(frozen=True)
class ReceiptSettings:
    """What a receipt says of the seller, and how receipts are numbered.

    ``prefix`` (DD_RECEIPT_PREFIX): receipts are ``{prefix}-{year}-{000001}``; ``seller_name``
    (DD_SELLER_NAME, the shop's name by default), ``seller_address`` (DD_SELLER_ADDRESS) and
    ``seller_tin`` (DD_SELLER_TIN: the Ghana Revenue Authority's taxpayer number; "" when the
    shop is not VAT-registered) are printed on every receipt. ``whatsapp_number``
    (DD_WHATSAPP_NUMBER): where shoppers chat with the seller, as wa.me links take it (E.164
    digits without the "+"; "" shows no chat link)."""

    prefix: str = "DD"
    seller_name: str = "Discount Deals"
    seller_address: str = ""
    seller_tin: str = ""
    whatsapp_number: str = ""


def whatsapp_number(raw: str) -> str:
    """``024 123 4567`` or ``+233 24 123 4567`` → ``233241234567``; ValueError when not a phone number."""
    import phonenumbers  # only when the setting is given

    text = " ".join(raw.split())
    if not text:
        return ""
    try:
        number = phonenumbers.parse(text, "GH")
    except phonenumbers.NumberParseException:
        number = None
    if number is None or not phonenumbers.is_valid_number(number):
        raise ValueError(f"DD_WHATSAPP_NUMBER must be a phone number such as 024 123 4567 or +233 24 123 4567, "
                         f"got {raw!r}")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164).lstrip("+")


def _text(name: str, default: str, limit: int) -> str:
    value = " ".join(os.environ.get(name, "").split()) or default
    if len(value) > limit:
        raise ValueError(f"{name} may have at most {limit} characters, got {len(value)}")
    return value


# Credit notes are numbered "CN-{year}-{000001}" on a counter of their own: receipts may not share it.
CREDIT_NOTE_PREFIX = "CN"


def receipt_settings(shop_name: str) -> ReceiptSettings:
    """Read DD_RECEIPT_PREFIX, DD_SELLER_NAME, DD_SELLER_ADDRESS, DD_SELLER_TIN and DD_WHATSAPP_NUMBER."""
    prefix = os.environ.get("DD_RECEIPT_PREFIX", "").strip().upper() or "DD"
    if not RECEIPT_PREFIX_PATTERN.fullmatch(prefix):
        raise ValueError(f"DD_RECEIPT_PREFIX must be 1 to 10 letters or digits, got {prefix!r}")
    if prefix == CREDIT_NOTE_PREFIX:
        raise ValueError(f"DD_RECEIPT_PREFIX may not be {CREDIT_NOTE_PREFIX!r}: credit notes are numbered with it")
    return ReceiptSettings(
        prefix=prefix,
        seller_name=_text("DD_SELLER_NAME", shop_name, 120),
        seller_address=_text("DD_SELLER_ADDRESS", "", 240),
        seller_tin=_text("DD_SELLER_TIN", "", 32),
        whatsapp_number=whatsapp_number(os.environ.get("DD_WHATSAPP_NUMBER", "")),
    )


@dataclass(frozen=True)
class ReturnSettings:
    """``days`` (DD_RETURN_DAYS): a delivered order's items may be returned for this many days
    after delivery ("Free returns within 30 days")."""

    days: int = 30


def return_settings() -> ReturnSettings:
    """Read DD_RETURN_DAYS: a whole number of days, 0 (no returns) to 365."""
    raw = os.environ.get("DD_RETURN_DAYS", "").strip() or "30"
    try:
        days = int(raw)
    except ValueError:
        days = -1
    if not 0 <= days <= 365:
        raise ValueError(f"DD_RETURN_DAYS must be a whole number of days from 0 to 365, got {raw!r}")
    return ReturnSettings(days=days)
