"""A basket's totals as the cart and the checkout show them (computed by services.pricing)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from ...display import TaxLineView, money_text, tax_line_views
from ...services.pricing import CartTotals, shipping_for


@dataclasses.dataclass
class TotalsView:
    subtotal_text: str = ""
    savings_text: str = ""
    has_savings: bool = False
    shipping_text: str = ""
    tax_text: str = ""  # all taxes together
    tax_lines: list[TaxLineView] = dataclasses.field(default_factory=list)  # each tax (DD_TAX), shown one a row
    discount_text: str = ""  # "-$1.00": a coupon's amount off
    has_discount: bool = False
    total_text: str = ""
    free_shipping_gap_text: str = ""  # how much more for free shipping ("" when nothing)


def totals_view(totals: CartTotals) -> TotalsView:
    return TotalsView(
        subtotal_text=money_text(totals.subtotal),
        savings_text=money_text(totals.savings),
        has_savings=totals.savings > 0,
        shipping_text="Free" if totals.shipping == 0 and totals.item_count else money_text(totals.shipping),
        tax_text=money_text(totals.tax),
        tax_lines=tax_line_views(totals.tax_lines),
        discount_text="-" + money_text(totals.discount),
        has_discount=totals.discount > 0,
        total_text=money_text(totals.total),
        free_shipping_gap_text=money_text(totals.free_shipping_gap) if totals.free_shipping_gap > 0 else "",
    )


def home_delivery_text(totals: CartTotals) -> str:
    """What home delivery would cost this basket ("Free" over the threshold), whichever way the
    shopper has chosen for now (issue 32: the card said the fee to a basket that ships free)."""
    fee = shipping_for(totals.subtotal) if totals.item_count else Decimal("0.00")
    return "Free" if fee == 0 and totals.item_count else money_text(fee)
