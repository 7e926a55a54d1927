"""How each customer wants to hear from the shop, and the one-click unsubscribe.

Order updates go by SMS when the customer (or the order) has a Ghanaian mobile number and chose
nothing, else by email; they may choose SMS, email, both or none. Deal alerts are off until switched on (SMS or
email). Account notices (password changed, login paused) follow the order-update channel, and
their email can be turned off by its unsubscribe link; a password reset asked for is always sent.
Cart reminders are on until turned off (by the profile, or the reminder's unsubscribe link).
An order-update email's unsubscribe link stops those emails only: the texts go on (``TEXTS_ONLY``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ...models import Channel, NotificationPreference, Order, User
from .. import ValidationFailed
from ..error_codes import ErrorCode
from ..phones import mobile_number
from .unsubscribe import TOPICS, read_token

ORDER_CHOICES = {"sms": "SMS", "email": "Email", "both": "SMS and email", "off": "None"}
# Stored, never offered: what an order-update email's unsubscribe link leaves. Texts go on wherever
# a number is known (the account's, else the order's), no email ever; shown as "sms" (sent back as
# shown, it is kept; "off" chosen stops the texts).
TEXTS_ONLY = "sms_only"
DEAL_CHOICES = {"off": "Off", "sms": "SMS (at most one a day; the rest by email)", "email": "Email"}
NO_PHONE = "Add a Ghanaian mobile number to your profile to get text messages."


@dataclass(frozen=True)
class Preferences:
    order_updates: str  # one of ORDER_CHOICES (the default made explicit)
    deal_alerts: str  # one of DEAL_CHOICES
    account_email: bool
    phone: str | None  # the E.164 number texts go to, None when the profile has none
    cart_reminders: bool = True
    # An SMS choice's further alerts of the day by email; off once a deal email's link unsubscribed.
    deal_emails: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {"order_updates": self.order_updates, "deal_alerts": self.deal_alerts,
                "account_email": self.account_email, "cart_reminders": self.cart_reminders,
                "deal_emails": self.deal_emails, "sms_number": self.phone}


def _row(session: Session, user: User) -> NotificationPreference | None:
    return session.get(NotificationPreference, user.id)


def _row_to_change(session: Session, user: User) -> NotificationPreference:
    """The user's row, made (with the defaults: no row means them) at their first change, and held
    until the transaction ends (PostgreSQL's row lock; SQLite's writers take turns already): two
    first changes at once (the profile's card and an email's unsubscribe link) both found no row,
    and the second insert's duplicate key answered 409."""
    query = (select(NotificationPreference).where(NotificationPreference.user_id == user.id)
             .with_for_update().execution_options(populate_existing=True))
    row = session.exec(query).first()
    if row is not None:
        return row
    try:
        with session.begin_nested():
            session.add(NotificationPreference(user_id=user.id))
    except IntegrityError:
        pass  # a concurrent first change made it: this one waits for it below
    return session.exec(query).one()


def preferences_of(session: Session, user: User) -> Preferences:
    row = _row(session, user)
    phone = mobile_number(user.phonenumber)
    chosen = row.order_updates if row is not None and row.order_updates else ""
    if chosen == TEXTS_ONLY:  # texts go (to the order's own number, without one on the profile)
        chosen = "sms"
    return Preferences(
        order_updates=chosen or ("sms" if phone else "email"),
        deal_alerts=row.deal_alerts if row is not None else "off",
        account_email=row.account_email if row is not None else True,
        phone=phone,
        cart_reminders=row.cart_reminders if row is not None else True,
        deal_emails=row.deal_emails if row is not None else True,
    )


def update_preferences(session: Session, user: User, changes: Any) -> Preferences:
    """Change the user's choices (``order_updates``, ``deal_alerts``, ``account_email``,
    ``cart_reminders``, ``deal_emails``); 400 naming a bad value, or SMS chosen without a mobile
    number. Choosing other deal alerts takes their emails back; the same choice sent back (a
    form sends every field) leaves an unsubscribe from them standing."""
    if not isinstance(changes, dict):
        raise ValidationFailed("Send the preferences as an object.")
    errors: dict[str, list[str]] = {}
    phone = mobile_number(user.phonenumber)
    current = _row(session, user)
    texts_only = current is not None and current.order_updates == TEXTS_ONLY
    for name, choices in (("order_updates", ORDER_CHOICES), ("deal_alerts", DEAL_CHOICES)):
        value = changes.get(name)
        if value is None:
            continue
        if value not in choices:
            errors[name] = [f"Choose one of: {', '.join(choices)}."]
        elif value in ("sms", "both") and not phone and not (name == "order_updates" and value == "sms" and texts_only):
            errors[name] = [NO_PHONE]
    for name in ("account_email", "cart_reminders", "deal_emails"):
        if name in changes and not isinstance(changes[name], bool):
            errors[name] = ["Must be true or false."]
    if errors:
        raise ValidationFailed(next(iter(errors.values()))[0], fields=errors, code=ErrorCode.PREFERENCES_INVALID)
    row = _row_to_change(session, user)
    # The profile sends every choice back with each save: TEXTS_ONLY sent back as it is shown
    # ("sms") is kept, or a change of cart reminders stopped the texts an order's number gets;
    # "None" chosen stops them.
    kept = "sms" if row.order_updates == TEXTS_ONLY else None
    deals_before = row.deal_alerts
    for name in ("order_updates", "deal_alerts", "account_email", "cart_reminders", "deal_emails"):
        if name in changes and not (name == "order_updates" and changes[name] == kept):
            setattr(row, name, changes[name])
    if changes.get("deal_alerts") in ("sms", "email") and changes["deal_alerts"] != deals_before \
            and "deal_emails" not in changes:
        row.deal_emails = True
    if row.deal_alerts == "email":
        row.deal_emails = True  # alerts by email are their emails (the box speaks of an SMS choice's)
    session.add(row)
    session.flush()
    return preferences_of(session, user)


def unsubscribe(session: Session, token: Any) -> str:
    """Turn off the emails of the token's topic for its user; the topic's name ("deal alerts").
    400 (``token_invalid``) for a token we did not sign or a user who is gone or closed (nothing
    is sent to them: an old email's link writes no preferences back). A suspended customer still
    hears of their orders (services.messages.notices), so their link works."""
    from ..users.fields import is_closed  # services.users tells its owners through this package

    read = read_token(token)
    user = session.get(User, read[0]) if read else None
    if read is None or user is None or is_closed(user):
        raise ValidationFailed("This unsubscribe link is not valid.", code=ErrorCode.TOKEN_INVALID)
    topic = read[1]
    row = _row_to_change(session, user)
    current = preferences_of(session, user)
    if topic == "orders":  # the texts go on wherever they would go (the order's own number too)
        row.order_updates = "off" if row.order_updates in ("email", "off") else TEXTS_ONLY
    elif topic == "deals":  # the texts of an SMS choice go on; no more emails either way
        row.deal_alerts = "sms" if current.deal_alerts == "sms" else "off"
        row.deal_emails = False
    elif topic == "cart":
        row.cart_reminders = False  # one switch for both channels: a reminder comes one way only
    else:
        row.account_email = False
    session.add(row)
    session.flush()
    return TOPICS[topic]


def order_mobile(order: Order | None) -> str | None:
    """The mobile number an order carries (its contact number, else the one that paid), E.164
    as checkout stored them."""
    if order is None:
        return None
    return mobile_number(order.contact_phone) or mobile_number(order.payment_phone)


def order_channels(session: Session, user: User, order: Order | None = None) -> list[tuple[Channel, str]]:
    """Where this customer's updates about ``order`` go: ``[(channel, recipient)]`` (maybe none).

    Texts go to the account's mobile number, else to the number the order carries (a shopper whose
    profile holds a landline, or no number, still hears by SMS about the order they paid from 024…);
    with no choice made, SMS is the default whenever either number is known."""
    prefs = preferences_of(session, user)
    phone = prefs.phone or order_mobile(order)
    row = _row(session, user)
    stored = row.order_updates if row is not None else ""
    if stored == TEXTS_ONLY:  # the emails unsubscribed: texts only, none without a number
        return [(Channel.SMS, phone)] if phone else []
    choice = stored or ("sms" if phone else "email")
    if choice in ("sms", "both") and not phone:
        choice = "email"  # the number was removed since: email rather than nothing
    channels: list[tuple[Channel, str]] = []
    if choice in ("sms", "both"):
        channels.append((Channel.SMS, phone or ""))
    if choice in ("email", "both") and user.email:
        channels.append((Channel.EMAIL, user.email))
    return channels


def account_channels(session: Session, user: User) -> list[tuple[Channel, str]]:
    """Where security notices go: the order-update channels, email only if not unsubscribed
    (and by email when the customer turned order updates off)."""
    prefs = preferences_of(session, user)
    channels = [(c, r) for c, r in order_channels(session, user) if c == Channel.SMS or prefs.account_email]
    if not channels and prefs.account_email and user.email:
        channels.append((Channel.EMAIL, user.email))
    return channels
