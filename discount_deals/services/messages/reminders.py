"""Cart reminders (issue 34): a signed-in customer's cart left untouched gets one reminder.

A cart is due (:func:`due_carts`) when it was last touched (``Cart.updated_at``, bumped by every
change of its lines in ``services.cart``, and its lines' own times) at least
DD_CART_REMINDER_MINUTES ago and at most :data:`FORGET_AFTER` ago, it holds something a
shopper can still buy (shown and in stock), its owner is active and did not turn reminders off,
and it was not reminded since that touch nor in the last :data:`REMIND_AGAIN_AFTER`. Nothing is
sent from 21:00 to 06:59 in Accra (GMT all year): those carts wait until 07:00.

:func:`remind_carts` queues one message per due cart through the outbox, by the customer's
order-update channel (SMS when it texts them, else email), and marks the cart reminded. Its
dedupe key names the cart and the touch, so two workers that find the same cart send one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, exists, func, or_, update
from sqlmodel import Session, select

from ...models import Cart, CartItem, Channel, NotificationPreference, Product, User
from ...config.settings import get_settings
from ..catalog.filters import visible_clause
from ..pricing import product_price
from . import templates_reminders as texts
from .notices import links_for
from .outbox import Draft, queue_messages
from .preferences import order_channels
from ..moments import as_utc

KIND = "cart_reminder"
TOPIC = "cart"
REMIND_AGAIN_AFTER = timedelta(days=3)  # at most one reminder per cart in this time
# A cart older than this is not reminded: a reminder about last month's cart (on the day
# reminders are switched on, say) would be noise.
FORGET_AFTER = timedelta(days=7)
QUIET_FROM, QUIET_UNTIL = 21, 7  # hours, Accra time (GMT, no summer time)
CARTS_PER_SWEEP = 200


@dataclass(frozen=True)
class DueCart:
    id: str
    user_id: str
    touched_at: datetime  # the last touch: the reminder's dedupe key names it


def quiet_hours(now: datetime) -> bool:
    """From 21:00 to 06:59 in Accra nobody is texted about a cart."""
    hour = now.astimezone(UTC).hour
    return hour >= QUIET_FROM or hour < QUIET_UNTIL


def _sellable(products=Product):
    return visible_clause(products) & (products.stock > 0)


def due_carts(session: Session, now: datetime, limit: int = CARTS_PER_SWEEP) -> list[DueCart]:
    """The carts a reminder is due for now, longest untouched first (none in quiet hours, none
    when DD_CART_REMINDER_MINUTES is 0)."""
    minutes = get_settings().messages.cart_reminder_minutes
    if not minutes or quiet_hours(now):
        return []
    cutoff, forgotten = now - timedelta(minutes=minutes), now - FORGET_AFTER
    lines_touched = (select(func.max(CartItem.updated_at)).where(CartItem.cart_id == Cart.id)
                     .correlate(Cart).scalar_subquery())
    sellable_line = exists().where(CartItem.cart_id == Cart.id, Product.id == CartItem.product_id, _sellable())
    rows = session.exec(
        select(Cart.id, Cart.user_id, Cart.updated_at, lines_touched)
        .join(User, User.id == Cart.user_id)
        .outerjoin(NotificationPreference, NotificationPreference.user_id == Cart.user_id)
        .where(
            Cart.updated_at <= cutoff, lines_touched <= cutoff,
            or_(Cart.updated_at > forgotten, lines_touched > forgotten),
            or_(Cart.reminded_at.is_(None),
                and_(Cart.reminded_at <= now - REMIND_AGAIN_AFTER,
                     or_(Cart.reminded_at < Cart.updated_at, Cart.reminded_at < lines_touched))),
            User.is_active == True,
            or_(NotificationPreference.cart_reminders.is_(None), NotificationPreference.cart_reminders == True),
            sellable_line,
        )
        .order_by(Cart.updated_at, Cart.id)
        .limit(limit)
    ).all()
    return [DueCart(cart_id, user_id, max(as_utc(updated), as_utc(touched)))
            for cart_id, user_id, updated, touched in rows]


def has_work(session: Session, now: datetime) -> bool:
    """Whether :func:`remind_carts` would send anything: a read, so that the worker's sweep
    takes no write lock when no cart is due (the usual case)."""
    return bool(due_carts(session, now, limit=1))


def reminder_lines(session: Session, cart_id: str, now: datetime) -> list[texts.ReminderLine]:
    """The cart's lines a shopper can still buy, oldest first, at today's prices, each at most the
    stock left (as the cart page says "Only 2 left": the reminder offers no more than exists)."""
    rows = session.exec(
        select(CartItem.quantity, Product).join(Product, Product.id == CartItem.product_id)
        .where(CartItem.cart_id == cart_id, _sellable()).order_by(CartItem.created_at, CartItem.id)
    ).all()
    return [texts.ReminderLine(product.name, min(quantity, product.stock), product_price(product, now).unit_price)
            for quantity, product in rows]


def reminder_channel(session: Session, user: User) -> tuple[Channel, str] | None:
    """SMS when the customer's order updates text them, else email (None without an address)."""
    for channel, recipient in order_channels(session, user):
        if channel == Channel.SMS and recipient:
            return channel, recipient
    return (Channel.EMAIL, user.email) if user.email else None


def _draft(session: Session, due: DueCart, now: datetime) -> Draft | None:
    user, lines = session.get(User, due.user_id), reminder_lines(session, due.id, now)
    channel = reminder_channel(session, user) if user is not None and lines else None
    if channel is None:
        return None
    common = {"channel": channel[0], "recipient": channel[1], "kind": KIND, "user_id": user.id,
              "dedupe_key": f"cart-reminder:{due.id}:{due.touched_at.isoformat()}"}
    links = links_for(user.id, TOPIC)
    if channel[0] == Channel.SMS:
        return Draft(text=texts.reminder_sms(lines, links), **common)
    email = texts.reminder_email(lines, links)
    return Draft(subject=email.subject, text=email.text, html=email.html, topic=TOPIC, **common)


def remind_carts(session: Session, now: datetime) -> list[str]:
    """Queue one reminder for each due cart (in the caller's transaction) and mark the carts
    reminded; the ids of the messages queued (a cart another worker just reminded adds none)."""
    due = due_carts(session, now)
    drafts = [draft for draft in (_draft(session, cart, now) for cart in due) if draft is not None]
    added = queue_messages(session, drafts)
    if due:
        # Reminded, sent or not (a customer with no address is not looked at again every minute).
        # Written in SQL with updated_at kept: being reminded is not a touch.
        session.execute(
            update(Cart).where(Cart.id.in_([cart.id for cart in due]))
            .values(reminded_at=now, updated_at=Cart.updated_at)
            .execution_options(synchronize_session=False)
        )
    return added
