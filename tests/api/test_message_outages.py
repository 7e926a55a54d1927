"""Delivery through a slow or failing provider, found by a probe: one SMTP conversation that
outlasts the worker's lease, a channel that is down (a refused login or connection, Hubtel's 429
or 503), an outage of hours with the default schedule, and a long subject beyond ASCII.

Real servers only: aiosmtpd on loopback (slow, or refusing every login), nothing listening on a
port, and the Hubtel-shaped HTTP server."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from discount_deals.models.base import utcnow
from discount_deals.services.messages import delivery
from discount_deals.services.messages.outbox import Draft

from ..builders.messaging import (
    MailServer, SlowMailbox, email_to, held_with_the_first, make_all_due, outbox, queue, text_to,
)
from ..support.servers import closed_port


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_a_send_slower_than_the_lease_keeps_its_claim(messaging, use_settings):
    """The lease was renewed only between messages: one slow SMTP conversation outlasted it, a
    second worker claimed the message meanwhile and the customer got the email twice."""
    with MailServer(SlowMailbox()) as smtp:
        use_settings(**smtp.environment(), DD_MESSAGE_LEASE_SECONDS="2")
        queue(email_to("ama@example.com"))
        reports: list[delivery.DeliveryReport] = []
        first = threading.Thread(target=lambda: reports.append(delivery.deliver()))
        first.start()
        try:
            assert smtp.mailbox.waiting.wait(10), "the first worker never reached the server"
            [claimed] = outbox()
            # No event marks a lease running out: the clock must pass it.
            time.sleep((aware(claimed.lease_until) - utcnow()).total_seconds() + 0.5)
            second = delivery.deliver()  # another worker looks for due work while the send goes on
            [during] = outbox()
        finally:
            smtp.mailbox.go.set()
            first.join(30)
        assert second.claimed == 0
        assert during.status == "sending" and aware(during.lease_until) > aware(claimed.lease_until)  # renewed
        assert reports[0].sent == 1
        [row] = outbox()
        assert (row.status, row.attempts, row.lease_until) == ("sent", 1, None)
        assert len(smtp.mailbox.messages) == 1


@pytest.fixture(params=["login refused", "connection refused"])
def mail_down(request, messaging, use_settings):
    """An SMTP server that refuses the shop's login, or nothing listening at DD_SMTP_PORT."""
    if request.param == "connection refused":
        use_settings(DD_SMTP_PORT=str(closed_port()))
        yield None
        return
    with MailServer(refuse_login=True) as smtp:
        use_settings(**smtp.environment())
        yield smtp


def test_email_that_is_down_stops_the_batchs_email_not_its_texts(messaging, mail_down):
    """A refused login or connection was met once per message, each using up an attempt."""
    queue(*[email_to(f"shopper{n}@example.com") for n in range(3)], text_to("+233241234567"))
    report = delivery.deliver()
    assert (report.claimed, report.outcomes) == (4, {"failed": 1, "held": 2, "sent": 1})
    if mail_down is not None:
        assert mail_down.logins == 1
    held_with_the_first("email")
    assert [(row.status, row.attempts) for row in outbox(channel="sms")] == [("sent", 1)]
    assert delivery.deliver().claimed == 0  # nothing of the channel before the retry time


@pytest.mark.parametrize("status, retry_after", [(429, ""), (429, "120"), (503, ""), (503, "120")])
def test_a_busy_sms_provider_stops_the_batchs_texts_until_the_retry(messaging, status, retry_after):
    """A 429 or 503 from Hubtel was met once per text, each using up an attempt."""
    messaging.texts.failures[:] = [status] * 3
    messaging.texts.retry_after = retry_after
    queue(*[text_to(f"+23324123456{n}") for n in range(3)], email_to("ama@example.com"))
    delivery.deliver()
    assert len(messaging.texts.failures) == 2  # one request only
    tried = held_with_the_first("sms")
    assert tried.next_attempt_at - tried.updated_at >= timedelta(seconds=int(retry_after or 1))
    assert [row.status for row in outbox(channel="email")] == ["sent"]
    messaging.texts.failures.clear()  # the provider is back
    make_all_due()
    delivery.deliver()
    rows = outbox(channel="sms")
    assert sorted((row.status, row.attempts) for row in rows) == [("sent", 1), ("sent", 1), ("sent", 2)]
    assert len(messaging.texts.texts) == 3


@pytest.mark.parametrize("down", ["unreachable", "credentials refused"])
def test_an_sms_provider_unreachable_or_refusing_the_shop_stops_the_batchs_texts(messaging, use_settings, down):
    if down == "unreachable":
        use_settings(DD_HUBTEL_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    else:
        use_settings(DD_HUBTEL_CLIENT_SECRET="rotated-yesterday")
    queue(*[text_to(f"+23324123456{n}") for n in range(3)], email_to("ama@example.com"))
    delivery.deliver()
    held_with_the_first("sms")
    assert [row.status for row in outbox(channel="email")] == ["sent"]


def test_a_channel_down_puts_off_its_waiting_messages_not_in_the_batch(messaging):
    """Messages of the channel due before the retry time, claimed by no one, wait for it too: a
    queue longer than a batch was otherwise tried batch by batch, one attempt each."""
    messaging.texts.failures[:] = [503, 503]
    first, waiting = queue(text_to("+233241234560"), text_to("+233241234561"))
    delivery.deliver([first])  # a batch of one (the worker's nudge for it)
    rows = {row.id: row for row in outbox()}
    assert rows[first].status == "failed"
    assert (rows[waiting].status, rows[waiting].attempts) == ("queued", 0)
    assert rows[waiting].next_attempt_at == rows[first].next_attempt_at
    assert delivery.deliver().claimed == 0 and len(messaging.texts.failures) == 1


def test_when_the_message_tried_dies_the_others_wait_a_first_retry(messaging, use_settings):
    """Its last attempt spent, the one tried has no retry time: the others wait as long as a first
    retry (DD_MESSAGE_RETRY_SECONDS, 1 s here), untried, and keep all their attempts."""
    use_settings(DD_MESSAGE_MAX_ATTEMPTS="1")
    messaging.texts.failures[:] = [503] * 3
    queue(*[text_to(f"+23324123456{n}") for n in range(3)])
    before = utcnow()
    delivery.deliver()
    rows = outbox()
    assert sorted((row.status, row.attempts) for row in rows) == [("dead", 1), ("queued", 0), ("queued", 0)]
    waiting = [aware(row.next_attempt_at) for row in rows if row.status == "queued"]
    assert all(before + timedelta(seconds=1) <= moment <= utcnow() + timedelta(seconds=1) for moment in waiting)
    assert len(messaging.texts.failures) == 2


def test_order_updates_outlive_an_outage_of_hours_with_the_default_schedule(messaging, use_settings):
    """With the defaults (6 attempts, 30 s doubled) an outage longer than 15.5 minutes left order
    updates dead, and each text in the queue used up an attempt on every retry."""
    use_settings(DD_MESSAGE_RETRY_SECONDS=None, DD_MESSAGE_MAX_ATTEMPTS=None)  # the defaults
    messaging.texts.failures[:] = [503] * 100
    queue(*[text_to(f"+23324123456{n}") for n in range(3)])
    outage, rounds = timedelta(0), 0
    while outage < timedelta(hours=8):
        delivery.deliver()
        rows = outbox()
        assert {row.status for row in rows} <= {"failed", "queued"}, f"dead after {outage}"
        tried = max(rows, key=lambda row: row.attempts)
        outage += tried.next_attempt_at - tried.updated_at  # each retry waits its whole delay
        rounds += 1
        make_all_due()
    assert rounds == 100 - len(messaging.texts.failures) <= 11  # one request a retry
    messaging.texts.failures.clear()
    delivery.deliver()
    rows = outbox()
    assert sorted((row.status, row.attempts) for row in rows) == [("sent", 1), ("sent", 1), ("sent", rounds + 1)]


def test_a_long_subject_beyond_ascii_folds_into_encoded_words(messaging):
    """It was one encoded word of ~280 characters (RFC 2047: at most 75; lines at most 78)."""
    subject = ("Votre commande DD-2025-000123 est prête à être retirée au magasin Melcom – Achimota : "
               "« Réfrigérateur Hisense 250 L » et 3 autres articles ✓ — merci d’avoir choisi Discount Deals")
    queue(Draft(channel="email", recipient="ama@example.com", kind="order_ready", subject=subject, text="Prête",
                html="<p>Prête</p>"))
    delivery.deliver()
    [raw] = messaging.mailbox.raw
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert max(len(line) for line in head.split(b"\r\n")) <= 78, head.decode()
    words = re.findall(rb"=\?utf-8\?[bq]\?[^?]*\?=", head, re.IGNORECASE)
    assert len(words) > 1 and max(len(word) for word in words) <= 75
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert parsed["Subject"] == subject
    assert parsed.get_body(("html",)).get_content().strip() == "<p>Prête</p>"


def test_the_unsubscribe_url_stays_whole_on_one_line(messaging, make_user):
    """Headers now fold at 76 characters; mail clients read the List-Unsubscribe URL whole."""
    user = make_user(email="ama@example.com", phonenumber="")
    queue(email_to("ama@example.com", topic="orders", user_id=user.id))
    delivery.deliver()
    [raw] = messaging.mailbox.raw
    [line] = [line for line in raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n") if line.startswith(b"List-Unsubscribe:")]
    url = line.decode().removeprefix("List-Unsubscribe: ")
    assert len(url) > 78 and re.fullmatch(r"<https://deals\.example/api/notifications/unsubscribe/\?token=\S+>", url)
