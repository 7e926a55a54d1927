"""/unsubscribe?token=...: the link in every email turns that topic's emails off, no login needed.

The page does it when it opens in a browser (an event, so link checkers that only fetch the URL
change nothing); mail clients use the RFC 8058 one-click POST of ``/api/notifications/unsubscribe/``.
"""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from ...db import write_session
from ...services import ServiceError
from ...services.messages import preferences
from ..actions import UNEXPECTED

log = logging.getLogger(__name__)


def _unsubscribe(token: str) -> str:
    with write_session() as session:
        return preferences.unsubscribe(session, token)


class UnsubscribeState(rx.State):
    done: bool = False
    message: str = ""

    @rx.event(background=True)
    async def load(self):
        async with self:
            token = self.router.url.query_parameters.get("token", "")
            self.done, self.message = False, "Unsubscribing..."
        try:
            topic = await asyncio.to_thread(_unsubscribe, token if isinstance(token, str) else "")
        except ServiceError as exc:
            text, done = exc.detail, False
        except Exception:  # the page says so rather than "Unsubscribing..." for ever
            log.exception("Unsubscribing failed")
            text, done = UNEXPECTED[1], False
        else:
            text, done = f"You will no longer get {topic} by email. You can change this on your profile.", True
        async with self:
            self.done, self.message = done, text
