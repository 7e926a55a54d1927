"""The shop's money settings (issue 33): the taxes it charges, its receipts and returns.

Part of :mod:`discount_deals.config.settings` (``Settings.tax``, ``Settings.receipts``,
``Settings.returns``), in a module of its own so that settings.py stays under its size limit.
What each scheme charges (its parts and rates) is a business rule: services/taxes.py.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from .settings_base import CaseBlind, EnvironmentSettings

# DD_TAX: "spec" (the spec's 8 % of the subtotal, one line "Tax") or "ghana" (VAT 15 %, NHIL
# 2.5 %, GETFund levy 2.5 %, each of the taxable value: VAT Act 2025, Act 1151).
TAX_SCHEMES = ("spec", "ghana")
_FLAG_WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


class TaxSettings(EnvironmentSettings):
    """The taxes charged, and whether shelf prices already include them."""

    scheme: Annotated[Literal["spec", "ghana"], CaseBlind] = Field("spec", validation_alias="DD_TAX", description=(
        "the taxes charged on the subtotal less the coupon (shipping is never taxed): `spec` (the spec's 8 %, "
        "one line \"Tax\") or `ghana` (VAT 15 %, NHIL 2.5 % and GETFund levy 2.5 %, each of the same taxable "
        "value: 20 % in all, VAT Act 2025). The total tax is rounded once to the cent (half up) and split over "
        "the lines by rate (largest remainder). Orders keep the lines they were placed with: changing it "
        "affects new orders only"))
    prices_include_tax: bool = Field(False, validation_alias="DD_PRICES_INCLUDE_TAX", description=(
        "`1` when shelf prices already include the taxes: the total is the prices (less the coupon, plus "
        "delivery) and the tax is the part inside, `taxable − taxable / (1 + rate)`; pages say \"VAT (15%), included\""))


    @field_validator("prices_include_tax", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> Any:
        """Only the words operators write (pydantic would also take "t" or "y")."""
        if isinstance(value, str) and value.lower() not in _FLAG_WORDS:
            raise ValueError(f"DD_PRICES_INCLUDE_TAX must be 1 or 0 (yes or no), got {value.lower()!r}")
        return _FLAG_WORDS[value.lower()] if isinstance(value, str) else value


# DD_RECEIPT_PREFIX: letters and digits only, as it starts every receipt number ("DD-2026-000001").
RECEIPT_PREFIX_PATTERN = re.compile(r"[A-Z0-9]{1,10}")
# Credit notes are numbered "CN-{year}-{000001}" on a counter of their own: receipts may not share it.
CREDIT_NOTE_PREFIX = "CN"


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


def _printed(limit: int, env: str, description: str, default: str = "") -> Any:
    """A text printed on receipts: spaces collapsed, at most ``limit`` characters."""
    return Field(default, max_length=limit, validation_alias=env, description=description)


class ReceiptSettings(EnvironmentSettings):
    """What a receipt says of the seller, how receipts are numbered, and where shoppers chat with the seller."""

    prefix: str = Field("DD", validation_alias="DD_RECEIPT_PREFIX", description=(
        "receipts are numbered `{prefix}-{year}-{000001}` (1 to 10 letters or digits, not `CN`: credit notes "
        "use it), one gap-free sequence per prefix and year. Changing the prefix starts a new sequence at 1"))
    seller_name: str = _printed(120, "DD_SELLER_NAME", "the seller as receipts (page, JSON, PDF) print it",
                                default="Discount Deals")
    seller_address: str = _printed(240, "DD_SELLER_ADDRESS", "the seller's address on receipts")
    seller_tin: str = _printed(32, "DD_SELLER_TIN", (
        "the shop's GRA taxpayer identification number, printed on receipts (VAT-registered shops must show it)"))
    whatsapp_number: str = Field("", validation_alias="DD_WHATSAPP_NUMBER", description=(
        "the shop's WhatsApp number (`024 123 4567` or `+233 24 123 4567`): \"Chat with us on WhatsApp\" on "
        "the product, cart and order pages (a `wa.me` link); unset, no chat link"))

    @field_validator("prefix", mode="before")
    @classmethod
    def _receipt_prefix(cls, value: Any) -> Any:
        prefix = value.upper() if isinstance(value, str) else value
        if not RECEIPT_PREFIX_PATTERN.fullmatch(prefix):
            raise ValueError(f"DD_RECEIPT_PREFIX must be 1 to 10 letters or digits, got {prefix!r}")
        if prefix == CREDIT_NOTE_PREFIX:
            raise ValueError(f"DD_RECEIPT_PREFIX may not be {CREDIT_NOTE_PREFIX!r}: credit notes are numbered with it")
        return prefix

    @field_validator("seller_name", "seller_address", "seller_tin", mode="before")
    @classmethod
    def _one_line(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value

    @field_validator("whatsapp_number", mode="before")
    @classmethod
    def _wa_me_digits(cls, value: Any) -> Any:
        return whatsapp_number(value) if isinstance(value, str) else value


class ReturnSettings(EnvironmentSettings):
    """How long a delivered order's items may be returned."""

    days: int = Field(30, ge=0, le=365, validation_alias="DD_RETURN_DAYS", json_schema_extra={
        "problem": "{name} must be a whole number of days from 0 to 365, got {raw}"}, description=(
        "days after delivery during which items may be returned (\"Free returns within 30 days\"): "
        "0 (no returns) to 365"))
