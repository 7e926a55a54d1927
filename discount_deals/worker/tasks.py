"""The worker's tasks. Each is safe to run twice or on two hosts at once: the outbox claims
(``services.messages.outbox``) and the deal events' keys make a repeat a no-op."""

from __future__ import annotations

import logging
import threading

from ..db import session_scope, write_session
from ..services.catalog.price_schedule import refresh_due_prices
from ..services.messages import deals, delivery
from ..settings import get_settings
from .queue import make_huey

log = logging.getLogger("discount_deals.worker")
huey = make_huey()
_sweeping = threading.Lock()


def _schedule_retries(report: delivery.DeliveryReport) -> None:
    for message_id, when in report.retry_at:
        deliver_messages.schedule(args=([message_id],), eta=when)


@huey.task()
def deliver_messages(ids: list[str]) -> int:
    """Deliver these messages if they are still due; failed ones come back at their retry time."""
    report = delivery.deliver(ids, limit=len(ids))
    _schedule_retries(report)
    return report.sent


def fan_out_and_compose() -> int:
    """Fan new deal events out to their fans, then turn the due alerts into messages in one
    transaction (its commit nudges the deliveries, all at once). Takes no write lock when a
    read finds nothing waiting."""
    with session_scope() as session:
        if not deals.has_work(session):
            return 0
    while True:
        with write_session() as session:
            fanned = deals.fan_out(session)
        if not fanned:
            break
    with write_session() as session:
        return len(deals.compose_due(session))


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
    """Every few seconds: discount windows that opened (deal alerts), deal alerts due, and every
    message due (retries, and claims of a worker that stopped mid-batch).

    One sweep at a time per process (a thread lock: a lock in the queue's storage would outlive
    a killed worker); sweeps of several processes or hosts are safe together (guarded claims)."""
    if not _sweeping.acquire(blocking=False):
        return 0
    try:
        refresh_due_prices()
        fan_out_and_compose()
        report = delivery.deliver_due()
        _schedule_retries(report)
        return report.sent
    finally:
        _sweeping.release()
