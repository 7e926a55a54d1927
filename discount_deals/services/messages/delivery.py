"""Delivering the outbox: claim a batch, send each message, record each outcome at once.

Owns its transactions: :func:`deliver` and :func:`deliver_due`. They run in the worker, never in
a request: the claim commits before anything is sent (no transaction, and on SQLite no write
lock, is held across SMTP or an SMS provider), and each message's outcome commits right after
its send, so a worker killed mid-batch has recorded every message it sent. The messages it had
claimed but not sent become due again when its lease runs out (another worker, or this one
restarted, sends them); only the one message in flight at the kill can be ambiguous, and it
carries a stable Message-ID / ClientReference (see :mod:`.transports`).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection
from sqlmodel import select

from ...db import get_engine, session_scope, write_session
from ...models import Channel, MessageStatus, OutboxMessage
from ...config.settings import get_settings
from .outbox import anything_due, claim, claimed, release, settle
from .transports import SendFailed, SendUnconfirmed, Transport, email_transport, sms_transport

log = logging.getLogger("discount_deals.messages")


@dataclass
class DeliveryReport:
    claimed: int = 0
    outcomes: Counter = field(default_factory=Counter)
    retry_at: list[tuple[str, datetime]] = field(default_factory=list)  # failed messages and when to retry

    @property
    def sent(self) -> int:
        return self.outcomes[MessageStatus.SENT.value]


def _transport(channel: str) -> Transport:
    return sms_transport() if channel == Channel.SMS.value else email_transport()


def deliver(ids: list[str] | None = None, *, limit: int | None = None) -> DeliveryReport:
    """Claim up to ``limit`` (DD_MESSAGE_BATCH_SIZE) due messages, of ``ids`` when given, and
    send them, one connection per channel.

    Owns its transactions: see the module docstring."""
    limit = limit or get_settings().messages.batch_size
    with session_scope() as session:
        if not anything_due(session, ids=ids):
            return DeliveryReport()
    with write_session() as session:
        token = claim(session, ids=ids, limit=limit)
        batch = claimed(session, token) if token else []
        for message in batch:
            session.expunge(message)
    report = DeliveryReport(claimed=len(batch))
    if not batch:
        return report
    transports: dict[str, Transport] = {}
    renew_every = get_settings().messages.lease_seconds / 3
    renewed = time.monotonic()
    engine = get_engine()
    if engine.dialect.name == "sqlite":
        engine = engine.execution_options(sqlite_begin="IMMEDIATE")
    try:
        # One connection records the whole batch (a transaction per message on it: a Session per
        # message cost more than the send itself).
        with engine.connect() as connection:
            for message in batch:
                # The rest of the batch's lease is extended now and then, not after every message.
                renew = time.monotonic() - renewed >= renew_every
                renewed = time.monotonic() if renew else renewed
                _send_one(connection, message, token, transports, report, renew)
    finally:
        for transport in transports.values():
            transport.close()
        with write_session() as session:
            release(session, token)  # anything not reached (the worker is stopping)
    return report


def _send_one(connection: Connection, message: OutboxMessage, token: str, transports: dict[str, Transport],
              report: DeliveryReport, renew: bool) -> None:
    """Send one claimed message and record its outcome.

    Owns its transactions: the outcome commits in one of its own right after the send."""
    error, permanent, provider_id, retry_after, note = "", False, "", 0, ""
    try:
        transport = transports.get(message.channel)
        if transport is None:
            transport = transports[message.channel] = _transport(message.channel)
        provider_id = transport.send(message)
    except SendUnconfirmed as exc:
        provider_id, note = "unconfirmed", exc.detail  # sent, not again: see SendUnconfirmed
    except SendFailed as exc:
        error, permanent, retry_after = exc.detail, exc.permanent, exc.retry_after
    except Exception as exc:  # a bug in a transport must not lose the batch
        log.exception("sending message %s failed", message.id)
        error = f"{exc.__class__.__name__}: {exc}"[:300]
    with connection.begin():
        status = settle(connection, message.id, token, error=error, permanent=permanent, provider_id=provider_id,
                        renew=renew, retry_after=retry_after, note=note)
        if status == MessageStatus.FAILED.value:
            due = select(OutboxMessage.next_attempt_at).where(OutboxMessage.id == message.id)
            report.retry_at.append((message.id, connection.execute(due).scalar_one()))
    if error:
        log.warning("message %s (%s to %s) %s: %s", message.id, message.kind, message.channel, status, error)
    report.outcomes[status or "lost"] += 1


def deliver_due(max_batches: int = 1000) -> DeliveryReport:
    """Deliver every due message, batch after batch, until none is left (the sweep, tests).

    Owns its transactions: those of :func:`deliver`."""
    total = DeliveryReport()
    for _ in range(max_batches):
        report = deliver()
        total.claimed += report.claimed
        total.outcomes.update(report.outcomes)
        total.retry_at += report.retry_at
        if report.claimed == 0:
            break
    return total
