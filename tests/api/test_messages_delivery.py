"""The outbox's delivery rules: retries with backoff, the dead state, a refused recipient, one
claim per message, preferences, the one-click unsubscribe, the queue in /api/health."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import update

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.models.base import utcnow
from discount_deals.services.messages import delivery, outbox as outbox_service
from discount_deals.services.messages.outbox import Draft
from discount_deals.services.messages.unsubscribe import make_token

from ..builders.accounts import auth_headers
from ..builders.messaging import outbox


def queue(*drafts: Draft) -> list[str]:
    with session_scope() as session:
        return outbox_service.queue_messages(session, list(drafts))


def email(to: str = "ama@example.com", **fields) -> Draft:
    return Draft(channel="email", recipient=to, kind="order_placed", subject="Hello", text="Hi", **fields)


def make_due(message_id: str) -> None:
    with session_scope() as session:
        session.execute(update(models.OutboxMessage).where(models.OutboxMessage.id == message_id)
                        .values(next_attempt_at=utcnow() - timedelta(seconds=1)))


def test_a_failing_provider_is_retried_with_backoff_then_succeeds(messaging):
    messaging.texts.failures[:] = [503, 503]
    [message_id] = queue(Draft(channel="sms", recipient="+233241234567", kind="order_placed", text="Hi"))
    first = messaging.deliver()
    assert first.outcomes == {"failed": 1}
    [row] = outbox()
    assert (row.status, row.attempts) == ("failed", 1) and "503" in row.last_error
    assert row.next_attempt_at > utcnow()  # not before its backoff
    assert messaging.deliver().claimed == 0
    make_due(message_id)
    messaging.deliver()
    [row] = outbox()
    assert (row.attempts, row.next_attempt_at - row.updated_at >= timedelta(seconds=1.9)) == (2, True)  # doubled
    make_due(message_id)
    messaging.deliver()
    [row] = outbox()
    assert (row.status, row.attempts, row.provider_id) == ("sent", 3, "hubtel-1")
    assert len(messaging.texts.texts) == 1


def test_after_the_last_attempt_a_message_is_dead(messaging, monkeypatch):
    monkeypatch.setenv("DD_MESSAGE_MAX_ATTEMPTS", "2")
    from discount_deals.config.settings import get_settings

    get_settings.cache_clear()
    messaging.texts.failures[:] = [500, 500, 500]
    [message_id] = queue(Draft(channel="sms", recipient="+233241234567", kind="order_placed", text="Hi"))
    messaging.deliver()
    make_due(message_id)
    messaging.deliver()
    [row] = outbox()
    assert (row.status, row.attempts) == ("dead", 2)
    make_due(message_id)
    assert messaging.deliver().claimed == 0


def test_a_refused_recipient_is_dead_at_once_and_the_batch_goes_on(messaging):
    messaging.mailbox.refuse.add("nobody@example.com")
    queue(email("nobody@example.com"), email("ama@example.com"))
    messaging.deliver()
    by_recipient = {m.recipient: m.status for m in outbox()}
    assert by_recipient == {"nobody@example.com": "dead", "ama@example.com": "sent"}
    assert [m["To"] for m in messaging.mailbox.messages] == ["ama@example.com"]


def test_a_message_refused_at_data_is_dead_at_once(messaging):
    """A 554 to the message itself was tried again until the attempts ran out."""
    messaging.mailbox.refuse_message.add("blocked@example.com")
    queue(email("blocked@example.com"), email("ama@example.com"))
    messaging.deliver()
    rows = {m.recipient: (m.status, m.attempts) for m in outbox()}
    assert rows == {"blocked@example.com": ("dead", 1), "ama@example.com": ("sent", 1)}


def test_wrong_sms_credentials_are_tried_again_not_killed(messaging, monkeypatch):
    """Hubtel's 401 to a rotated secret made every text dead after one try, as a bad number's 4xx does."""
    from discount_deals.config.settings import get_settings

    monkeypatch.setenv("DD_HUBTEL_CLIENT_SECRET", "rotated-yesterday")
    get_settings.cache_clear()
    queue(Draft(channel="sms", recipient="+233241234567", kind="order_placed", text="Hi"))
    messaging.deliver()
    [row] = outbox()
    assert (row.status, row.attempts) == ("failed", 1) and "DD_HUBTEL_CLIENT_SECRET" in row.last_error


def test_a_providers_retry_after_is_kept(messaging):
    """A 429 asking for an hour got its next try a second later (the backoff)."""
    messaging.texts.failures[:] = [429]
    messaging.texts.retry_after = "3600"
    queue(Draft(channel="sms", recipient="+233241234567", kind="order_placed", text="Hi"))
    messaging.deliver()
    [row] = outbox()
    assert row.status == "failed" and row.next_attempt_at - row.updated_at >= timedelta(seconds=3599)


def test_a_sender_name_beyond_ascii_keeps_an_address_servers_can_read(messaging, monkeypatch):
    """DD_MAIL_FROM="Discount Déals <…>" was encoded whole: no address left in From."""
    from email.utils import parseaddr

    from discount_deals.config.settings import get_settings

    monkeypatch.setenv("DD_MAIL_FROM", "Discount Déals Ghana <shop@deals.example>")
    get_settings.cache_clear()
    queue(email("ama@example.com"))
    messaging.deliver()
    [message] = messaging.mailbox.messages
    assert parseaddr(str(message["From"])) == ("Discount Déals Ghana", "shop@deals.example")
    assert message["From"].addresses[0].addr_spec == "shop@deals.example"


def test_a_slow_answer_after_the_message_went_out_sends_it_once(messaging, monkeypatch):
    """The mail server (or Hubtel) had the message but answered after the timeout: it was tried
    again, one copy per attempt (a probe: 4 emails, 3 texts). Now it is recorded sent, unconfirmed."""
    from discount_deals.config.settings import get_settings

    monkeypatch.setenv("DD_MESSAGE_TIMEOUT_SECONDS", "1")
    get_settings.cache_clear()
    messaging.mailbox.reply_after = 1.5
    messaging.texts.answer_after = 1.5
    queue(email("ama@example.com"), Draft(channel="sms", recipient="+233241234567", kind="order_placed", text="Hi"))
    for _ in range(3):
        messaging.deliver()
        with write_session() as session:  # whatever waits is due now
            session.execute(update(models.OutboxMessage).values(next_attempt_at=utcnow()))
    assert len(messaging.mailbox.messages) == 1 and len(messaging.texts.texts) == 1
    rows = {m.channel: (m.status, m.attempts, m.provider_id) for m in outbox()}
    assert rows == {"email": ("sent", 1, "unconfirmed"), "sms": ("sent", 1, "unconfirmed")}
    assert all("answer" in m.last_error for m in outbox())  # the Notifications tab says why


def test_a_repeated_cause_queues_once(messaging):
    assert len(queue(email(dedupe_key="order-event:1:email"))) == 1
    assert queue(email(dedupe_key="order-event:1:email")) == []
    assert len(outbox()) == 1


def test_a_rolled_back_transaction_sends_nothing(messaging):
    try:
        with session_scope() as session:
            outbox_service.queue_message(session, email())
            raise RuntimeError("the order failed")
    except RuntimeError:
        pass
    assert outbox() == [] and messaging.deliver().claimed == 0


def test_two_workers_at_once_send_each_message_once(messaging):
    queue(*[email(f"shopper{n}@example.com") for n in range(60)])
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        delivery.deliver_due()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    messaging.mailbox.wait_for(60)
    assert messaging.mailbox.duplicates() == {} and len(messaging.mailbox.messages) == 60
    assert {m.status for m in outbox()} == {"sent"}


def test_a_claim_whose_worker_stopped_is_taken_over_after_its_lease(messaging):
    queue(email("a@example.com"), email("b@example.com"))
    with write_session() as session:  # a worker claims both, then dies before sending
        token = outbox_service.claim(session, limit=10)
    assert messaging.deliver().claimed == 0  # its lease still holds
    with session_scope() as session:
        session.execute(update(models.OutboxMessage).values(lease_until=utcnow() - timedelta(seconds=1)))
    messaging.deliver()
    assert sorted(m["To"] for m in messaging.mailbox.messages) == ["a@example.com", "b@example.com"]
    with session_scope() as session:  # the old claim can no longer record anything
        assert outbox_service.settle(session, outbox()[0].id, token) is None


def test_preferences_api_and_sms_needs_a_number(client, messaging, make_user):
    user = make_user(phonenumber="")
    headers = auth_headers(user)
    assert client.get("/api/users/me/notifications/", headers=headers).json() == {
        "order_updates": "email", "deal_alerts": "off", "account_email": True, "cart_reminders": True,
        "deal_emails": True,
        "sms_number": None}
    refused = client.patch("/api/users/me/notifications/", json={"order_updates": "sms"}, headers=headers)
    assert refused.status_code == 400 and "mobile number" in refused.json()["order_updates"][0]
    assert client.patch("/api/users/me/notifications/", json={"deal_alerts": "loud"}, headers=headers).status_code == 400
    done = client.patch("/api/users/me/notifications/", json={"deal_alerts": "email"}, headers=headers)
    assert done.json()["deal_alerts"] == "email"
    with session_scope() as session:
        assert session.get(models.NotificationPreference, user.id).deal_alerts == "email"
    assert client.get("/api/users/me/notifications/").status_code == 401


def test_one_click_unsubscribe_needs_no_login_and_a_real_token(client, messaging, make_user):
    user = make_user(phonenumber="")
    client.patch("/api/users/me/notifications/", json={"deal_alerts": "email"}, headers=auth_headers(user))
    token = make_token(user.id, "deals")
    forged = make_token(user.id, "deals")[:-2] + "xx"
    assert client.post(f"/api/notifications/unsubscribe/?token={forged}").status_code == 400
    answer = client.post(f"/api/notifications/unsubscribe/?token={token}", data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200 and "deal alerts" in answer.json()["detail"]
    with session_scope() as session:
        assert session.get(models.NotificationPreference, user.id).deal_alerts == "off"
    client.post(f"/api/notifications/unsubscribe/?token={make_token(user.id, 'orders')}")
    with session_scope() as session:  # no more emails; texts still, to a number an order will carry
        assert session.get(models.NotificationPreference, user.id).order_updates == "sms_only"
    assert client.get("/api/users/me/notifications/", headers=auth_headers(user)).json()["order_updates"] == "sms"


def test_health_reports_the_queue(client, messaging):
    queue(email())
    body = client.get("/api/health/").json()
    assert body["queue"]["depth"] == 1 and body["queue"]["oldest_seconds"] >= 0 and body["queue"]["dead"] == 0
    messaging.deliver()
    assert client.get("/api/health/").json()["queue"] == {"depth": 0, "oldest_seconds": 0.0, "dead": 0}
