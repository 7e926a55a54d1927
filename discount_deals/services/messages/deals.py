"""Deal alerts on favourites (opt-in): a favourite's price dropped, or it is back in stock.

1. The change records a :class:`~discount_deals.models.DealEvent` in its own transaction
   (:func:`price_changed`, :func:`stock_changed`, :func:`window_drops`); its ``key`` makes the
   same change seen twice (two workers refreshing prices) one event.
2. The worker fans each event out (:func:`fan_out`): one INSERT ... SELECT gives every user who
   favourited the product and switched alerts on one :class:`~discount_deals.models.DealAlert`
   (unique per user and event: one alert per product per event).
3. Once a user's oldest waiting alert is DD_DEAL_ALERT_BATCH_SECONDS old, their waiting alerts
   become one message (:func:`compose_due`): by SMS at most once a day, else an email digest.
   Each alert is checked then (:func:`still_a_deal`): a product hidden since, priced up again or
   sold out again is left out.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import bindparam, func, literal, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, select

from ...models import (Channel, DealAlert, DealEvent, Favourite, NotificationPreference, OutboxMessage, Product,
                       User)
from ...models.base import utcnow
from ...config.settings import get_settings
from ..catalog.filters import is_visible
from ..phones import mobile_number
from ..money import Money
from ..pricing import product_price
from . import templates
from .notices import links_for
from .outbox import Draft, bulk_queue

NEW_DEAL_EVENTS = "dd_new_deal_events"
PRICE_DROP, BACK_IN_STOCK = "price_drop", "back_in_stock"
USERS_PER_CHUNK = 500


def _insert(session: Session):
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def record_event(session: Session, product_id: str, kind: str, key: str, old: str = "", new: str = "") -> None:
    """Add one deal event to the caller's transaction (nothing when ``key`` was recorded before)."""
    session.execute(
        _insert(session)(DealEvent)
        .values(id=str(uuid.uuid4()), product_id=product_id, kind=kind, key=key[:160], old_price=old, new_price=new,
                created_at=utcnow())
        .on_conflict_do_nothing()
    )
    session.info.setdefault(NEW_DEAL_EVENTS, []).append(key)


def snapshot(product: Product) -> tuple[Decimal, int]:
    """What a change is compared with: the unit price now and the stock."""
    return product_price(product).unit_price, product.stock


def price_changed(session: Session, product: Product, before: tuple[Decimal, int]) -> None:
    """After an admin edit: a lower price now, or stock back from zero, is a deal event."""
    price, stock = snapshot(product)
    if price < before[0]:
        record_event(session, product.id, PRICE_DROP, f"edit:{uuid.uuid4().hex}", str(before[0]), str(price))
    stock_changed(session, product.id, before[1], stock)


def stock_changed(session: Session, product_id: str, before: int, after: int) -> None:
    """Stock back from zero (an edit, a restock, a cancelled order) is a deal event."""
    if before <= 0 < after:
        record_event(session, product_id, BACK_IN_STOCK, f"stock:{uuid.uuid4().hex}")


def window_drops(session: Session, drops: list[tuple[str, Decimal, Decimal, datetime | None]]) -> None:
    """Discount windows that opened (``services.catalog.price_schedule``): ``(product id, old
    price, new price, the moment that was due)``; the moment keys the event."""
    for product_id, old, new, moment in drops:
        if new < old:
            record_event(session, product_id, PRICE_DROP, f"window:{product_id}:{moment}", str(old), str(new))


# --- the worker's side -------------------------------------------------------------------------


def fan_out(session: Session, limit: int = 100) -> int:
    """Give each opted-in user who favourited an event's product an alert; how many events."""
    events = session.exec(select(DealEvent).where(DealEvent.fanned_out_at.is_(None))
                          .order_by(DealEvent.created_at).limit(limit)).all()
    now = utcnow()
    for event in events:
        fans = (
            select(Favourite.user_id, literal(event.id), literal(event.product_id), literal(now))
            .join(NotificationPreference, NotificationPreference.user_id == Favourite.user_id)
            .join(User, User.id == Favourite.user_id)
            .where(Favourite.product_id == event.product_id, NotificationPreference.deal_alerts != "off",
                   User.is_active == True)
        )
        session.execute(
            _insert(session)(DealAlert)
            .from_select(["user_id", "event_id", "product_id", "created_at"], fans)
            .on_conflict_do_nothing()
        )
        event.fanned_out_at = now
        session.add(event)
    session.flush()
    return len(events)


def has_work(session: Session, now: datetime | None = None) -> bool:
    """Whether :func:`fan_out` or :func:`compose_due` would do anything: a read, so that the
    worker's sweep takes no write lock when nothing waits (the usual case)."""
    waiting = session.exec(select(DealEvent.id).where(DealEvent.fanned_out_at.is_(None)).limit(1)).first()
    return waiting is not None or bool(due_users(session, now or utcnow(), 1))


def due_users(session: Session, now: datetime, limit: int) -> list[str]:
    """Users whose oldest waiting alert has waited the batching window."""
    cutoff = now - timedelta(seconds=get_settings().messages.deal_batch_seconds)
    return list(session.exec(
        select(DealAlert.user_id).where(DealAlert.message_id.is_(None)).group_by(DealAlert.user_id)
        .having(func.min(DealAlert.created_at) <= cutoff).limit(limit)
    ).all())


def compose_due(session: Session, now: datetime | None = None) -> list[str]:
    """Turn every due user's waiting alerts into one message each (in the caller's transaction,
    :data:`USERS_PER_CHUNK` users at a time); the new message ids."""
    now = now or utcnow()
    composed: list[str] = []
    while True:
        users = due_users(session, now, USERS_PER_CHUNK)
        if not users:
            return composed
        composed += _compose_for(session, users, now)


@dataclass(frozen=True)
class _Fan:
    id: str
    email: str
    phone: str | None
    choice: str  # the user's deal_alerts preference
    emails: bool = True  # the day's further alerts by email (NotificationPreference.deal_emails)


def _compose_for(session: Session, users: list[str], now: datetime) -> list[str]:
    rows = session.exec(
        select(DealAlert.id, DealAlert.user_id, Product, DealEvent.kind, DealEvent.new_price)
        .join(Product, Product.id == DealAlert.product_id).join(DealEvent, DealEvent.id == DealAlert.event_id)
        .where(DealAlert.user_id.in_(users), DealAlert.message_id.is_(None))
        # Oldest event first, so the latest of a product wins; one sweep writes its alerts with one
        # time, so the alert's own number breaks the tie (PostgreSQL returns ties in any order).
        .order_by(DealAlert.user_id, DealEvent.created_at, DealAlert.id)
    ).all()
    texted_today = set(session.exec(
        select(OutboxMessage.user_id).where(OutboxMessage.user_id.in_(users), OutboxMessage.kind == "deal_alert",
                                            OutboxMessage.channel == Channel.SMS.value,
                                            OutboxMessage.created_at > now - timedelta(days=1))
    ).all())
    fans = {
        user_id: _Fan(user_id, email, mobile_number(phone) if choice == "sms" else None, choice, emails)
        for user_id, email, phone, choice, emails in session.exec(
            select(User.id, User.email, User.phonenumber, NotificationPreference.deal_alerts,
                   NotificationPreference.deal_emails)
            .join(NotificationPreference, NotificationPreference.user_id == User.id)
            .where(User.id.in_(users), User.is_active == True)
        ).all()
    }
    by_user: dict[str, tuple[list[int], dict[str, templates.DealLine]]] = {}
    for alert_id, user_id, product, kind, new_price in rows:
        ids, lines = by_user.setdefault(user_id, ([], {}))
        ids.append(alert_id)  # answered either way: a deal that is over is not told later either
        if not still_a_deal(product, kind, new_price):
            lines.pop(product.id, None)
            continue
        price = Money.of(Decimal(new_price)) if kind == PRICE_DROP and new_price else None
        lines[product.id] = templates.DealLine(product.id, product.name, kind, price)  # the latest per product
    planned = [(user_id, ids, _draft(fans.get(user_id), list(lines.values()), sms_allowed=user_id not in texted_today))
               for user_id, (ids, lines) in by_user.items()]
    added = bulk_queue(session, [draft for _u, _i, draft in planned if draft is not None])
    new_ids = iter(added)
    table = DealAlert.__table__
    session.connection().execute(
        update(table).where(table.c.user_id == bindparam("uid"), table.c.message_id.is_(None),
                            table.c.id <= bindparam("top")).values(message_id=bindparam("mid")),
        [{"uid": user_id, "top": max(ids), "mid": next(new_ids) if draft is not None else "none"}
         for user_id, ids, draft in planned],
    )
    return added


def still_a_deal(product: Product, kind: str, new_price: str) -> bool:
    """Whether an alert is still true when it is written: the product is still shown to shoppers
    (an admin may have hidden it since), and still at most the dropped price, or still in stock."""
    if not is_visible(product):
        return False
    if kind == PRICE_DROP:
        # The price shown now (``effective_price``, which the price schedule moves as windows open
        # and close): a window that closed since the event ends the deal.
        return not new_price or product.effective_price <= Decimal(new_price)
    return product.stock > 0


def _draft(fan: _Fan | None, deals: list[templates.DealLine], *, sms_allowed: bool) -> Draft | None:
    if fan is None or fan.choice == "off" or not deals:
        return None
    common = {"kind": "deal_alert", "user_id": fan.id, "subject_id": deals[0].product_id}
    if fan.choice == "sms" and fan.phone and sms_allowed:
        return Draft(channel=Channel.SMS, recipient=fan.phone, text=templates.deal_sms(deals), **common)
    if not fan.emails:
        return None  # unsubscribed from the emails: the day's one text is all
    email = templates.deal_email(deals, links_for(fan.id, "deals"))
    return Draft(channel=Channel.EMAIL, recipient=fan.email, subject=email.subject, text=email.text,
                 html=email.html, topic="deals", **common)
