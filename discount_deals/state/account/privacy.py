"""The profile's "Your data" tab (issue 32; Act 843): download everything the shop keeps as
JSON, and close the account (orders kept anonymised for the books)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...models import User
from ...services.auth.password_checks import run_check
from ...services.error_codes import ErrorCode
from ...services.users import privacy
from ..actions import busy_call
from ..forms import form_text
from ..guards import user_event
from .session import REMOVE_SESSION_KEYS, SessionState

CLOSED = ("Account closed", "Your personal data is erased. Your past orders are kept, without your name, for our "
                            "books.")


def _export(user: User) -> str:
    with session_scope() as session:
        return json.dumps(privacy.export_data(session, user), indent=2, ensure_ascii=False)


def _close(user: User, password: str) -> None:
    """Runs in a worker thread: the password's check is counted and committed, run with no write
    lock held (argon2), then the account is closed."""
    with write_session() as session:
        pending = privacy.count_closing_check(session, user, password)
    checked = run_check(pending)
    with write_session() as session:
        privacy.close_account(session, user, password, checked)


class PrivacyState(rx.State):
    working: str = ""  # "download" | "close" while a request runs
    password_error: str = ""

    @user_event(background=True)
    async def download(self, user: User):
        """The customer's data as a JSON file (built in a worker thread, without the lock)."""
        async with self:
            if self.working:
                return
            self.working = "download"
        try:
            text = await asyncio.to_thread(_export, user)
        finally:
            async with self:
                self.working = ""
        yield rx.download(data=text, filename=f"discount-deals-data-{datetime.now(UTC):%Y-%m-%d}.json")

    def _refused(self, exc) -> None:
        if exc.code == ErrorCode.PASSWORD_WRONG:
            self.password_error = exc.detail

    async def _close_and_sign_out(self, user: User, password: str) -> None:
        await asyncio.to_thread(_close, user, password)
        async with self:
            await (await self.get_state(SessionState))._clear()

    @user_event(background=True)
    async def close_account(self, user: User, form: dict):
        async with self:
            self.password_error = ""
            password = form_text(form, "password", limit=256)
        async for update in busy_call(self, "working", lambda: self._close_and_sign_out(user, password), busy="close",
                                      success=CLOSED, failure=("Account not closed", None),
                                      on_refusal=self._refused,
                                      then=lambda _none: [REMOVE_SESSION_KEYS, rx.redirect(routes.HOME)]):
            yield update
