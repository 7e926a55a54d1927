"""The shop's one currency: an ISO 4217 code (``DD_CURRENCY``) and the symbol prices are shown with.

This module parses the setting; amounts are written out by services.money (issue 33).

The symbol is derived from the code, so the two can never disagree (the shop used to have a
display symbol, a schema.org code and a payment currency set apart). The table holds the
currencies of the markets the shop and its payment provider serve; any other well-formed code
is shown as the code itself (``EUR 12.00`` would read as well as ``€12.00``), which needs no
locale data. Babel's CLDR symbols were considered and left out (measured in services.money).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CURRENCY = "USD"  # SPEC §9 shows prices with a $ sign
SYMBOLS: dict[str, str] = {
    "USD": "$",
    "GHS": "GH₵",
    "NGN": "₦",
    "KES": "KSh",
    "ZAR": "R",
    "EUR": "€",
    "GBP": "£",
    "XOF": "CFA ",
}


# What a sentence calls the money ("Prices are in Ghana cedis"); any other code is named by itself.
NAMES: dict[str, str] = {
    "USD": "US dollars",
    "GHS": "Ghana cedis",
    "NGN": "naira",
    "KES": "Kenyan shillings",
    "ZAR": "rand",
    "EUR": "euros",
    "GBP": "pounds sterling",
    "XOF": "CFA francs",
}


def name_of(code: str) -> str:
    """What a sentence calls amounts in ``code``: ``GHS`` → ``Ghana cedis``, an unknown code → itself."""
    return NAMES.get(code, code)


def symbol_of(code: str) -> str:
    """What amounts in ``code`` are shown with: ``GHS`` → ``GH₵``, an unknown code → ``CHF ``."""
    return SYMBOLS.get(code, code + " ")


@dataclass(frozen=True)
class Currency:
    code: str  # ISO 4217, what providers are asked to charge and schema.org offers name
    symbol: str  # what prices are shown with: "$12.50", "GH₵12.50"


def parse_currency(raw: str, name: str = "DD_CURRENCY") -> Currency:
    """``ghs`` → Currency("GHS", "GH₵"); ValueError for anything that is not a 3-letter code."""
    code = (raw or "").strip().upper() or DEFAULT_CURRENCY
    if len(code) != 3 or not code.isascii() or not code.isalpha():
        raise ValueError(f"{name} must be an ISO 4217 currency code such as USD or GHS, got {raw!r}")
    return Currency(code=code, symbol=symbol_of(code))
