"""The worker's tasks. Each is safe to run twice or on two hosts at once: the outbox claims
(``services.messages.outbox``) and the deal events' keys make a repeat a no-op."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta

from ..db import session_scope, write_session
from ..services.catalog.price_schedule import refresh_due_prices
from ..models.base import utcnow
from ..services.messages import deals, delivery, reminders
from ..config.settings import get_settings
from .queue import make_huey

log = logging.getLogger("discount_deals.worker")
huey = make_huey()
_sweeping = threading.Lock()
REMINDERS_EVERY_SECONDS = 60.0
_reminders_run_at: float | None = None  # time.monotonic() of this process's last look at carts


def _schedule_retries(report: delivery.DeliveryReport) -> None:
    """A failed message is retried by a sweep at its retry time (one per second of them), not by a
    delivery of that one message: the messages held back with it (its channel was down) are due at
    the same moment, and a claim of the one message by id left them to the sweep, which tried the
    down channel again while the retry did, two attempts at one retry time. The sweep's one claim
    takes them together, the most tried first (``outbox.claim``), and its lock makes a retry that
    meets a sweep of this process running a no-op: that sweep, or the next, sends them."""
    for when in sorted({_on_the_second(when) for _, when in report.retry_at}):
        sweep.schedule(eta=when)


def _on_the_second(when: datetime) -> datetime:
    """``when`` rounded up to its second (Huey's scheduler looks once a second anyway)."""
    return when.replace(microsecond=0) + timedelta(seconds=1) if when.microsecond else when


@huey.task()
def deliver_messages(ids: list[str]) -> int:
    """Deliver these messages (just queued) if they are still due; failed ones come back at their
    retry time, through the sweep."""
    report = delivery.deliver(ids, limit=len(ids))
    _schedule_retries(report)
    return report.sent


def fan_out_and_compose() -> int:
    """Fan new deal events out to their fans, then turn the due alerts into messages in one
    transaction (its commit nudges the deliveries, all at once). Takes no write lock when a
    read finds nothing waiting. The stored prices are brought up to date first: an alert is
    checked against the price shown, and a window that closed since the last sweep ends it."""
    with session_scope() as session:
        if not deals.has_work(session):
            return 0
    while True:
        with write_session() as session:
            fanned = deals.fan_out(session)
        if not fanned:
            break
    refresh_due_prices()
    with write_session() as session:
        return len(deals.compose_due(session))


def remind_carts(now: datetime | None = None) -> int:
    """Queue the reminders of the carts due now in one transaction (its commit nudges their
    delivery); how many. Takes no write lock when a read finds no cart due."""
    now = now or utcnow()
    with session_scope() as session:
        if not reminders.has_work(session, now):
            return 0
    with write_session() as session:
        return len(reminders.remind_carts(session, now))


def remind_carts_now_and_then() -> int:
    """:func:`remind_carts` at most once a minute per process (a sweep comes every few seconds;
    a reminder waits an hour, so a minute late is on time)."""
    global _reminders_run_at
    if _reminders_run_at is not None and time.monotonic() - _reminders_run_at < REMINDERS_EVERY_SECONDS:
        return 0
    _reminders_run_at = time.monotonic()
    return remind_carts()


@huey.task()
def process_deals() -> int:
    composed = fan_out_and_compose()
    window = get_settings().messages.deal_batch_seconds
    if window:
        # The alerts just fanned out are due when their batching window closes.
        compose_later.schedule(delay=window + 1)
    return composed


@huey.task()
def compose_later() -> int:
    return fan_out_and_compose()


@huey.task()
def sweep() -> int:
    """Every few seconds, and at each failed message's retry time: discount windows that opened
    (deal alerts), deal alerts due, cart reminders due (once a minute), and every message due
    (retries, those held back for a channel, and claims of a worker that stopped mid-batch).

    One sweep at a time per process (a thread lock: a lock in the queue's storage would outlive
    a killed worker); sweeps of several processes or hosts are safe together (guarded claims)."""
    if not _sweeping.acquire(blocking=False):
        return 0
    try:
        refresh_due_prices()
        fan_out_and_compose()
        remind_carts_now_and_then()
        report = delivery.deliver_due()
        _schedule_retries(report)
        return report.sent
    finally:
        _sweeping.release()
