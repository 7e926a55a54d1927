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
from datetime import UTC, datetime

from discount_deals.db import session_scope
from discount_deals.models.base import utcnow
from discount_deals.services.messages import delivery, outbox as outbox_service
from discount_deals.services.messages.outbox import Draft

from ..builders.messaging import MailServer, SlowMailbox, outbox


def queue(*drafts: Draft) -> list[str]:
    with session_scope() as session:
        return outbox_service.queue_messages(session, list(drafts))


def email_to(to: str, **fields) -> Draft:
    return Draft(channel="email", recipient=to, kind="order_ready", subject="Ready for pickup", text="Hi", **fields)


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
