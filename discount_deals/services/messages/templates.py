"""Every text the shop sends a customer, in one place: email (subject, plain text, HTML) and SMS.

SMS texts are written to fit one message (160 GSM-7 characters) for realistic values; money in
an SMS is always the ASCII form, ``GHS 12.35`` (GH₵ is not in the GSM-7 alphabet: a single such
character would make the text UCS-2, 70 characters a part); emails show the symbol. ``tests`` render every
SMS with long values and check it.
"""

from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

from anyascii import anyascii

from ... import routes
from ...models import DeliveryMethod, Order, PaymentMethod, PaymentStatus, ReturnRequest
from ...config.settings import get_settings
from ..phones import CODE_NETWORKS, display_phone, network_name
from ..places import place_name
from ..money import Money, money_text, plain_money_text

# GSM 03.38: the basic alphabet (one septet each) and the extension table (two septets each).
GSM7_BASIC = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENDED = set("^{}\\[~]|€\f")
SMS_LIMIT = 160


def sms_length(text: str) -> int | None:
    """Septets the text takes in GSM-7, or None when it needs UCS-2."""
    length = 0
    for char in text:
        if char in GSM7_BASIC:
            length += 1
        elif char in GSM7_EXTENDED:
            length += 2
        else:
            return None
    return length


def fits_one_sms(text: str) -> bool:
    length = sms_length(text)
    return length is not None and length <= SMS_LIMIT


@dataclass(frozen=True)
class Email:
    subject: str
    text: str
    html: str


@dataclass(frozen=True)
class Links:
    """The absolute links a message carries (made from DD_PUBLIC_URL)."""

    base: str
    unsubscribe: str = ""

    def to(self, path: str) -> str:
        return f"{self.base}{path}"


def shop_name() -> str:
    return get_settings().messages.shop_name


def order_number(order: Order) -> str:
    return order.id[:8]


_ASCII_PUNCTUATION = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "...",
                                    "×": "x", "\u00a0": " ", "`": "'"})


def _sms_char(char: str) -> str:
    if char.isascii():
        return char
    # Letters, digits, punctuation and spaces of any script in ASCII (é → e, ɔ → o, ŋ → n, 大米 → DaMi),
    # by anyascii; symbols and emoji are left out (it would write 🍚 as ":rice:").
    return anyascii(char) if unicodedata.category(char)[0] in "LNPZ" else ""


def ascii_text(text: str) -> str:
    """``text`` as a text message carries it in GSM-7: in ASCII, with no backtick (the one ASCII
    character GSM-7 lacks), letters of any script written in Latin, symbols and emoji left out."""
    return " ".join("".join(map(_sms_char, str(text).translate(_ASCII_PUNCTUATION))).split())


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip(" .,;:") + "..."


def _sms_short(text: str, limit: int, fallback: str = "") -> str:
    """Text people typed (a product's or a store's name, a note), as a text carries it: in ASCII
    (a curly quote or an emoji would make the whole text UCS-2, two SMS for one), shortened;
    ``fallback`` when nothing is left (a name of emoji only)."""
    return _short(ascii_text(text), limit) or fallback


def _sentence(text: str) -> str:
    """``text`` starting with a capital (``str.capitalize`` would lower the town's)."""
    return text[:1].upper() + text[1:]


def _where(order: Order, limit: int = 40, *, sms: bool = False) -> str:
    """Where the order goes: the pickup store, or the delivery town (``sms``: in ASCII)."""
    short = _sms_short if sms else _short
    if order.delivery_method == DeliveryMethod.PICKUP:
        store = short((order.pickup_store or {}).get("name") or "", limit)
        return f"pickup at {store or 'the store'}"
    city = short(place_name((order.address or {}).get("city") or ""), limit)
    return f"delivery to {city}" if city else "home delivery"


def how_to_pay(order: Order, *, short: bool = False) -> str:
    """One sentence: how this order is (to be) paid (``short`` for a text)."""
    if order.payment_status == PaymentStatus.PAID:
        return "Paid."
    if order.payment_method == PaymentMethod.MOBILE_MONEY:
        network, phone = network_name(order.payment_network, "mobile money"), display_phone(order.payment_phone)
        asks_code = order.payment_step == "send_otp" or (not order.payment_step and order.payment_network in CODE_NETWORKS)
        if asks_code:  # the order page asks for the code, not a prompt
            if short:
                return f"Enter the code {network} sent to {phone} on your order page."
            return f"Pay with {network} from {phone}: enter the code your network sent on your order page."
        if short:
            return f"Approve the {network} prompt on {phone}."
        return f"Pay with {network} from {phone}: approve the prompt on your phone."
    if order.delivery_method == DeliveryMethod.PICKUP:
        return "Pay at pickup."
    return "Pay cash on delivery."


# --- order updates -----------------------------------------------------------------------------

ORDER_KINDS = {
    "order_placed": "placed",
    "payment_paid": "payment received",
    "payment_failed": "payment failed",
    "order_ready": "ready for pickup",
    "order_shipped": "on its way",
    "order_delivered": "delivered",
    "order_cancelled": "cancelled",
}


# The messages sent when an order's money is in: the email links to its receipt page.
RECEIPT_KINDS = ("payment_paid", "order_delivered")


def order_sms(kind: str, order: Order, *, refund: Decimal | None = None) -> str:
    """The SMS for an order update (fits 160 GSM-7 characters for realistic values); ``refund``:
    what a cancelled order's customer is owed (what came in), if anything."""
    number, total = order_number(order), plain_money_text(order.total)
    head = f"{shop_name()}: order #{number}"
    if kind == "order_placed":
        text = f"{head} placed. Total {total}, {_where(order, 24, sms=True)}. {how_to_pay(order, short=True)}"
        # A code to enter, a long total and a long place may not fit one text: the place goes.
        return text if fits_one_sms(text) else f"{head} placed. Total {total}. {how_to_pay(order, short=True)}"
    if kind == "payment_paid":
        return f"{head}: we received your payment of {total}. Thank you!"
    if kind == "payment_failed":
        return f"{head}: the payment of {total} did not go through. Try again from your order page."
    if kind == "order_ready":
        store = (order.pickup_store or {}).get("name") or "the store"
        return f"{head} is ready for pickup at {_sms_short(store, 40, 'the store')}. Bring your order number."
    if kind == "order_shipped":
        pay = "" if order.payment_status == PaymentStatus.PAID else f" {how_to_pay(order, short=True)}"
        return f"{head} is out for delivery. Total {total}.{pay}"
    if kind == "order_delivered":
        return f"{head} was delivered. Thank you for shopping with us!"
    if kind == "order_cancelled":
        tail = f" A refund of {plain_money_text(refund)} is due to you: we will send it soon." if refund else ""
        return f"{head} was cancelled.{tail}"
    raise ValueError(f"unknown order message {kind!r}")


def order_email(kind: str, order: Order, links: Links, *, refund: Decimal | None = None) -> Email:
    number = order_number(order)
    subject = f"Order #{number} {ORDER_KINDS[kind]}"
    lines = [order_sms(kind, order, refund=refund).split(": ", 1)[1]]
    if kind == "order_placed":
        lines += [f"Total: {money_text(order.total)}", f"Items: {order.item_count}",
                  f"{_sentence(_where(order, 120))}.", how_to_pay(order)]
    action = ("View your order", links.to(routes.order_path(order.id)))
    if kind in RECEIPT_KINDS and order.receipt_number:  # the money is in: its receipt (services.receipts)
        lines.append(f"Your receipt number is {order.receipt_number}.")
        action = ("View your receipt", links.to(routes.receipt_path(order.id)))
    return _email(subject, lines, action, links, topic_text="order updates")


# --- returns -----------------------------------------------------------------------------------

RETURN_KINDS = {
    "return_requested": "return requested",
    "return_approved": "return approved",
    "return_rejected": "return not approved",
    "return_received": "returned items received",
    "return_refunded": "refund sent",
}


def _refund_way(order: Order, ret: ReturnRequest) -> str:
    """Where the refund goes: the way it is made (a mobile-money refund the provider refused for
    good is paid in cash instead), else the way the order was paid."""
    way = ret.refund_method or order.payment_method
    if way == PaymentMethod.MOBILE_MONEY:
        return f"your {network_name(order.payment_network, 'mobile money')} number {display_phone(order.payment_phone)}"
    return "you in cash"


def return_sms(kind: str, order: Order, ret: ReturnRequest) -> str:
    """The SMS for a step of a return (fits 160 GSM-7 characters for realistic values)."""
    head, amount = f"{shop_name()}: order #{order_number(order)}", plain_money_text(ret.refund_amount)
    if kind == "return_requested":
        return f"{head}: we got your return request. We will check it and reply soon."
    if kind == "return_approved":
        return f"{head}: your return is approved. Bring or send the items back; we refund {amount} once they arrive."
    if kind == "return_rejected":
        why = _sms_short(ret.admin_note or "", 70)
        return f"{head}: your return was not approved.{' ' + why if why else ''}"
    if kind == "return_received":
        return f"{head}: we received your returned items. Your refund of {amount} is on its way."
    if kind == "return_refunded":
        return f"{head}: we refunded {amount} to {_refund_way(order, ret)}. Credit note {ret.credit_note_number}."
    raise ValueError(f"unknown return message {kind!r}")


def return_email(kind: str, order: Order, ret: ReturnRequest, links: Links) -> Email:
    subject = f"Order #{order_number(order)} {RETURN_KINDS[kind]}"
    lines = [return_sms(kind, order, ret).split(": ", 2)[2]]
    if kind == "return_rejected" and ret.admin_note:
        lines = ["Your return was not approved.", f"Why: {ret.admin_note}"]
    if kind in ("return_requested", "return_approved", "return_received"):
        lines.append(f"Refund: {money_text(ret.refund_amount)}, to {_refund_way(order, ret)}.")
    return _email(subject, lines, ("View your order", links.to(routes.order_path(order.id))), links,
                  topic_text="order updates")


# --- account -----------------------------------------------------------------------------------


def reset_link_email(url: str, links: Links, minutes: int) -> Email:
    lines = [
        "Someone (we hope you) asked to reset the password of your account.",
        f"The link below works once, for {minutes} minutes. If you did not ask, ignore this email: "
        "your password stays as it is.",
    ]
    return _email("Reset your password", lines, ("Choose a new password", url), links, topic_text="account notices")


def reset_code_sms(code: str, minutes: int) -> str:
    return f"{shop_name()}: your password reset code is {code}. It expires in {minutes} minutes. Never share it."


def reset_shared_number_sms() -> str:
    return (f"{shop_name()}: more than one account gives this number, so it cannot reset a password. "
            "Reset yours by email from the login page.")


def password_changed_sms() -> str:
    return f"{shop_name()}: your password was changed. If this was not you, reset it now from the login page."


def password_changed_email(links: Links) -> Email:
    lines = ["The password of your account was just changed, and every device was signed out.",
             "If this was not you, reset your password now."]
    return _email("Your password was changed", lines, ("Reset your password", links.to(routes.reset_path())), links,
                  topic_text="account notices")


def account_locked_sms(minutes: int) -> str:
    return (f"{shop_name()}: too many wrong passwords were tried on your account. Login is paused for {minutes} min. "
            "Not you? Reset your password.")


def account_locked_email(minutes: int, links: Links) -> Email:
    lines = [f"Too many wrong passwords were tried on your account, so logging in is paused for {minutes} minutes.",
             "A phone or computer you have logged in from before can still log in.",
             "If this was not you, reset your password: the reset signs out every device."]
    return _email("Logging in to your account is paused", lines,
                  ("Reset your password", links.to(routes.reset_path())), links, topic_text="account notices")


def contact_changed_sms(what: str, days: int) -> str:
    return (f"{shop_name()}: the {what} of your account was changed. Not you? Undo it within {days} days "
            "with the link we emailed you.")


def contact_changed_email(what: str, days: int, undo_url: str, links: Links) -> Email:
    lines = [f"The {what} of your account was just changed.",
             "If this was you, there is nothing to do.",
             f"If it was not, undo the change within {days} days: the old details come back and every device "
             "is signed out. Then reset your password."]
    return _email(f"The {what} of your account was changed", lines, ("Undo this change", undo_url), links,
                  topic_text="account notices")


# --- deal alerts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealLine:
    product_id: str
    name: str
    kind: str  # "price_drop" | "back_in_stock"
    price: Money | None  # the new price (None when unknown): an SMS writes it plain, an email with the symbol


def deal_sms(deals: list[DealLine]) -> str:
    first = deals[0]
    name = _sms_short(first.name, 40, "A favourite")
    what = (f"{name} is now {first.price.plain_text()}" if first.kind == "price_drop" and first.price
            else f"{name} is back in stock")
    more = f" and {len(deals) - 1} more favourite{'s' if len(deals) > 2 else ''}" if len(deals) > 1 else ""
    return f"{shop_name()}: {what}{more}. See your favourites on our site."


def deal_email(deals: list[DealLine], links: Links) -> Email:
    price = deals[0].price.text() if deals[0].price else ""
    subject = (f"{deals[0].name} is now {price}" if len(deals) == 1 and deals[0].kind == "price_drop"
               else f"{deals[0].name} is back in stock" if len(deals) == 1
               else f"{len(deals)} of your favourites changed")
    lines = [
        f"{deal.name}: now {deal.price.text()}" if deal.kind == "price_drop" and deal.price
        else f"{deal.name}: back in stock"
        for deal in deals
    ]
    return _email(_short(subject, 150), lines, ("See your favourites", links.to(routes.FAVORITES)), links,
                  topic_text="deal alerts")


# --- the email frame ---------------------------------------------------------------------------


def _email(subject: str, lines: list[str], action: tuple[str, str] | None, links: Links, *,
           topic_text: str) -> Email:
    name = shop_name()
    text_parts = [*lines]
    if action:
        text_parts.append(f"{action[0]}: {action[1]}")
    text_parts.append(f"-- \n{name} · {links.base}")
    if links.unsubscribe:
        text_parts.append(f"Stop these {topic_text} by email: {links.unsubscribe}")
    return Email(subject=f"{name}: {subject}", text="\n\n".join(text_parts), html=_html(subject, lines, action, links,
                                                                                       topic_text))


def _html(subject: str, lines: list[str], action: tuple[str, str] | None, links: Links, topic_text: str) -> str:
    e = html.escape
    paragraphs = "".join(f'<p style="margin:0 0 12px">{e(line)}</p>' for line in lines)
    button = (
        f'<p style="margin:20px 0"><a href="{e(action[1])}" style="background:#c2410c;color:#fff;padding:10px 18px;'
        f'border-radius:6px;text-decoration:none;font-weight:600">{e(action[0])}</a></p>'
        if action else ""
    )
    unsubscribe = (
        f'<a href="{e(links.unsubscribe)}" style="color:#6b7280">Stop these {e(topic_text)} by email</a>'
        if links.unsubscribe else ""
    )
    name = e(shop_name())
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(subject)}</title></head>'
        f'<body style="margin:0;background:#f9fafb;font-family:Arial,sans-serif;color:#111827">'
        f'<div style="max-width:560px;margin:0 auto;padding:24px">'
        f'<p style="font-size:20px;font-weight:700;color:#c2410c;margin:0 0 16px">{name}</p>'
        f'<h1 style="font-size:18px;margin:0 0 16px">{e(subject)}</h1>{paragraphs}{button}'
        f'<p style="font-size:12px;color:#6b7280;margin-top:32px">{name} · '
        f'<a href="{e(links.base)}" style="color:#6b7280">{e(links.base)}</a><br>{unsubscribe}</p>'
        f"</div></body></html>"
    )

