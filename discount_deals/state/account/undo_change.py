"""/undo-change?token=...: the link a changed email or phone sends to the old ones (issue 32).

The page asks before undoing (a button, not the page load: mail scanners that open links, even
with scripts, must not undo a change the owner made); undoing ends every session of the account,
this browser's included.
"""

from __future__ import annotations

import asyncio

import reflex as rx

from ...db import write_session
from ...services import ServiceError
from ...services.users import contact_change
from ..actions import UNEXPECTED, log


def _undo(token: str) -> None:
    with write_session() as session:
        contact_change.undo_contact_change(session, token)


class UndoChangeState(rx.State):
    busy: bool = False
    done: bool = False
    message: str = ""
    _token: str = ""

    @rx.event
    def load(self):
        token = self.router.url.query_parameters.get("token", "")
        self._token = token if isinstance(token, str) else ""
        self.busy = self.done = False
        self.message = "" if self._token else contact_change.INVALID_UNDO

    @rx.event(background=True)
    async def undo(self):
        async with self:
            if self.busy or self.done:
                return
            self.busy, token = True, self._token
        try:
            await asyncio.to_thread(_undo, token)
        except ServiceError as exc:
            text, done = exc.detail, False
        except Exception:  # the button must not stay busy
            log.exception("undoing a contact change failed")
            text, done = UNEXPECTED[1], False
        else:
            text, done = contact_change.UNDONE, True
        async with self:
            self.busy, self.done, self.message = False, done, text
