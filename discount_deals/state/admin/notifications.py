"""Admin Notifications tab: every email and SMS (queued, sending, sent, failed, dead), filtered,
with its text, and "Send again" for a failed or dead one (audited: services.messages.admin)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import reflex as rx
from sqlmodel import Session

from ...display import ghana_time
from ...db import session_scope, write_session
from ...models import OutboxMessage, User
from ...services.messages import admin as messages_admin
from ..actions import busy_call, error_text
from ..forms import text_arg
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList

ANY = "any"
STATUS_FILTERS = [(ANY, "All statuses"), *messages_admin.STATUSES.items()]
CHANNEL_FILTERS = [(ANY, "SMS and email"), ("sms", "SMS"), ("email", "Email")]
KIND_FILTERS = [(ANY, "Every kind"), *messages_admin.KINDS.items()]


@dataclasses.dataclass
class MessageRow:
    id: str = ""
    status: str = ""
    channel: str = ""
    kind: str = ""
    recipient: str = ""
    subject: str = ""
    text: str = ""
    attempts: str = ""
    error: str = ""
    when: str = ""
    when_iso: str = ""
    retryable: bool = False


def message_row(message: OutboxMessage) -> MessageRow:
    moment = message.sent_at or message.created_at
    tries = f"{message.attempts} attempt{'s' if message.attempts != 1 else ''}"
    return MessageRow(
        id=message.id, status=message.status, channel="SMS" if message.channel == "sms" else "Email",
        kind=messages_admin.KINDS.get(message.kind, message.kind), recipient=message.recipient,
        subject=message.subject, text=messages_admin.shown_text(message), attempts=tries,
        error=message.last_error, when=ghana_time(moment),
        when_iso=moment.isoformat(), retryable=message.status in messages_admin.RETRYABLE,
    )


@admin_tab("notifications")
class AdminNotificationsState(AdminList, rx.State):
    PAGE_SIZE: ClassVar[int] = 20
    LIST_NAME: ClassVar[str] = "admin message list"
    FILTERS: ClassVar[dict] = {"status_filter": (STATUS_FILTERS, ANY), "channel_filter": (CHANNEL_FILTERS, ANY),
                               "kind_filter": (KIND_FILTERS, ANY)}
    rows: list[MessageRow] = []
    counts: dict[str, int] = {}
    status_filter: str = ANY
    channel_filter: str = ANY
    kind_filter: str = ANY
    opened: str = ""  # the message whose text is shown

    @rx.var
    def heading(self) -> str:
        return f"Notifications ({self.total})"

    @rx.var
    def summary(self) -> str:
        return " · ".join(f"{count} {status}" for status, count in self.counts.items())

    def _query(self, session: Session, admin: User) -> tuple[list[OutboxMessage], int]:
        filters = messages_admin.MessageFilters(
            status=self._filter_value("status_filter"), channel=self._filter_value("channel_filter"),
            kind=self._filter_value("kind_filter"), search=self.search)
        return messages_admin.list_messages(session, admin, filters, offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: OutboxMessage) -> MessageRow:
        return message_row(item)

    def _open(self, admin: User) -> None:
        self._fill(admin)
        with session_scope() as session:
            self.counts = messages_admin.status_counts(session, admin)

    @admin_event
    def toggle(self, admin: User, message_id: str):
        self.opened = "" if self.opened == message_id else text_arg(message_id)

    @admin_event
    def retry(self, admin: User, message_id: str):
        """Send a failed or dead message again (its resend goes into the audit trail)."""

        def resend() -> str:
            with write_session() as session:
                recipient = messages_admin.retry(session, admin, message_id).recipient
            self._open(admin)
            return recipient

        return busy_call(self, None, resend, success=lambda to: ("Message queued again", f"It goes to {to} shortly."),
                         failure=("Error", "Could not send the message again."), describe=error_text)
