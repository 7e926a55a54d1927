"""Logging in and registering (/login, /register), through services.auth and services.users.

Both forms are uncontrolled (no event per keystroke): the browser sends the values once, on
submit, and every rule is checked here on the server.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...models import User
from ...services import ServiceError
from ...services import auth as auth_service
from ...services.auth import login as login_service
from ...services import cart as cart_service
from ...services import users as user_service
from ...config.settings import client_ip
from ..actions import busy_call, seq_number, toast
from ..forms import form_fields, form_text
from ..shop.cart import CartState, read_guest_cart
from ..shop.favorites import FavoritesState
from .session import SessionState

log = logging.getLogger("discount_deals.auth")

FILL_ALL_FIELDS = "Please fill in all fields"
DEFAULT_SUBTITLE = "Sign in to your account to continue shopping"
REGISTER_FIELDS = (
    "first_name",
    "last_name",
    "username",
    "email",
    "password",
    "phonenumber",
    "date_of_birth",
    "gender",
)


def safe_redirect_target(raw: Any) -> str:
    """A same-site path to go to after logging in, or "" (absolute and protocol-relative URLs are refused)."""
    if not isinstance(raw, str):
        return ""
    target = raw.strip()
    if (
        not target.startswith("/")
        or target.startswith("//")
        or "\\" in target
        or any(ord(ch) < 32 for ch in target)
        or len(target) > 500
    ):
        return ""
    path = target.split("?", 1)[0].split("#", 1)[0].rstrip("/") or "/"
    if path in (routes.LOGIN, routes.REGISTER):
        return ""
    return target


def requested_target(parameters: Any) -> str:
    """Where to go after signing in: the page's ``redirectTo`` (the spec's name) or ``next``
    parameter, when it is a path on this site ("" otherwise: never off-site)."""
    for name in ("redirectTo", "next"):
        target = safe_redirect_target(parameters.get(name))
        if target:
            return target
    return ""


def with_target(path: str, target: str) -> str:
    """``path`` carrying the way back (``/register?redirectTo=/checkout``)."""
    return f"{path}?redirectTo={quote(target, safe='/')}" if target else path


def signed_in_to(target: str):
    """On from the login or register form to ``target`` (default /), in the form's place in the
    history: Back from there showed the form again to a shopper signed in (read as logged out)."""
    return rx.redirect(target or routes.HOME, replace=True)


def back_to_note(target: str) -> str:
    return f"You will go back to {routes.page_name(target)} after signing in." if target else ""


def _login(email: str, password: str, client: str, proofs: list[str]) -> tuple[User, auth_service.TokenPair, dict]:
    """Runs in a worker thread: the password hash takes tens of milliseconds."""
    # services.auth.login counts the attempt in a transaction of its own (it stays recorded
    # whatever happens to this one).
    with session_scope() as session:
        user, tokens = login_service.login(session, email, password, client, proofs)
        summary = user_service.user_summary(session, user)
    return user, tokens, summary


def _register(data: dict[str, Any], client: str | None = None) -> tuple[User, auth_service.TokenPair, dict]:
    """Runs in a worker thread (password hashing; the service hashes before taking the write
    lock): the new account, signed in at once (issue 32: no second "Welcome Back" login)."""
    with write_session() as session:
        user = user_service.register(session, data, client=client)
    with session_scope() as session:
        summary = user_service.user_summary(session, session.get(User, user.id) or user)
    tokens = auth_service.issue_tokens(user)
    return user, replace(tokens, device=auth_service.device_token(user, uuid.uuid4().hex)), summary


RESEND_LOGIN_SECONDS = 120  # how long after a login its lost answer is sent again (LoginState.load)


def _still_signed_in(issued: dict) -> User | None:
    """Runs in a worker thread: the user of a login made in this tab a moment ago, if its
    session lives (its refresh token not revoked by a logout, nor rotated since) and the
    account is active."""
    if time.time() - issued.get("at", 0) > RESEND_LOGIN_SECONDS:
        return None
    with session_scope() as session:
        if not auth_service.token_is_valid(session, issued.get("refresh")):
            return None
        user = session.get(User, issued.get("user_id"))
        return user if user is not None and user.is_active else None


def _push_guest_cart(user: User, entries: list[dict]) -> None:
    """Runs in a worker thread: the guest cart goes into the user's server cart (services.cart)."""
    with write_session() as session:
        cart_service.merge_guest_cart(session, user, [(e["product"]["id"], e["quantity"]) for e in entries])


def _client(state: rx.State) -> str:
    """The address the request came from (behind the proxies settings trust)."""
    return client_ip(state.router.session.client_ip, state.router.headers.raw_headers.get("x-forwarded-for"))


async def start_session(state: Any, user: User, tokens: auth_service.TokenPair, summary: dict) -> None:
    """This tab is signed in as ``user`` (``state``: a background event's state): the tokens
    stored, the guest's cart and favourites brought along, every per-user state afresh (SPEC §4:
    the orders store is reset). Copying the cart runs in a worker thread, without the lock."""
    async with state:
        session_state = await state.get_state(SessionState)
        await session_state._start(user, tokens.access, tokens.refresh, summary)
        if tokens.device:  # this browser is the owner's from now on (services.auth.login)
            session_state.device_token = tokens.device
        entries = read_guest_cart((await state.get_state(CartState)).cart_storage)
    if entries:
        await asyncio.to_thread(_push_guest_cart, user, entries)
    async with state:
        await (await state.get_state(SessionState))._forget_user_states()
        cart = await state.get_state(CartState)
        favorites = await state.get_state(FavoritesState)
        moved = favorites._switch_user(user.id)  # the guest's favourites join the user's list
        for what, refresh in (("cart reload", lambda: cart._reload(user)),
                              ("favourites sync", lambda: favorites._sync_with_server(user, moved))):
            try:
                refresh()
            except Exception:
                log.exception("%s after login failed", what)


class LoginState(rx.State):
    loading: bool = False
    answered_tap: int = 0  # the last submit's number seen (components/optimistic.submit_tap)
    error: str = ""
    redirect_to: str = ""
    # The tokens of this tab's last login, until the login page loads again (see load).
    _issued: dict = {}

    @rx.var
    def subtitle(self) -> str:
        # SPEC §2's sentence, with the path as the spec has it (its texts are exact).
        if self.redirect_to:
            return f"Sign in to access {self.redirect_to.split('?', 1)[0]}"
        return DEFAULT_SUBTITLE

    @rx.var
    def back_note(self) -> str:
        """The way back in words: "You will go back to Checkout after signing in."."""
        return back_to_note(self.redirect_to)

    @rx.var
    def register_href(self) -> str:
        """'Create one' keeps the way back."""
        return with_target(routes.REGISTER, self.redirect_to)

    @rx.event
    async def load(self):
        self.loading = False
        self.error = ""
        self.redirect_to = requested_target(self.router.url.query_parameters)
        issued, self._issued = self._issued, {}
        session = await self.get_state(SessionState)
        if not issued or session.access_token or session.refresh_token:
            return None
        # This tab signed in a moment ago, and the browser has no tokens: the answer was lost with
        # the connection (the browser's empty storage won at the reconnection, which loads this
        # page again). The tokens go to it again while their session lives (not logged out since).
        user = await asyncio.to_thread(_still_signed_in, issued)
        if user is None:
            return None
        await session._start(user, issued["access"], issued["refresh"], issued["summary"])
        return [toast(("Welcome back!", "You have been successfully logged in")), signed_in_to(issued["to"])]

    async def _log_in(self, email: str, password: str, client: str) -> User:
        """Check the password and start the session in this tab (:func:`start_session`)."""
        async with self:
            stored = await self.get_state(SessionState)
            # What names this browser, if it logged in before (services.auth.login): its device token,
            # or tokens of a session still stored (one that predates device tokens).
            proofs = [stored.device_token, stored.refresh_token, stored.access_token]
        user, tokens, summary = await asyncio.to_thread(_login, email, password, client, proofs)
        await start_session(self, user, tokens, summary)
        async with self:
            self._issued = {"user_id": user.id, "access": tokens.access, "refresh": tokens.refresh,
                            "summary": summary, "to": self.redirect_to, "at": time.time()}
        return user

    @rx.event(background=True)
    async def submit(self, form: dict, seq: Any = 0):
        """A background event: the password check (tens of milliseconds of hashing) and copying the
        guest cart run without the state lock; the lock is taken only to read and change state.
        ``seq``: the tap (the button said "Logging in..." from it), answered in the first update."""
        email, password = form_text(form, "email"), form_text(form, "password")
        async with self:
            self.answered_tap = max(self.answered_tap, seq_number(seq))
            if self.loading:
                return
            if not email.strip() or not password:
                self.error = FILL_ALL_FIELDS
                return
            self.error = ""
            client, going_to = _client(self), self.redirect_to
        async for update in busy_call(
            self, "loading", lambda: self._log_in(email[:254], password[:256], client),
            success=("Welcome back!", "You have been successfully logged in"),
            failure=("Login failed", login_service.INVALID_CREDENTIALS),
            then=lambda _user: signed_in_to(going_to),
        ):
            yield update


class RegisterState(rx.State):
    loading: bool = False
    answered_tap: int = 0  # the last submit's number seen (components/optimistic.submit_tap)
    errors: dict[str, str] = {}
    # Bumped after a successful registration so the uncontrolled form is emptied.
    form_version: int = 0
    # Where the shopper was going (kept through registering and the login that follows).
    redirect_to: str = ""
    _created: str = ""  # the email of the account this tab created (see _created_before_a_drop)

    @rx.var
    def login_href(self) -> str:
        return with_target(routes.LOGIN, self.redirect_to)

    @rx.var
    def back_note(self) -> str:
        return back_to_note(self.redirect_to)

    @rx.event
    def load(self):
        self.loading = False
        self.errors = {}
        self.redirect_to = requested_target(self.router.url.query_parameters)

    @staticmethod
    def _local_errors(data: dict[str, Any]) -> dict[str, str]:
        """SPEC §5's checks, with the services' own messages and helpers."""
        errors: dict[str, str] = {}
        for name, message in user_service.REQUIRED_MESSAGES.items():
            if not data[name].strip():  # blank text counts as empty (the password is checked below)
                errors[name] = message
        if "email" not in errors and not user_service.is_valid_email(user_service.normalize_email(data["email"])):
            errors["email"] = user_service.INVALID_EMAIL
        problem = user_service.password_problem(data["password"])
        if problem:
            errors["password"] = problem
        return errors

    def _show_refusal(self, exc: ServiceError) -> None:
        self.errors = {name.split(".")[-1]: messages[0] for name, messages in exc.fields.items() if messages}

    async def _register(self, payload: dict[str, Any], client: str) -> None:
        """Create the account and sign this tab in with it (SPEC §8's second branch: logged in and
        sent on, to where the shopper was going)."""
        try:
            user, tokens, summary = await asyncio.to_thread(_register, payload, client)
        except ServiceError as refusal:
            user, tokens, summary = await self._created_before_a_drop(payload, client, refusal)
        async with self:
            self._created = user.email
        await start_session(self, user, tokens, summary)

    async def _created_before_a_drop(self, payload: dict[str, Any], client: str, refusal: ServiceError):
        """The email is taken by the account this tab created a moment ago, whose answer (and
        sign-in) a dropped connection lost: sign in with what was typed again, or refuse as before
        (a different password is the taken email's refusal, never a hint)."""
        async with self:
            created = self._created
        email = user_service.normalize_email(payload.get("email", ""))
        if not created or email != created or "email" not in (refusal.fields or {}):
            raise refusal
        try:
            return await asyncio.to_thread(_login, email, payload.get("password", ""), client, [])
        except ServiceError:
            raise refusal from None
        async with self:
            self.form_version += 1

    @rx.event(background=True)
    async def submit(self, form: dict, seq: Any = 0):
        """A background event, like logging in: the password is hashed without the state lock;
        ``seq`` as for logging in."""
        data = form_fields(form, REGISTER_FIELDS)
        async with self:
            self.answered_tap = max(self.answered_tap, seq_number(seq))
            if self.loading:
                return
            self.errors = self._local_errors(data)
            if self.errors:
                return
            client, going_to = _client(self), self.redirect_to
        payload = {**data, "role": "customer", "metadata": {}}
        async for update in busy_call(
            self, "loading", lambda: self._register(payload, client),
            success=("Account created!", None),
            failure=("Registration failed", "Failed to create account"), on_refusal=self._show_refusal,
            then=lambda _none: signed_in_to(going_to),
        ):
            yield update
