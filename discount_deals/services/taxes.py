"""The taxes on a basket: the rule in force (DD_TAX, DD_PRICES_INCLUDE_TAX) and the lines shown.

What is taxed: the subtotal less the coupon, never shipping (SPEC §9: "Tax 8% of subtotal"; a
coupon lowers what is taxed). That holds whether prices include tax or not.

Rounding is written once, here: the total tax is computed from the total rate and rounded to
cents once (half up, as :func:`services.money.round_amount`), then split over the rule's parts in
proportion to their rates by the largest-remainder method, so the lines always sum to the tax
exactly. Tax added to prices is ``taxable × rate``; tax inside prices (``prices_include_tax``)
is ``taxable - taxable / (1 + rate)``, and the total is then what the shelf prices say.

An order keeps the lines it was placed with (``Order.tax_lines``): an old order is never
recomputed with today's settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .money import MONEY_STEP, api_amount, round_amount

ZERO = Decimal("0.00")


@dataclass(frozen=True)
class TaxPart:
    """One tax of a scheme: its code (the API's), its name on receipts and its rate in percent."""

    code: str
    label: str
    rate: Decimal  # percent of the taxable value: Decimal("15.00")


# The schemes DD_TAX names (settings_money.TAX_SCHEMES).
TAX_PARTS: dict[str, tuple[TaxPart, ...]] = {
    "spec": (TaxPart("tax", "Tax", Decimal("8.00")),),
    # Ghana since 1 January 2026 (VAT Act 2025, Act 1151): three taxes on the same taxable value.
    "ghana": (
        TaxPart("vat", "VAT", Decimal("15.00")),
        TaxPart("nhil", "NHIL", Decimal("2.50")),
        TaxPart("getfund", "GETFund levy", Decimal("2.50")),
    ),
}


@dataclass(frozen=True)
class TaxRule:
    parts: tuple[TaxPart, ...] = TAX_PARTS["spec"]
    prices_include_tax: bool = False

    @property
    def rate(self) -> Decimal:
        """The rate of all parts together, as a fraction (0.20 for 20 %)."""
        return sum((part.rate for part in self.parts), Decimal(0)) / 100


SPEC_TAX = TaxRule()


@dataclass(frozen=True)
class TaxLine:
    """One tax as an order charged it. ``included``: the amount is inside the prices."""

    code: str
    label: str
    rate: Decimal
    amount: Decimal
    included: bool = False

    def as_json(self) -> dict[str, Any]:
        """The order JSON's (and the stored column's) shape: rate and amount as 2-decimal text."""
        return {"code": self.code, "label": self.label, "rate": f"{self.rate:.2f}",
                "amount": api_amount(self.amount), "included": self.included}


def tax_rule() -> TaxRule:
    """The rule the settings put in force."""
    from ..config.settings import get_settings

    tax = get_settings().tax
    return TaxRule(parts=TAX_PARTS[tax.scheme], prices_include_tax=tax.prices_include_tax)


def tax_on(taxable: Decimal, rule: TaxRule) -> Decimal:
    """The tax on ``taxable`` (added to it, or inside it), rounded once to cents."""
    if taxable <= 0:
        return ZERO
    if rule.prices_include_tax:
        return round_amount(taxable - taxable / (1 + rule.rate))
    return round_amount(taxable * rule.rate)


def split_tax(tax: Decimal, rule: TaxRule) -> tuple[TaxLine, ...]:
    """``tax`` shared over the rule's parts by rate, largest remainder first (ties: the first
    part), so the lines sum to ``tax`` to the cent."""
    cents = int(round_amount(tax) * 100)
    total_rate = sum((part.rate for part in rule.parts), Decimal(0))
    if total_rate == 0:
        shares = [Decimal(0)] * len(rule.parts)
    else:
        shares = [Decimal(cents) * part.rate / total_rate for part in rule.parts]
    whole = [int(share) for share in shares]  # shares are never negative: int() is the floor
    by_remainder = sorted(range(len(shares)), key=lambda i: (-(shares[i] - whole[i]), i))
    for index in by_remainder[: cents - sum(whole)]:
        whole[index] += 1
    return tuple(
        TaxLine(part.code, part.label, part.rate, (Decimal(amount) / 100).quantize(MONEY_STEP), rule.prices_include_tax)
        for part, amount in zip(rule.parts, whole, strict=True)
    )


def split_refunded_tax(tax: Decimal, charged: tuple[TaxLine, ...], given: tuple[Decimal, ...],
                       rule: TaxRule) -> tuple[TaxLine, ...]:
    """A refund's ``tax`` over the parts the order was ``charged``, after earlier refunds gave back
    ``given`` (per part, in the same order), so that all of an order's refunds together give back
    each tax exactly as charged, to the cent.

    Each refund aims at the split of everything refunded so far less what earlier ones gave, but
    never below zero nor above what is left of a part; the cents that leaves over go to the parts
    with room, the highest rate first (taken back, when over, from the lowest rate first).
    """
    charged_cents = [int(line.amount * 100) for line in charged]
    given_cents = [int(amount * 100) for amount in given]
    room = [max(c - g, 0) for c, g in zip(charged_cents, given_cents, strict=True)]
    after = split_tax(round_amount(sum(given, ZERO) + tax), rule)
    want = [min(max(int(line.amount * 100) - g, 0), r) for line, g, r in zip(after, given_cents, room, strict=True)]
    short = int(round_amount(tax) * 100) - sum(want)
    by_rate = sorted(range(len(want)), key=lambda i: (-charged[i].rate, i))
    for index in by_rate if short > 0 else reversed(by_rate):
        move = min(short, room[index] - want[index]) if short > 0 else -min(-short, want[index])
        want[index] += move
        short -= move
    want[by_rate[0]] += short  # only when the refunds outgrow what was charged: the lines still sum to ``tax``
    return tuple(TaxLine(line.code, line.label, line.rate, (Decimal(cents) / 100).quantize(MONEY_STEP), line.included)
                 for line, cents in zip(charged, want, strict=True))


def basket_tax(taxable: Decimal, rule: TaxRule) -> tuple[Decimal, tuple[TaxLine, ...]]:
    """The tax on a basket's taxable value and its lines."""
    tax = tax_on(taxable, rule)
    return tax, split_tax(tax, rule)


def legacy_tax_lines(tax: Decimal) -> list[dict[str, Any]]:
    """The lines of an order placed before orders kept theirs: the spec's one 8 % "Tax" (the only
    rule there was), equal to the order's tax. The migration that added the column wrote these.
    An untaxed one reads as a rate of nothing, so that a return of it gives back no tax it never took."""
    amount = round_amount(Decimal(tax))
    return [TaxLine("tax", "Tax", Decimal("8.00") if amount else Decimal("0.00"), amount).as_json()]


def stored_tax_lines(stored: Iterable[Mapping[str, Any]] | None, tax: Decimal) -> tuple[TaxLine, ...]:
    """An order's lines as it keeps them (``Order.tax_lines``; none kept: :func:`legacy_tax_lines`)."""
    rows = list(stored or ()) or legacy_tax_lines(tax)
    return tuple(
        TaxLine(str(row["code"]), str(row["label"]), Decimal(str(row["rate"])), Decimal(str(row["amount"])),
                bool(row.get("included", False)))
        for row in rows
    )


def rule_of(lines: Iterable[TaxLine]) -> TaxRule:
    """The rule an order was taxed by, read back from the lines it keeps (a refund's share of
    its tax is computed, and rounded, as its tax was)."""
    lines = tuple(lines)
    return TaxRule(parts=tuple(TaxPart(line.code, line.label, line.rate) for line in lines),
                   prices_include_tax=any(line.included for line in lines))
