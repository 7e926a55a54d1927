"""The browser session: tokens in localStorage (the spec's keys) checked on the server.

Every protected event goes through one guard (:mod:`discount_deals.state.guards`), which asks
:meth:`SessionState._authenticated_user`: it validates the access token, refreshes it once with
the refresh token when it has expired, and when that fails clears the session and sends the
browser to /login.

States that hold one user's data (cart, favourites, orders, profile, ...) register themselves
with :func:`per_user`; the session resets them at login, logout and expiry without importing
them.
"""

from __future__ import annotations

import json
import logging
import time
from urllib.parse import quote

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...models import User
from ...services import NotAuthenticated, ServiceError, permissions
from ...services.auth.tokens import refresh_tokens, revoke_refresh_token, user_for_access_token
from ...services.users import full_name
from ..drafts import forget_drafts_script
from ..actions import toast

log = logging.getLogger("discount_deals.session")


# Browser storage a logout removes (SPEC §4, §9): tokens, user, cart and the orders cache.
SESSION_KEYS = ("accessToken", "refreshToken", "user", "cart-storage", "orders-storage")
REMOVE_SESSION_KEYS = rx.call_script(
    "[" + ",".join(f"'{key}'" for key in SESSION_KEYS) + "].forEach(function(k){localStorage.removeItem(k);});"
    + forget_drafts_script()  # and what a form kept of its typing in this tab (an address)
)


class SessionExpired(Exception):
    """The stored tokens no longer work: the user must log in again."""


_PER_USER_STATES: list[type[rx.State]] = []
# Page-load work that only fills the header (who is signed in, the cart and favourites badges) is
# done once per tab and again when the account changes or after this many seconds (issue 23):
# every navigation used to redo it, three database reads and three deltas per click.
RECHECK_SECONDS = 300


def visit_key(state: rx.State, who: str) -> str:
    """What page-load work was done for: ``who`` in this page visit (a reload opens a new
    websocket, so it starts afresh; links followed inside the app keep it)."""
    return f"{state.router.session.session_id}|{who}"


def fresh(key: str, last_key: str, last_at: float) -> bool:
    """Whether work done for ``last_key`` at ``last_at`` (time.time()) still stands for ``key``."""
    return bool(last_key) and key == last_key and time.time() - last_at < RECHECK_SECONDS


SIGNED_OUT_GREETING = "Hi, User"


def header_words(user: User) -> dict[str, str]:
    """The header's greeting ("Hi, Ama") and the account menu's name (the full name, else the
    username, else the email)."""
    full = full_name(user)
    return {"greeting": f"Hi, {user.first_name or 'User'}", "full_name": full or user.username or user.email}


def per_user(state_class: type[rx.State]) -> type[rx.State]:
    """Class decorator: this state holds one user's data, and its ``_forget()`` empties it (a
    state without one goes back to its defaults: ``reset()``). The session calls it at login, at
    logout and when the session expires: what a tab showed one user is never sent to the next
    (a reload of the tab hydrates its whole state)."""
    _PER_USER_STATES.append(state_class)
    return state_class


class SessionState(rx.State):
    # Synced across tabs: a refresh token rotated in one tab is the one every tab uses next.
    access_token: str = rx.LocalStorage(name="accessToken", sync=True)
    refresh_token: str = rx.LocalStorage(name="refreshToken", sync=True)
    stored_user: str = rx.LocalStorage(name="user")
    # Names this browser at its next login (services.auth.login): kept across logouts, so the owner
    # still gets in while failed logins from elsewhere lock the account.
    device_token: str = rx.LocalStorage(name="deviceToken")

    user_id: str = ""
    email: str = ""
    # The header's words for who is signed in (:func:`header_words`): the name's parts and the
    # role stay on the server.
    greeting: str = SIGNED_OUT_GREETING
    full_name: str = ""
    # False until the first check of the stored tokens has finished (protected pages wait for it).
    auth_checked: bool = False
    is_admin: bool = False  # services.permissions says so (the header offers the back office)
    # The tokens this tab last checked on a page load, and when (see RECHECK_SECONDS).
    _checked_tokens: str = ""
    _checked_at: float = 0.0

    @rx.var
    def is_logged_in(self) -> bool:
        return self.user_id != ""

    # --- server-side helpers (not callable from the browser) --------------------------------

    def _remember(self, user: User | None) -> None:
        """Keep who is signed in; a var is assigned only when it changes (an assignment sends the
        var, and the header's computed vars with it, to the browser again)."""
        if user is None:
            values = {"user_id": "", "email": "", "greeting": SIGNED_OUT_GREETING, "full_name": "", "is_admin": False}
        else:
            values = {"user_id": user.id, "email": user.email, **header_words(user),
                      "is_admin": permissions.is_admin(user)}
        for name, value in values.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    async def _forget_user_states(self) -> None:
        """Empty every state registered with :func:`per_user` (cart, favourites, orders, ...)."""
        for state_class in _PER_USER_STATES:
            state = await self.get_state(state_class)
            forget = getattr(state, "_forget", None)
            forget() if forget is not None else state.reset()

    async def _clear(self) -> None:
        """Forget tokens, user, cart and cached data (orders, profile) in this browser."""
        self.access_token = self.refresh_token = self.stored_user = ""
        self._remember(None)
        await self._forget_user_states()

    async def _authenticated_user(self) -> User | None:
        """The logged-in user, refreshing the access token once if needed.

        Returns None for a guest (no tokens). Raises :class:`SessionExpired` after clearing the
        session when the tokens no longer work.
        """
        if not self.access_token and not self.refresh_token:
            self._remember(None)
            return None
        with session_scope() as session:
            try:
                user = user_for_access_token(session, self.access_token)
            except NotAuthenticated:
                user = None
        if user is None:
            try:
                with write_session() as session:  # rotating the refresh token writes
                    pair, user = refresh_tokens(session, self.refresh_token)
            except NotAuthenticated:
                user = None
            else:
                self.access_token, self.refresh_token = pair.access, pair.refresh
        if user is None:
            await self._clear()
            raise SessionExpired()
        self._remember(user)
        return user

    async def _require_user(self) -> User:
        """The logged-in user or :class:`SessionExpired` (also for guests)."""
        user = await self._authenticated_user()
        if user is None:
            raise SessionExpired()
        return user

    def _address(self) -> str:
        """This tab's address: path and query."""
        url = self.router.url
        return f"{url.path}?{url.query}" if url.query else url.path

    def _login_redirect(self, target: str | None = None, *, protected: bool = False):
        """/login with the way back: ``target``, else this page's address. ``protected``: the
        page's own guard refuses a guest; it is replaced in the history (Back from the form opened
        it again, which sent the browser here again: Back never left the shop). A public page (an
        expired session) and an action's other target (the cart's "Proceed to Checkout") stay
        behind the form, as the original client's ``window.location.href = '/login'`` left them."""
        here = self._address()
        target = target or here or routes.HOME
        if target.startswith(routes.LOGIN):
            return rx.redirect(routes.LOGIN, replace=True)
        return rx.redirect(f"{routes.LOGIN}?redirectTo={quote(target, safe='/')}",
                           replace=protected and target == here)

    async def _start(self, user: User, access: str, refresh: str, summary: dict | None = None) -> None:
        """Store a fresh login (called by the login and register flows)."""
        self.access_token = access
        self.refresh_token = refresh
        self.stored_user = json.dumps(summary or {"id": user.id, "email": user.email, "role": user.role})
        self._remember(user)
        self.auth_checked = True

    # --- events ------------------------------------------------------------------------------

    def _tokens_key(self) -> str:
        return visit_key(self, f"{self.access_token}|{self.refresh_token}")

    async def _load_once(self):
        """Check the stored tokens on a page load (the header shows who is logged in): once per
        visit, and again when they change or after RECHECK_SECONDS. Protected events check them
        every time (state/guards.py). Returns the redirect to /login when they no longer work."""
        if self.auth_checked and fresh(self._tokens_key(), self._checked_tokens, self._checked_at):
            return None
        try:
            await self._authenticated_user()
        except SessionExpired:
            self.auth_checked = True
            return self._login_redirect()
        self.auth_checked = True
        self._checked_tokens, self._checked_at = self._tokens_key(), time.time()
        return None

    @rx.event
    async def logout(self, destination: str = routes.HOME):
        """Log out: revoke the refresh token on the server, clear this browser, go to ``destination``."""
        if self.refresh_token:
            try:
                with write_session() as session:  # it reads the token's user, then writes
                    revoke_refresh_token(session, self.refresh_token)
            except ServiceError:
                pass  # already invalid: logging out still succeeds
        await self._clear()
        destination = destination if destination in (routes.HOME, routes.LOGIN) else routes.HOME
        # The cleared vars reach localStorage as "" first; then the keys themselves go. One script
        # rather than rx.remove_local_storage: each of those re-runs the current page's on_load,
        # which on a protected page would send the browser to /login instead of `destination`.
        return [toast(("Logged out", None, "info")), REMOVE_SESSION_KEYS, rx.redirect(destination)]
