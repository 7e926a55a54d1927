"""Forgot password (/reset-password): ask for a link (email) or a code (SMS), then choose a new
password with the link's token or the code (services.auth.password_reset). Reached from /login's
"Forgot password?"; the email's link opens it with ``?token=...``."""

from __future__ import annotations

import asyncio

import reflex as rx

from ...db import write_session
from ...services.auth import password_reset as resets
from ..actions import busy_call
from ..forms import form_text
from .auth import _client

ASK, CODE, LINK, DONE = "ask", "code", "link", "done"
DONE_TEXT = "Your password has been reset. Every device was signed out: log in with your new password."


def _ask(data: dict, client: str) -> None:
    with write_session() as session:
        resets.request_reset(session, data, client)


def _confirm(data: dict) -> None:
    with write_session() as session:
        resets.confirm_reset(session, data)


class PasswordResetState(rx.State):
    step: str = ASK
    by: str = "email"  # how the link or code is sent: "email" or "phone"
    phone: str = ""
    notice: str = ""  # what was sent (never whether an account exists)
    error: str = ""
    loading: bool = False
    _token: str = ""

    @rx.event
    def load(self):
        token = self.router.url.query_parameters.get("token", "")
        self._token = token if isinstance(token, str) else ""
        self.step = LINK if self._token else ASK
        self.notice = self.error = ""
        self.loading = False

    @rx.event
    def choose(self, by: str):
        if by in ("email", "phone"):
            self.by, self.error = by, ""

    @rx.event
    def start_over(self):
        self.step, self.notice, self.error, self._token = ASK, "", "", ""

    def _refused(self, exc) -> list:
        self.error = next(iter(exc.fields.values()), [exc.detail])[0] if exc.fields else exc.detail
        return []

    @rx.event(background=True)
    async def ask(self, form: dict):
        value = form_text(form, "identifier", strip=True, limit=254)
        async with self:
            if self.loading:
                return
            by, client, self.error = self.by, _client(self), ""
        data = {"email": value} if by == "email" else {"phone": value}

        async def work():
            await asyncio.to_thread(_ask, data, client)
            async with self:
                self.notice = resets.ACCEPTED
                if by == "phone":
                    self.step, self.phone = CODE, value

        async for update in busy_call(self, "loading", work, on_refusal=self._refused):
            yield update

    @rx.event(background=True)
    async def confirm(self, form: dict):
        password, again = form_text(form, "password", limit=256), form_text(form, "password_again", limit=256)
        code = form_text(form, "code", strip=True, limit=12)
        async with self:
            if self.loading:
                return
            if password != again:
                self.error = "The two passwords are not the same."
                return
            self.error = ""
            data = {"password": password, **({"token": self._token} if self.step == LINK
                                             else {"phone": self.phone, "code": code})}

        async def work():
            await asyncio.to_thread(_confirm, data)
            async with self:
                self.step, self.notice, self._token = DONE, DONE_TEXT, ""

        async for update in busy_call(self, "loading", work, on_refusal=self._refused):
            yield update
