"""Messaging builders and fixtures for the message tests: a real SMTP server (aiosmtpd) and a
Hubtel-shaped HTTP server, the settings pointed at them, the worker's delivery run in the test's
thread, and the outbox and preferences rows. :class:`MailServer` is a real SMTP server that is
slow (a :class:`SlowMailbox`) or refuses every login."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from sqlalchemy import update
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.config.settings import get_settings
from discount_deals.models.base import utcnow
from discount_deals.services.messages import delivery, outbox as outbox_service
from discount_deals.services.messages.outbox import Draft

from ..support.mail import HubtelServer, Mailbox, SmsOutbox, SmtpServer
from ..support.servers import free_port

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


@dataclass
class SlowMailbox(Mailbox):
    """A slow mail server: the first recipient's answer waits until ``go`` is set (``waiting`` says
    the server is holding it); every later step answers at once."""

    waiting: threading.Event = field(default_factory=threading.Event)
    go: threading.Event = field(default_factory=threading.Event)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not self.waiting.is_set():
            self.waiting.set()
            while not self.go.is_set():
                await asyncio.sleep(0.01)
        return await super().handle_RCPT(server, session, envelope, address, rcpt_options)


class MailServer(SmtpServer):
    """``with MailServer(...) as smtp:`` a real SMTP server on loopback with the given mailbox;
    ``refuse_login``: it offers AUTH and refuses every login (535); ``logins``: the connections
    that tried (smtplib tries each mechanism the server offers on one connection)."""

    USER, PASSWORD = "shop", "rotated-yesterday"

    def __init__(self, mailbox: Mailbox | None = None, *, refuse_login: bool = False):
        self.mailbox = mailbox or Mailbox()
        self.port = free_port()
        self.refuse_login = refuse_login
        self._peers: set = set()
        options = {"authenticator": self._refuse, "auth_require_tls": False} if refuse_login else {}
        self._controller = Controller(self.mailbox, hostname="127.0.0.1", port=self.port, **options)

    def _refuse(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        self._peers.add(session.peer)
        return AuthResult(success=False, handled=False)

    @property
    def logins(self) -> int:
        return len(self._peers)

    def environment(self) -> dict[str, str]:
        login = {"DD_SMTP_USER": self.USER, "DD_SMTP_PASSWORD": self.PASSWORD} if self.refuse_login else {}
        return {**super().environment(), **login}


# --- the outbox as the worker meets it (the channel-down tests) ----------------------------------


def queue(*drafts: Draft) -> list[str]:
    """Messages written to the outbox as an event's transaction writes them; their ids."""
    with session_scope() as session:
        return outbox_service.queue_messages(session, list(drafts))


def text_to(number: str) -> Draft:
    return Draft(channel="sms", recipient=number, kind="order_ready", text="Your order is ready for pickup.")


def email_to(to: str, **fields) -> Draft:
    return Draft(channel="email", recipient=to, kind="order_ready", subject="Ready for pickup", text="Hi", **fields)


def make_all_due() -> None:
    """Whatever waits (a backoff, a channel held back) is due now: the clock moved on."""
    with session_scope() as session:
        session.execute(update(models.OutboxMessage).where(models.OutboxMessage.status.in_(["queued", "failed"]))
                        .values(next_attempt_at=utcnow()))


def held_with_the_first(channel: str) -> models.OutboxMessage:
    """The channel's one message tried (failed, one attempt); the others of it, not tried, due
    with it: the tried one."""
    rows = outbox(channel=channel)
    [tried] = [row for row in rows if row.attempts == 1]
    assert tried.status == "failed" and tried.next_attempt_at > utcnow()
    assert [(row.status, row.attempts, row.next_attempt_at) for row in rows if row is not tried] == [
        ("queued", 0, tried.next_attempt_at)] * (len(rows) - 1)
    return tried
