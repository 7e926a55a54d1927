"""The back office's view of the outbox: filtered lists, one message's text, sending again."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_
from sqlmodel import Session, select

from ...models import MessageStatus, OutboxMessage, User
from ...models.base import utcnow
from .. import Conflict, ValidationFailed, audit
from ..error_codes import ErrorCode
from ..permissions import require_admin
from ..rows import found
from ..text_match import contains, starts_with
from .outbox import NEW_MESSAGES

M = OutboxMessage
STATUSES = {s.value: s.value.capitalize() for s in MessageStatus}
KINDS = {
    "order_placed": "Order placed", "payment_paid": "Payment received", "payment_failed": "Payment failed",
    "order_ready": "Ready for pickup", "order_shipped": "Out for delivery", "order_delivered": "Delivered",
    "order_cancelled": "Cancelled", "password_reset": "Password reset", "password_changed": "Password changed",
    "account_locked": "Login paused", "deal_alert": "Deal alert", "cart_reminder": "Cart reminder",
    "return_requested": "Return requested", "return_approved": "Return approved",
    "return_rejected": "Return not approved", "return_received": "Return received", "return_refunded": "Refund sent",
}
RETRYABLE = frozenset({MessageStatus.FAILED.value, MessageStatus.DEAD.value})
HIDDEN_TEXT = "(Hidden: this message carries a one-time password reset secret.)"


@dataclass(frozen=True)
class MessageFilters:
    status: str = ""
    channel: str = ""
    kind: str = ""
    search: str = ""  # part of the recipient, or the start of the order / product id


def shown_text(message: OutboxMessage) -> str:
    """The text an admin may read: a reset secret stays hidden until it is erased."""
    return HIDDEN_TEXT if message.secret and message.status != MessageStatus.SENT.value else message.body_text


def list_messages(session: Session, actor: User | None, filters: MessageFilters = MessageFilters(), *,
                  offset: int = 0, limit: int = 25) -> tuple[list[OutboxMessage], int]:
    """Messages newest first, filtered in SQL (admins only)."""
    require_admin(actor)
    conditions = []
    for column, value, allowed in ((M.status, filters.status, STATUSES), (M.kind, filters.kind, KINDS),
                                   (M.channel, filters.channel, {"sms": 1, "email": 1})):
        if value:
            if value not in allowed:
                raise ValidationFailed(f"Unknown filter value {value!r}.", code=ErrorCode.FILTER_INVALID)
            conditions.append(column == value)
    term = filters.search.strip().lower()[:100]
    if term:
        conditions.append(or_(contains(func.lower(M.recipient), term), starts_with(M.subject_id, term)))
    counted = select(func.count()).select_from(M)
    query = select(M)
    for condition in conditions:
        counted, query = counted.where(condition), query.where(condition)
    total = session.exec(counted).one()
    rows = session.exec(query.order_by(M.created_at.desc(), M.id.desc()).offset(offset).limit(limit)).all()
    return list(rows), total


def status_counts(session: Session, actor: User | None) -> dict[str, int]:
    require_admin(actor)
    rows = session.exec(select(M.status, func.count()).group_by(M.status)).all()
    return {status: 0 for status in STATUSES} | dict(rows)


def retry(session: Session, actor: User | None, message_id: str) -> OutboxMessage:
    """Send a failed or dead message again (admins only): queued at once with its attempts reset,
    and the resend recorded in the audit trail. 409 (``not_retryable``) for any other status."""
    require_admin(actor)
    message = found(session, M, message_id, "Message not found.")
    if message.status not in RETRYABLE:
        raise Conflict("Only a failed or dead message can be sent again.", code=ErrorCode.NOT_RETRYABLE)
    previous = message.status
    message.status = MessageStatus.QUEUED.value
    message.attempts = 0
    message.next_attempt_at = utcnow()
    message.claim_token = None
    message.lease_until = None
    session.add(message)
    session.flush()
    session.info.setdefault(NEW_MESSAGES, []).append(message.id)
    audit.record(session, actor, "message.resend", "message", message.id,
                 changes={"status": [previous, MessageStatus.QUEUED.value], "last_error": [message.last_error, None]},
                 label=f"{KINDS.get(message.kind, message.kind)} to {message.recipient}")
    return message
