"""A channel that is down, as the worker meets it: every 5xx of the SMS provider is the provider's
(only 429 and 503 were), the retry task and the sweep try a down channel once per retry time, and
the messages held back for an outage go as soon as the channel carries a message again.

Real servers only: the Hubtel-shaped HTTP server, aiosmtpd, the suite's database, the worker's own
tasks."""

from __future__ import annotations

import pytest

from discount_deals.services.messages import delivery

from ..builders.messaging import email_to, held_with_the_first, make_all_due, outbox, queue, text_to


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
