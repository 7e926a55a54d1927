"""The hook that feeds the queue: after a commit that queued messages (or deal events), ask a
worker to deliver them. A rollback forgets them, with the rows."""

from __future__ import annotations

import logging
import threading

from sqlalchemy import event
from sqlalchemy.orm import Session

from ..services.messages.deals import NEW_DEAL_EVENTS
from ..services.messages.outbox import NEW_MESSAGES
from ..config.settings import get_settings
from . import tasks

log = logging.getLogger("discount_deals.queue")
_lock = threading.Lock()
_installed = False


def nudge(message_ids: list[str], deal_events: bool = False) -> None:
    """Ask a worker to deliver these messages (in batches) and to look at new deal events. A
    failure is logged: the sweep delivers them a few seconds later anyway."""
    try:
        size = get_settings().messages.batch_size
        for start in range(0, len(message_ids), size):
            tasks.deliver_messages(message_ids[start : start + size])
        if deal_events:
            tasks.process_deals()
    except Exception:  # Redis down, disk full: the outbox still has them
        log.exception("could not reach the message queue; the sweep will deliver")


def _after_commit(session: Session) -> None:
    ids = session.info.pop(NEW_MESSAGES, None)
    deals = session.info.pop(NEW_DEAL_EVENTS, None)
    if ids or deals:
        nudge(list(ids or []), bool(deals))


def _after_rollback(session: Session) -> None:
    # The rows went with the transaction: nothing to send.
    session.info.pop(NEW_MESSAGES, None)
    session.info.pop(NEW_DEAL_EVENTS, None)


def install_commit_hook() -> None:
    """Nudge the worker after every commit that queued messages (once per process)."""
    global _installed
    with _lock:
        if not _installed:
            event.listen(Session, "after_commit", _after_commit)
            event.listen(Session, "after_rollback", _after_rollback)
            _installed = True
