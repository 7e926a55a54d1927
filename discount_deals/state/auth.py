"""Logging in and registering (/login, /register), through services.auth and services.users.

Both forms are uncontrolled (no event per keystroke): the browser sends the values once, on
submit, and every rule is checked here on the server.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import reflex as rx

from .. import routes
from ..db import session_scope, write_session
from ..models import User
from ..services import ServiceError
from ..services import auth as auth_service
from ..services import cart as cart_service
from ..services import users as user_service
from ..settings import client_ip
from .cart import CartState, _read_guest_cart
from .favorites import FavoritesState
from .session import SessionState

log = logging.getLogger("discount_deals.auth")

FILL_ALL_FIELDS = "Please fill in all fields"
DEFAULT_SUBTITLE = "Sign in to your account to continue shopping"
ACCOUNT_CREATED = "Your account has been created successfully. Please log in to continue."
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


def _login(email: str, password: str, client: str) -> tuple[User, auth_service.TokenPair, dict]:
    """Runs in a worker thread: the password hash takes tens of milliseconds."""
    # services.auth.login commits this session itself so that a failed attempt stays recorded.
    with session_scope() as session:
        user, tokens = auth_service.login(session, email, password, client)
        summary = user_service.user_summary(session, user)
    return user, tokens, summary


def _register(data: dict[str, Any], client: str | None = None) -> User:
    """Runs in a worker thread (password hashing); the service hashes before taking the write lock."""
    with write_session() as session:
        return user_service.register(session, data, client=client)


def _push_guest_cart(user: User, entries: list[dict]) -> None:
    """Runs in a worker thread: the guest cart goes into the user's server cart (services.cart)."""
    with write_session() as session:
        cart_service.merge_guest_cart(session, user, [(e["product"]["id"], e["quantity"]) for e in entries])


class LoginState(rx.State):
    loading: bool = False
    error: str = ""
    redirect_to: str = ""

    @rx.var
    def subtitle(self) -> str:
        if self.redirect_to:
            return f"Sign in to access {self.redirect_to.split('?', 1)[0]}"
        return DEFAULT_SUBTITLE

    @rx.event
    def load(self):
        self.loading = False
        self.error = ""
        self.redirect_to = safe_redirect_target(self.router.url.query_parameters.get("redirectTo"))

    def _client(self) -> str:
        headers = self.router.headers.raw_headers
        return client_ip(self.router.session.client_ip, headers.get("x-forwarded-for"))

    @rx.event(background=True)
    async def submit(self, form: dict):
        """A background event: the password check (tens of milliseconds of hashing) and copying the
        guest cart run without the state lock; the lock is taken only to read and change state."""
        email = form.get("email") if isinstance(form.get("email"), str) else ""
        password = form.get("password") if isinstance(form.get("password"), str) else ""
        async with self:
            if self.loading:
                return
            if not email.strip() or not password:
                self.error = FILL_ALL_FIELDS
                return
            self.error = ""
            self.loading = True
            client = self._client()
            redirect_to = self.redirect_to
        try:
            user, tokens, summary = await asyncio.to_thread(_login, email[:254], password[:256], client)
        except ServiceError as exc:
            async with self:
                self.loading = False
            yield rx.toast.error("Login failed", description=exc.detail or auth_service.INVALID_CREDENTIALS)
            return
        except Exception:
            log.exception("login failed")
            async with self:
                self.loading = False
            yield rx.toast.error("Login failed", description=auth_service.INVALID_CREDENTIALS)
            return

        async with self:
            session_state = await self.get_state(SessionState)
            await session_state._start(user, tokens.access, tokens.refresh, summary)
            from .orders import OrdersState

            (await self.get_state(OrdersState))._forget()  # SPEC §4: a login resets the orders store
            entries = _read_guest_cart((await self.get_state(CartState)).cart_storage)
        if entries:
            await asyncio.to_thread(_push_guest_cart, user, entries)

        async with self:
            cart = await self.get_state(CartState)
            cart._forget()
            try:
                cart._reload(user)
            except Exception:
                log.exception("cart reload after login failed")

            favorites = await self.get_state(FavoritesState)
            moved = favorites._switch_user(user.id)  # the guest's favourites join the user's list
            try:
                favorites._sync_with_server(user, moved)
            except Exception:
                log.exception("favourites sync after login failed")
            self.loading = False
        yield rx.toast.success("Welcome back!", description="You have been successfully logged in")
        yield rx.redirect(redirect_to or routes.HOME)


class RegisterState(rx.State):
    loading: bool = False
    errors: dict[str, str] = {}
    # Bumped after a successful registration so the uncontrolled form is emptied.
    form_version: int = 0

    @rx.event
    def load(self):
        self.loading = False
        self.errors = {}

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

    @rx.event(background=True)
    async def submit(self, form: dict):
        """A background event, like logging in: the password is hashed without the state lock."""
        data = {name: form.get(name) if isinstance(form.get(name), str) else "" for name in REGISTER_FIELDS}
        async with self:
            if self.loading:
                return
            errors = self._local_errors(data)
            self.errors = errors
            if errors:
                return
            self.loading = True
        payload = {**data, "role": "customer", "metadata": {}}
        try:
            client = client_ip(self.router.session.client_ip, self.router.headers.raw_headers.get("x-forwarded-for"))
            await asyncio.to_thread(_register, payload, client)
        except ServiceError as exc:
            async with self:
                self.loading = False
                self.errors = {name.split(".")[-1]: messages[0] for name, messages in exc.fields.items() if messages}
            yield rx.toast.error("Registration failed", description=exc.detail or "Failed to create account")
            return
        except Exception:
            log.exception("registration failed")
            async with self:
                self.loading = False
            yield rx.toast.error("Registration failed", description="Failed to create account")
            return
        async with self:
            self.loading = False
            self.form_version += 1
        yield rx.toast.success("Account created!", description=ACCOUNT_CREATED)
        yield rx.redirect(routes.LOGIN)
