"""Talking to customers: the outbox of messages, their preferences and deal alerts."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Index, Text, UniqueConstraint, true
from sqlmodel import Field, SQLModel

from .base import created_field, id_field, key_column, optional_ref_field, parent_field, updated_field, utcnow


class MessageStatus(StrEnum):
    QUEUED = "queued"  # waiting for a worker (from next_attempt_at on)
    SENDING = "sending"  # claimed by a worker until lease_until
    SENT = "sent"
    FAILED = "failed"  # the last attempt failed: tried again from next_attempt_at
    DEAD = "dead"  # given up (too many attempts, or a recipient that can never work)


class Channel(StrEnum):
    EMAIL = "email"
    SMS = "sms"


class OutboxMessage(SQLModel, table=True):
    """One email or SMS to one recipient, written in the transaction of the event that causes it
    and delivered later by the queue's worker (``services.messages``). The source of truth: the
    queue only carries "deliver these" nudges."""

    __tablename__ = "message"
    __table_args__ = (
        # The worker's claim reads the due messages in this order.
        Index("ix_message_status_next_attempt_at", "status", "next_attempt_at"),
    )

    id: str = id_field()
    user_id: str | None = optional_ref_field("user", index=True)
    channel: str = Field(max_length=8)
    kind: str = Field(max_length=32, index=True)
    recipient: str = Field(max_length=254)
    subject: str = Field(default="", max_length=200)
    body_text: str = Field(sa_column=Column(Text, nullable=False))
    body_html: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    # Which topic the one-click unsubscribe link of an email turns off ("orders", "deals", "account").
    topic: str = Field(default="", max_length=16)
    # One message per cause: e.g. "order:<id>:placed:email"; NULL for messages that may repeat.
    dedupe_key: str | None = Field(default=None, max_length=160, unique=True)
    # The order or product it is about (the back office links to it).
    subject_id: str | None = Field(default=None, max_length=36, index=True)
    status: str = Field(default=MessageStatus.QUEUED.value, max_length=8)
    attempts: int = Field(default=0)
    next_attempt_at: datetime = Field(default_factory=utcnow, nullable=False)
    lease_until: datetime | None = Field(default=None)
    claim_token: str | None = Field(default=None, max_length=64, index=True)
    last_error: str = Field(default="", max_length=500)
    provider_id: str = Field(default="", max_length=120)
    # A secret the text carries (a reset link or code): hidden in the back office, erased once sent.
    secret: bool = Field(default=False)
    created_at: datetime = Field(default_factory=utcnow, nullable=False, index=True)
    sent_at: datetime | None = Field(default=None)
    updated_at: datetime = updated_field()


class NotificationPreference(SQLModel, table=True):
    """How a customer wants to hear from the shop. No row: the defaults (order updates by SMS when
    a phone number is known, else by email; deal alerts off; account notices by email; cart
    reminders on)."""

    __tablename__ = "notification_preference"

    user_id: str = Field(sa_column=key_column("user", ondelete="CASCADE", primary_key=True))
    order_updates: str = Field(default="", max_length=8)  # "sms" | "email" | "both" | "" (the default)
    deal_alerts: str = Field(default="off", max_length=8)  # "off" | "sms" | "email"
    account_email: bool = Field(default=True)  # security notices by email (password changed, locked)
    # One reminder about a cart left behind (SMS or email); existing rows got it on (migration 34c).
    cart_reminders: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    # Deal alerts by SMS come at most once a day, the rest by email: False once the customer
    # unsubscribed from those emails (the texts go on). Existing rows got it on (migration 35d).
    deal_emails: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    updated_at: datetime = updated_field()


class DealEvent(SQLModel, table=True):
    """A favourite-worthy change to a product: its price dropped or it came back in stock.

    Written in the transaction of the change; the worker fans it out to the users who favourited
    the product and opted in (``fanned_out_at``). ``key`` makes a change seen by two workers one
    event."""

    __tablename__ = "deal_event"

    id: str = id_field()
    product_id: str = parent_field("product")
    kind: str = Field(max_length=16)  # "price_drop" | "back_in_stock"
    key: str = Field(max_length=160, unique=True)
    old_price: str = Field(default="", max_length=24)
    new_price: str = Field(default="", max_length=24)
    fanned_out_at: datetime | None = Field(default=None, index=True)
    created_at: datetime = created_field()


class DealAlert(SQLModel, table=True):
    """One user's alert about one event, waiting to be batched into a message (``message_id``)."""

    __tablename__ = "deal_alert"
    __table_args__ = (
        UniqueConstraint("user_id", "event_id"),
        Index("ix_deal_alert_pending", "message_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = parent_field("user", index=False)
    event_id: str = parent_field("deal_event")
    product_id: str = Field(max_length=36)
    message_id: str | None = Field(default=None, max_length=36)
    created_at: datetime = Field(default_factory=utcnow, nullable=False)
