"""Messaging builders and fixtures for the message tests: a real SMTP server (aiosmtpd) and a
Hubtel-shaped HTTP server, the settings pointed at them, the worker's delivery run in the test's
thread, and the outbox and preferences rows."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.config.settings import get_settings
from discount_deals.services.messages import delivery

from ..support.mail import HubtelServer, Mailbox, SmsOutbox, SmtpServer

PUBLIC_URL = "https://deals.example"


@dataclass
class Messaging:
    mailbox: Mailbox
    texts: SmsOutbox

    def deliver(self) -> delivery.DeliveryReport:
        """What the worker does: every due message, sent now."""
        return delivery.deliver_due()


@pytest.fixture(scope="session")
def mail_servers() -> Iterator[tuple[SmtpServer, HubtelServer]]:
    with SmtpServer() as smtp, HubtelServer() as hubtel:
        yield smtp, hubtel


@pytest.fixture
def messaging(mail_servers, monkeypatch, clean_db) -> Iterator[Messaging]:
    smtp, hubtel = mail_servers
    smtp.mailbox.clear()
    smtp.mailbox.refuse.clear()
    smtp.mailbox.refuse_message.clear()
    smtp.mailbox.reply_after = 0.0
    smtp.mailbox.hold_after = None
    hubtel.outbox.texts.clear()
    hubtel.outbox.failures.clear()
    hubtel.outbox.retry_after = ""
    hubtel.outbox.answer_after = 0.0
    for name, value in {**smtp.environment(), **hubtel.environment(), "DD_PUBLIC_URL": PUBLIC_URL,
                        "DD_MESSAGE_RETRY_SECONDS": "1"}.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield Messaging(smtp.mailbox, hubtel.outbox)
    get_settings.cache_clear()


def outbox(**where) -> list[models.OutboxMessage]:
    with session_scope() as session:
        query = select(models.OutboxMessage)
        for name, value in where.items():
            query = query.where(getattr(models.OutboxMessage, name) == value)
        return list(session.exec(query.order_by(models.OutboxMessage.created_at)).all())


def set_preferences(user: models.User, **values) -> None:
    with session_scope() as session:
        row = session.get(models.NotificationPreference, user.id) or models.NotificationPreference(user_id=user.id)
        for name, value in values.items():
            setattr(row, name, value)
        session.add(row)
