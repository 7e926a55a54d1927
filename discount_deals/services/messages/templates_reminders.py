"""The cart reminder's texts (issue 34): an SMS of one GSM-7 segment, and an email.

Kept apart from :mod:`.templates` (the other texts) but framed like them: the email uses the
same frame, the SMS the same money text (``GHS 12.35``, services.money's plain form).
The SMS is plain ASCII: a product name with curly quotes or letters outside GSM-7 would make it
UCS-2 (70 characters a part), so names are folded to ASCII first.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ... import routes
from ..money import money_text, plain_money_text
from ..pricing import LineTotal
from ..money import round_amount
from .templates import Email, Links, _email, _sms_short, ascii_text, fits_one_sms, shop_name

SUBJECT = "You left something in your cart"
ACTION = "Finish your order"
TOPIC_TEXT = "cart reminders"
EMAIL_LINES = 10  # lines listed in the email; the rest are counted
# Punctuation NFKD leaves alone, spelt in ASCII.


@dataclass(frozen=True)
class ReminderLine(LineTotal):
    """One line of the cart, as the reminder names it."""

    name: str
    quantity: int
    unit_price: Decimal


def cart_total(lines: list[ReminderLine]) -> Decimal:
    return round_amount(sum((line.line_total for line in lines), Decimal("0")))


def _sms_core(lines: list[ReminderLine], name_limit: int, links: Links) -> str:
    name = _sms_short(lines[0].name, name_limit) or "An item"
    more = len(lines) - 1
    what = f"{name} and {more} more item{'s' if more > 1 else ''} are" if more else f"{name} is"
    total = ascii_text(plain_money_text(cart_total(lines)))
    return f"{ascii_text(shop_name())}: {what} still in your cart ({total}). {ACTION}: {links.to(routes.CART)}"


def reminder_sms(lines: list[ReminderLine], links: Links) -> str:
    """One segment naming the first line and how many more, the total and the cart's link; how to
    stop ("Stop: .../profile") only when it still fits."""
    attempts = [(name_limit, stop) for name_limit in (40, 28, 16) for stop in (True, False)]
    text = ""
    for name_limit, stop in attempts:
        text = _sms_core(lines, name_limit, links) + (f" Stop: {links.to(routes.PROFILE)}" if stop else "")
        if fits_one_sms(text):
            return text
    return text  # an address too long for any text: the shortest one, in parts


def reminder_email(lines: list[ReminderLine], links: Links) -> Email:
    """The lines with their prices, the total, a "Finish your order" link and the unsubscribe link."""
    shown = lines[:EMAIL_LINES]
    body = ["You left this in your cart:" if len(lines) == 1 else "You left these in your cart:"]
    body += [f"{line.name} × {line.quantity}: {money_text(line.line_total)}" for line in shown]
    if len(lines) > len(shown):
        hidden = len(lines) - len(shown)
        body.append(f"and {hidden} more item{'s' if hidden > 1 else ''}")
    body += [f"Total: {money_text(cart_total(lines))}",
             "Prices and stock can change, so finish your order while they last."]
    return _email(SUBJECT, body, (ACTION, links.to(routes.CART)), links, topic_text=TOPIC_TEXT)
