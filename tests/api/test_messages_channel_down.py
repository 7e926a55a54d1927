"""A channel that is down, as the worker meets it: every 5xx of the SMS provider is the provider's
(only 429 and 503 were), the retry task and the sweep try a down channel once per retry time, and
the messages held back for an outage go as soon as the channel carries a message again.

Real servers only: the Hubtel-shaped HTTP server, aiosmtpd, the suite's database, the worker's own
tasks."""

from __future__ import annotations

import threading

import pytest

from discount_deals.models.base import utcnow
from discount_deals.services.messages import delivery
from discount_deals.worker import tasks

from ..builders.messaging import email_to, held_with_the_first, make_all_due, outbox, queue, text_to
from ..support.waiting import until


@pytest.mark.parametrize("status", [500, 502, 504])
def test_a_failing_sms_provider_stops_the_batchs_texts_until_the_retry(messaging, status):
    """Hubtel's 500, 502 or 504 (the provider or its gateway failing) was read as one text's
    failure: each text of the batch was tried, each using up an attempt."""
    messaging.texts.failures[:] = [status] * 3
    queue(*[text_to(f"+23324123456{n}") for n in range(3)], email_to("ama@example.com"))
    report = delivery.deliver()
    assert report.outcomes == {"sent": 1, "failed": 1, "held": 2}
    assert len(messaging.texts.failures) == 2  # one request only
    held_with_the_first("sms")
    messaging.texts.failures.clear()  # the provider is back
    make_all_due()
    delivery.deliver()
    assert sorted((row.status, row.attempts) for row in outbox(channel="sms")) == [("sent", 1), ("sent", 1), ("sent", 2)]


def test_the_retry_and_the_sweep_try_a_down_channel_once_at_its_retry_time(messaging):
    """The retry task claimed its one message by id: the texts held back with it, due at the same
    moment, were left to the sweep, which tried the down channel again while the retry's request
    was out (two requests and two attempts at one retry time; the held text's backoff no longer
    the tried one's)."""
    tasks.huey.flush()
    messaging.texts.failures[:] = [503] * 3
    queue(text_to("+233241234560"), text_to("+233241234561"))
    tasks.sweep.call_local()  # the first try: one text fails, the other is held back with it
    tried = held_with_the_first("sms")
    # What the worker runs at the retry time (its eta, the retry's); the queueing's nudge aside.
    [retry] = [task for task in tasks.huey.pending() if task.name == "sweep"]
    make_all_due()  # the retry time
    messaging.texts.answer_after = 1.0  # Hubtel, still down, answers slowly
    worker = threading.Thread(target=retry.execute)
    worker.start()
    try:
        until(lambda: len(messaging.texts.failures) == 1, "the retry's request")
        tasks.sweep.call_local()  # the sweep comes while the retry's request is out
    finally:
        worker.join(30)
    assert len(messaging.texts.failures) == 1  # one request at that retry time
    assert sorted((row.id == tried.id, row.status, row.attempts) for row in outbox()) == [
        (False, "queued", 0), (True, "failed", 2)]


def test_the_texts_held_back_go_once_the_provider_takes_a_text_again(messaging):
    """Texts held back for an outage waited out the failed one's retry time (an hour here, as
    Hubtel's Retry-After asked) though the provider took a new text a minute later."""
    messaging.texts.failures[:] = [503]
    messaging.texts.retry_after = "3600"
    queue(*[text_to(f"+23324123456{n}") for n in range(3)])
    delivery.deliver()
    tried = held_with_the_first("sms")
    queue(email_to("ama@example.com"))
    assert delivery.deliver().sent == 1  # an email going out says nothing of the texts
    assert delivery.deliver().claimed == 0
    [new] = queue(text_to("+233241234569"))
    assert delivery.deliver([new]).sent == 1  # a new order's text, sent at once: Hubtel is back
    assert delivery.deliver_due().sent == 3  # the held ones, now
    rows = outbox(channel="sms")
    # The woken try cost the tried one no attempt: it counts the one the outage took.
    assert sorted((row.id == tried.id, row.status, row.attempts) for row in rows) == [
        (False, "sent", 1)] * 3 + [(True, "sent", 1)]
    assert len(messaging.texts.texts) == 4


def test_a_flaky_gateway_does_not_spend_a_texts_attempts_in_seconds(messaging, use_settings):
    """Found by a review: a 502 now and then, other texts going between. Each text that went woke
    the held one, the most tried, which met the next 502: its twelve attempts (about 17 hours
    of backoff) were gone in two seconds and the customer never got it."""
    use_settings(DD_MESSAGE_RETRY_SECONDS="30")
    [order_text] = queue(text_to("+233241234560"))
    for n in range(12):
        messaging.texts.failures[:] = [502]
        delivery.deliver_due()  # the order's text, when due (new, or woken), meets a 502
        [row] = [row for row in outbox(channel="sms") if row.id == order_text]
        assert (row.status, row.attempts) == ("failed", 1)  # the first 502's attempt; the wakes' tries are free
        assert row.next_attempt_at > utcnow()
        messaging.texts.failures[:] = []
        [new] = queue(text_to(f"+23324123{n:04d}"))  # another customer's text goes
        assert delivery.deliver([new]).sent == 1
    assert delivery.deliver_due().sent == 1  # and once the gateway holds, it goes
