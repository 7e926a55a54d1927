"""Delivering the outbox: claim a batch, send each message, record each outcome at once.

Owns its transactions: :func:`deliver` and :func:`deliver_due`. They run in the worker, never in
a request: the claim commits before anything is sent (no transaction, and on SQLite no write
lock, is held across SMTP or an SMS provider), and each message's outcome commits right after
its send, so a worker killed mid-batch has recorded every message it sent. The messages it had
claimed but not sent become due again when its lease runs out (another worker, or this one
restarted, sends them); only the one message in flight at the kill can be ambiguous, and it
carries a stable Message-ID / ClientReference (see :mod:`.transports`).

**The claim lasts while the send does.** From the claim to the batch's end a heartbeat
(:class:`Heartbeat`: a thread, each beat a short write transaction of its own) extends the lease of
the batch's messages still claimed, every third of DD_MESSAGE_LEASE_SECONDS, and stops in the
``finally`` that ends the batch. However long one send takes (a server answering each SMTP step
just within DD_MESSAGE_TIMEOUT_SECONDS, a body trickled, a slow Hubtel), no other worker can claim
its message meanwhile and send it again. The lease was renewed only between messages, so one slow
conversation outlasted it and a second worker sent the email again. We chose the heartbeat over a
deadline for the conversation below the lease: such a deadline has to allow for the time since the
last renewal, the database's own waits (SQLite's write lock) and the hosts' clocks, any of which
brings the duplicate back; it would cut off slow but working servers; and every transport would need
one of its own. The heartbeat holds whatever the transport and the settings. A worker that dies
takes its heartbeat with it, and its claims come back when their lease ends, as before.

**A channel that is down.** When a failure says the channel is down (``SendFailed.channel_down``:
the server cannot be reached or refused our login, Hubtel's 429 or any 5xx), no other message of that
channel is tried: :func:`.outbox.hold_back` hands the batch's others back, due at the failed one's
retry time without an attempt counted, and the batch goes on with its other channels. An outage
so costs one attempt per retry instead of one per message. **A channel that is back** (a message
of it went out, confirmed, in any batch) brings what was held back for it forward: due now
(:func:`.outbox.channel_back`, once per channel a batch), not at a retry time that may be an hour
off (a provider's ``Retry-After``) or hours (deep into the backoff).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection
from sqlmodel import select

from ...db import get_engine, session_scope, write_session
from ...models import Channel, MessageStatus, OutboxMessage
from ...models.base import utcnow
from ...config.settings import get_settings
from .outbox import anything_due, channel_back, claim, claimed, hold_back, next_try, release, renew, settle
from .transports import SendFailed, SendUnconfirmed, Transport, email_transport, sms_transport

log = logging.getLogger("discount_deals.messages")
# What one send says of its channel (else ""): down (the rest of it goes back), or up (it carried a
# message, confirmed: what was held back for it is due now).
CHANNEL_DOWN, CHANNEL_UP = "down", "up"


@dataclass
class DeliveryReport:
    claimed: int = 0
    outcomes: Counter = field(default_factory=Counter)  # by status; "held": handed back untried (channel down)
    retry_at: list[tuple[str, datetime]] = field(default_factory=list)  # failed messages and when to retry
    woken: int = 0  # messages held back for a channel made due now, the channel being back

    @property
    def sent(self) -> int:
        return self.outcomes[MessageStatus.SENT.value]


def _transport(channel: str) -> Transport:
    return sms_transport() if channel == Channel.SMS.value else email_transport()


class Heartbeat:
    """Keeps a claim alive while its batch is in hand: every third of the lease, a write
    transaction of its own extends the lease of the claim's messages still being sent (see the
    module docstring). ``with Heartbeat(token):`` starts it; leaving the block stops it.

    Owns its transactions: one per beat, on its own thread."""

    def __init__(self, token: str):
        self.token = token
        self.every = get_settings().messages.lease_seconds / 3
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{token[:8]}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        """The beats. Owns its transactions: one short write transaction a beat (see the class)."""
        while not self._stop.wait(self.every):
            try:
                with write_session() as session:
                    renew(session, self.token)
            except Exception:  # the next beat tries again: the lease has room for two more
                log.exception("could not extend the lease of claim %s", self.token)


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
    with Heartbeat(token):
        try:
            _send_batch(batch, token, transports, report)
        finally:
            for transport in transports.values():
                transport.close()
            with write_session() as session:
                release(session, token)  # anything not reached (the worker is stopping)
    return report


def _send_batch(batch: list[OutboxMessage], token: str, transports: dict[str, Transport],
                report: DeliveryReport) -> None:
    """Send the claimed batch, skipping a channel once it is down, and bringing forward what was
    held back for a channel once it carries a message (the first time a batch).

    Owns its transactions: one per message, and one per channel found back."""
    down: set[str] = set()  # channels whose remaining messages were handed back
    back: set[str] = set()  # channels whose held-back messages were made due
    engine = get_engine()
    if engine.dialect.name == "sqlite":
        engine = engine.execution_options(sqlite_begin="IMMEDIATE")
    # One connection records the whole batch (a transaction per message on it: a Session per
    # message cost more than the send itself).
    with engine.connect() as connection:
        for message in batch:
            if message.channel in down:
                continue
            news = _send_one(connection, message, token, transports, report)
            if news == CHANNEL_DOWN:
                down.add(message.channel)
            elif news == CHANNEL_UP and message.channel not in back:
                back.add(message.channel)
                _bring_forward(connection, message.channel, report)


def _bring_forward(connection: Connection, channel: str, report: DeliveryReport) -> None:
    """:func:`.outbox.channel_back` for ``channel``. Owns its transactions: one of its own, after
    the send's was committed, so that its failure (a lock it waited too long for) loses no outcome:
    what it did not bring forward stays due at its retry time."""
    try:
        with connection.begin():
            report.woken += channel_back(connection, channel)
    except Exception:
        log.exception("could not bring forward the messages held back for %s", channel)


def _send_one(connection: Connection, message: OutboxMessage, token: str, transports: dict[str, Transport],
              report: DeliveryReport) -> str:
    """Send one claimed message and record its outcome; what it says of its channel:
    ``CHANNEL_DOWN`` (the claim's other messages of that channel are then handed back, in the same
    transaction), ``CHANNEL_UP`` (it went out, confirmed), else "".

    Owns its transactions: the outcome commits in one of its own right after the send."""
    error, permanent, provider_id, retry_after, note, down = "", False, "", 0, "", False
    try:
        transport = transports.get(message.channel)
        if transport is None:
            transport = transports[message.channel] = _transport(message.channel)
        provider_id = transport.send(message)
    except SendUnconfirmed as exc:
        provider_id, note = "unconfirmed", exc.detail  # sent, not again: see SendUnconfirmed
    except SendFailed as exc:
        error, permanent, retry_after, down = exc.detail, exc.permanent, exc.retry_after, exc.channel_down
    except Exception as exc:  # a bug in a transport must not lose the batch
        log.exception("sending message %s failed", message.id)
        error = f"{exc.__class__.__name__}: {exc}"[:300]
    with connection.begin():
        status = settle(connection, message.id, token, error=error, permanent=permanent, provider_id=provider_id,
                        retry_after=retry_after, note=note, channel_down=down)
        retry_at = None
        if status == MessageStatus.FAILED.value:
            due = select(OutboxMessage.next_attempt_at).where(OutboxMessage.id == message.id)
            retry_at = connection.execute(due).scalar_one()
            report.retry_at.append((message.id, retry_at))
        if down:  # the others wait for its retry; when it has none (dead), for a first retry's
            until = retry_at or next_try(1, utcnow(), retry_after)
            held = hold_back(connection, token, message.channel, until)
            if held:
                report.outcomes["held"] += held
    if error:
        log.warning("message %s (%s to %s) %s%s: %s", message.id, message.kind, message.channel, status,
                    ", its channel is down" if down else "", error)
    report.outcomes[status or "lost"] += 1
    if down:
        return CHANNEL_DOWN
    # An unconfirmed send (its answer never came) says nothing of the channel.
    return CHANNEL_UP if status == MessageStatus.SENT.value and not note else ""


def deliver_due(max_batches: int = 1000) -> DeliveryReport:
    """Deliver every due message, batch after batch, until none is left (the sweep, tests).

    Owns its transactions: those of :func:`deliver`."""
    total = DeliveryReport()
    for _ in range(max_batches):
        report = deliver()
        total.claimed += report.claimed
        total.outcomes.update(report.outcomes)
        total.retry_at += report.retry_at
        total.woken += report.woken
        if report.claimed == 0:
            break
    return total
