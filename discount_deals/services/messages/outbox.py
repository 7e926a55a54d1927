"""The outbox: messages written in the caller's transaction, claimed and settled by workers.

:func:`queue_message` adds a message to the caller's session (an ``INSERT ... ON CONFLICT DO
NOTHING`` on its ``dedupe_key``, so a cause that happens twice, e.g. a replayed webhook, sends
once, and two concurrent transactions never fail on it). The ids of the messages a transaction
queued are kept in ``session.info[NEW_MESSAGES]``: after the commit the queue's hook
(``discount_deals.worker.queue``) asks a worker to deliver them; a rollback forgets them, and the
row with them, so a rolled-back event sends nothing.

A worker :func:`claim`\\ s due messages with a guarded UPDATE (on PostgreSQL after ``SELECT ...
FOR UPDATE SKIP LOCKED``; on SQLite under the write lock), which sets a lease and a claim token
of its own: however many workers or hosts run, a message is claimed by one. The worker keeps
its claim alive while it holds it (:func:`renew`, its heartbeat); each outcome is recorded
(:func:`settle`) only by the claim that holds it. A channel found down puts off the rest of its
messages (:func:`hold_back`) without counting an attempt, until its retry time or until a message
of the channel goes out again (:func:`channel_back`), whichever comes first.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, case, func, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, select

from ...models import Channel, MessageStatus, OutboxMessage
from ...models.base import new_id, utcnow
from ...config.settings import get_settings

NEW_MESSAGES = "dd_new_message_ids"
M = OutboxMessage
S = MessageStatus
ERASED = "(This message carried a one-time password reset secret; it was erased once sent.)"
# The claim token of a message waiting for its channel to come back (hold_back): no claim holds it
# (claims are uuid4 hex), and channel_back finds the channel's through the token's index.
HELD = "held"


@dataclass(frozen=True)
class Draft:
    """A message to queue: who, how, what."""

    channel: Channel | str
    recipient: str
    kind: str
    text: str
    subject: str = ""
    html: str = ""
    user_id: str | None = None
    topic: str = ""
    dedupe_key: str | None = None
    subject_id: str | None = None
    secret: bool = False


def _insert(session: Session):
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def _row(draft: Draft, due: datetime) -> dict:
    now = utcnow()
    return {
        "id": new_id(), "channel": str(draft.channel), "kind": draft.kind, "recipient": draft.recipient[:254],
        "subject": draft.subject[:200], "body_text": draft.text, "body_html": draft.html, "topic": draft.topic,
        "dedupe_key": draft.dedupe_key, "subject_id": draft.subject_id, "user_id": draft.user_id,
        "secret": draft.secret, "status": S.QUEUED.value, "attempts": 0, "next_attempt_at": due,
        "last_error": "", "provider_id": "", "created_at": now, "updated_at": now,
    }


def queue_messages(session: Session, drafts: list[Draft], *, not_before: datetime | None = None) -> list[str]:
    """Add messages to the caller's transaction; the ids of those added (a repeated
    ``dedupe_key`` adds nothing)."""
    if not drafts:
        return []
    rows = [_row(draft, not_before or utcnow()) for draft in drafts]
    added: list[str] = []
    for row in rows:
        statement = _insert(session)(M).values(**row).on_conflict_do_nothing().returning(M.id)
        added += [row_id for (row_id,) in session.execute(statement)]
    session.info.setdefault(NEW_MESSAGES, []).extend(added)
    return added


def queue_message(session: Session, draft: Draft, *, not_before: datetime | None = None) -> str | None:
    """:func:`queue_messages` for one message; its id, or None when its ``dedupe_key`` was used."""
    added = queue_messages(session, [draft], not_before=not_before)
    return added[0] if added else None


def bulk_queue(session: Session, drafts: list[Draft]) -> list[str]:
    """Many messages without dedupe keys in one executemany INSERT (deal alerts); their ids."""
    now = utcnow()
    rows = [{**_row(draft, now), "dedupe_key": None} for draft in drafts]
    if rows:
        session.execute(M.__table__.insert(), rows)
    ids = [row["id"] for row in rows]
    session.info.setdefault(NEW_MESSAGES, []).extend(ids)
    return ids


# --- claiming and settling (the worker) ----------------------------------------------------------


def _due(now: datetime):
    """Waiting and due, or claimed by a worker whose lease ran out (it stopped mid-batch)."""
    return or_(
        and_(M.status.in_([S.QUEUED.value, S.FAILED.value]), M.next_attempt_at <= now),
        and_(M.status == S.SENDING.value, M.lease_until < now),
    )


def anything_due(session: Session, *, ids: list[str] | None = None, now: datetime | None = None) -> bool:
    """Whether :func:`claim` could find work (a due message, or one whose worker stopped): a read,
    so that a sweep with nothing to send takes no write lock."""
    query = select(M.id).where(_due(now or utcnow()))
    if ids is not None:
        query = query.where(M.id.in_(ids))
    return session.exec(query.limit(1)).first() is not None


def claim(session: Session, *, ids: list[str] | None = None, limit: int, now: datetime | None = None) -> str | None:
    """Claim up to ``limit`` due messages (of ``ids`` when given) for one worker; the claim token,
    or None when nothing was due. The caller commits before sending."""
    settings = get_settings().messages
    now = now or utcnow()
    _bury_exhausted(session, now)
    query = select(M.id).where(_due(now), M.attempts < settings.max_attempts)
    if ids is not None:
        query = query.where(M.id.in_(ids))
    # Of messages due at once (a channel's, put off together by hold_back), the most tried first: it
    # tries the channel again, and its backoff is the one they follow.
    query = query.order_by(M.next_attempt_at, M.attempts.desc()).limit(limit)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    chosen = list(session.exec(query).all())
    if not chosen:
        return None
    token = uuid.uuid4().hex
    claimed = session.execute(
        update(M)
        .where(M.id.in_(chosen), _due(now), M.attempts < settings.max_attempts)
        .values(status=S.SENDING.value, claim_token=token, attempts=M.attempts + 1,
                lease_until=now + timedelta(seconds=settings.lease_seconds), updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return token if claimed.rowcount else None


def _bury_exhausted(session: Session, now: datetime) -> None:
    """Messages whose worker stopped while sending their last allowed attempt are dead."""
    session.execute(
        update(M)
        .where(M.status == S.SENDING.value, M.lease_until < now, M.attempts >= get_settings().messages.max_attempts)
        .values(status=S.DEAD.value, claim_token=None, lease_until=None, updated_at=now,
                last_error="The worker stopped while sending the last attempt.")
        .execution_options(synchronize_session=False)
    )


def claimed(session: Session, token: str) -> list[OutboxMessage]:
    return list(session.exec(select(M).where(M.claim_token == token, M.status == S.SENDING.value)
                             .order_by(M.channel, M.next_attempt_at, M.attempts.desc())).all())


def retry_delay(attempts: int) -> timedelta:
    """Exponential backoff: the first retry after DD_MESSAGE_RETRY_SECONDS, doubling, at most a day."""
    base = get_settings().messages.retry_seconds
    return timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), 86_400))


def next_try(attempts: int, now: datetime, retry_after: int = 0) -> datetime:
    """When a message that failed its ``attempts``-th attempt is due again: after the backoff, or
    after the provider's ``Retry-After`` when that is longer."""
    return now + max(retry_delay(attempts), timedelta(seconds=retry_after))


def renew(session: Session, token: str, now: datetime | None = None) -> int:
    """Extend the lease of the claim's messages still being sent (the worker's heartbeat); how many."""
    lease = (now or utcnow()) + timedelta(seconds=get_settings().messages.lease_seconds)
    return session.execute(update(M).where(M.claim_token == token, M.status == S.SENDING.value)
                           .values(lease_until=lease).execution_options(synchronize_session=False)).rowcount


def hold_back(session: Session | Connection, token: str, channel: str, until: datetime,
              now: datetime | None = None) -> int:
    """The ``channel`` is down until ``until`` (a failure said so): the claim's messages of it not
    yet tried go back, due at ``until``, the attempt their claim counted given back; and the
    channel's waiting messages due before then wait until then too (a queue of thousands was
    otherwise claimed batch by batch, each batch's first trying the channel again). All of them are
    marked :data:`HELD` (as :func:`settle` marked the failed one), for :func:`channel_back`. How
    many of the claim's went back. An outage so costs one attempt a retry, not one a message."""
    now = now or utcnow()
    handed_back = session.execute(
        update(M).where(M.claim_token == token, M.status == S.SENDING.value, M.channel == channel)
        .values(status=case((M.attempts > 1, S.FAILED.value), else_=S.QUEUED.value), attempts=M.attempts - 1,
                claim_token=HELD, lease_until=None, next_attempt_at=until, updated_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount
    session.execute(
        update(M).where(M.channel == channel, M.status.in_([S.QUEUED.value, S.FAILED.value]), M.next_attempt_at < until)
        .values(next_attempt_at=until, claim_token=HELD).execution_options(synchronize_session=False)
    )
    return handed_back


def channel_back(session: Session | Connection, channel: str, now: datetime | None = None) -> int:
    """A message of ``channel`` went out: the channel is back, and what :func:`hold_back` put off
    for it is due now rather than at the retry time it was put off to (an hour, when the provider's
    ``Retry-After`` said so; hours, deep into an outage's backoff). How many. Bounded: the one
    indexed UPDATE the caller runs once per channel a batch; what it finds is claimed batch by
    batch, the most tried first, and a channel still down holds the rest back again.

    The try a wake gives costs no attempt (one is handed back, as :func:`hold_back` does): on a
    flaky gateway (a 502 now and then, texts going between), each text that went woke the one
    that met the last 502, the most tried, which met the next one; it spent its twelve attempts
    (17 hours of backoff) in seconds and was never sent."""
    now = now or utcnow()
    return session.execute(
        update(M).where(M.claim_token == HELD, M.channel == channel, M.status.in_([S.QUEUED.value, S.FAILED.value]),
                        M.next_attempt_at > now)
        .values(next_attempt_at=now, claim_token=None, updated_at=now,
                attempts=case((M.attempts > 0, M.attempts - 1), else_=M.attempts))
        .execution_options(synchronize_session=False)
    ).rowcount


def settle(session: Session | Connection, message_id: str, token: str, *, error: str = "", permanent: bool = False,
           provider_id: str = "", now: datetime | None = None, retry_after: int = 0, note: str = "",
           channel_down: bool = False) -> str | None:
    """Record one attempt's outcome if ``token`` still holds the message; the new status, or None
    when the claim was lost. A failure of its channel (``channel_down``) marks it :data:`HELD`
    with the messages :func:`hold_back` puts off: it waits for the channel, not for itself.

    A success is one guarded UPDATE (a reset secret is erased from the stored text in it), with
    ``note`` as its last word (an unconfirmed send says so)."""
    now = now or utcnow()
    mine = (M.id == message_id, M.claim_token == token, M.status == S.SENDING.value)
    if not error:
        done = session.execute(
            update(M).where(*mine)
            .values(status=S.SENT.value, sent_at=now, provider_id=provider_id[:120], last_error=note[:500],
                    claim_token=None,
                    lease_until=None, updated_at=now, body_text=case((M.secret == True, ERASED), else_=M.body_text),
                    body_html=case((M.secret == True, ""), else_=M.body_html))
            .execution_options(synchronize_session=False)
        )
        status = S.SENT.value if done.rowcount == 1 else None
    else:
        status = _record_failure(session, mine, error, permanent, now, retry_after, channel_down)
    return status


def _record_failure(session: Session | Connection, mine: tuple, error: str, permanent: bool,
                    now: datetime, retry_after: int = 0, channel_down: bool = False) -> str | None:
    """A failed attempt: dead when it cannot succeed or was the last, else due again after the
    backoff, or after the provider's ``Retry-After`` when that is longer (it was ignored: a 429
    asking for an hour got its next try a second later)."""
    attempts = session.execute(select(M.attempts).where(*mine)).scalar()
    if attempts is None:
        return None
    if permanent or attempts >= get_settings().messages.max_attempts:
        values = {"status": S.DEAD.value, "claim_token": None}
    else:
        values = {"status": S.FAILED.value, "next_attempt_at": next_try(attempts, now, retry_after),
                  "claim_token": HELD if channel_down else None}
    session.execute(update(M).where(*mine).values(lease_until=None, updated_at=now,
                                                  last_error=error[:500], **values)
                    .execution_options(synchronize_session=False))
    return values["status"]


def release(session: Session, token: str) -> None:
    """Hand back what a claim did not get to (the worker is stopping): due again at once."""
    session.execute(
        update(M).where(M.claim_token == token, M.status == S.SENDING.value)
        .values(status=S.QUEUED.value, claim_token=None, lease_until=None, attempts=M.attempts - 1)
        .execution_options(synchronize_session=False)
    )


# --- reading (health, back office) -----------------------------------------------------------


@dataclass(frozen=True)
class QueueStats:
    depth: int  # messages not yet sent nor dead
    oldest_seconds: float  # age of the oldest of them (0 when none)
    dead: int


def queue_stats(session: Session, now: datetime | None = None) -> QueueStats:
    now = now or utcnow()
    waiting = [S.QUEUED.value, S.SENDING.value, S.FAILED.value]
    depth, oldest = session.exec(select(func.count(), func.min(M.created_at)).where(M.status.in_(waiting))).one()
    dead = session.exec(select(func.count()).select_from(M).where(M.status == S.DEAD.value)).one()
    if oldest is not None and oldest.tzinfo is None:
        from datetime import UTC

        oldest = oldest.replace(tzinfo=UTC)
    age = max((now - oldest).total_seconds(), 0.0) if oldest is not None else 0.0
    return QueueStats(depth=depth, oldest_seconds=round(age, 1), dead=dead)
