"""The shop's money settings (issue 33): which taxes it charges, read from the environment.

Part of :mod:`discount_deals.settings` (``Settings.tax``), in a module of its own so that
settings.py stays under its size limit; nothing else reads these variables. What each scheme
charges (its parts and rates) is a business rule: services/taxes.py.
"""

from __future__ import annotations

import os
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
