"""The one guard for "signed in" and the one for "admin", as event decorators.

The browser can call any public event of any state, so hiding a page or a button is not enough:
each protected handler is declared with one of these, which resolve the caller on the server
(the stored token checked, refreshed once when it has expired) before the handler runs, and
hand the user to it::

    @admin_event
    async def delete(self, admin: User, product_id: str): ...

    @user_event                          # guests and expired sessions go to /login
    async def save(self, user: User, form: dict): ...

    @user_event(guests=True)             # guests get None; an expired session still goes to /login
    async def toggle(self, user: User | None, product_id: str): ...

    @admin_event(background=True)        # the check takes the state lock; the handler runs without it
    async def upload(self, admin: User): ...

Refused: a guest or an expired session is sent to /login?redirectTo=<where it was> (the admin
guard: /admin), a signed-in customer calling an admin event to /. An expired session is cleared
first (tokens, user and every per-user state: :mod:`.account.session`).

The decorator is also ``rx.event``: the handler Reflex registers takes the parameters after the
injected user (its signature and annotations say so, so the browser's payload is converted as
before), and may return or yield events, as a function, coroutine or (async) generator.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import reflex as rx

from .. import routes
from ..models import User
from ..services import permissions
from .actions import Toast, events_of, toast
from .account.session import SessionExpired, SessionState

GUARD_ATTRIBUTE = "_discount_deals_guard"  # on a guarded handler: "admin" or "user"
ADMIN = "admin"
USER = "user"


@dataclasses.dataclass(frozen=True)
class _Policy:
    kind: str
    guests: bool = False
    login_to: str | None = None  # where to come back after logging in (default: the page it was on)
    notice: Toast | None = None  # a toast shown with the login redirect


Resolved = tuple[User | None, Any]  # (the caller, or the events that refuse them)


async def _resolve_admin(state: rx.State, policy: _Policy) -> Resolved:
    session = await state.get_state(SessionState)
    try:
        user = await session._require_user()
    except SessionExpired:
        # Back to the back office's own address (its tab, an order opened in it) after logging in.
        here = session.router.url.path.startswith(routes.ADMIN)
        return None, session._login_redirect(None if here else routes.ADMIN, protected=here)
    if not permissions.is_admin(user):
        # In the back office's place in the history: Back to it sent the customer home again.
        return None, rx.redirect(routes.HOME, replace=True)
    return user, None


async def _resolve_user(state: rx.State, policy: _Policy) -> Resolved:
    session = await state.get_state(SessionState)
    try:
        user = await session._authenticated_user()
    except SessionExpired:  # the session cleared itself
        user, expired = None, True
    else:
        expired = False
    if user is None and (expired or not policy.guests):
        redirect = session._login_redirect(policy.login_to, protected=not policy.guests)
        return None, [toast(policy.notice), redirect] if policy.notice else redirect
    return user, None


async def current_user(state: rx.State) -> User | None:
    """The signed-in user, or None for a guest, with no redirect: for the page-load handlers that
    only fill the header (an expired session has been cleared and reads as a guest; the
    session's own page-load check sends that browser to /login)."""
    try:
        return await (await state.get_state(SessionState))._authenticated_user()
    except SessionExpired:
        return None


def guard_of(handler_fn: Callable) -> str | None:
    """"admin" or "user" for a guarded handler's function, None for an unguarded one."""
    return getattr(handler_fn, GUARD_ATTRIBUTE, None)


def _guarded(fn: Callable, resolve: Callable[[rx.State, _Policy], Awaitable[Resolved]], policy: _Policy,
             background: bool) -> Callable:
    signature = inspect.signature(fn)
    state_parameter, *rest = signature.parameters.values()
    if not rest:
        raise TypeError(f"{fn.__qualname__} must take the {policy.kind} right after self")
    injected = rest[0].name

    @functools.wraps(fn)
    async def handler(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        if background:
            async with self:
                caller, refusal = await resolve(self, policy)
        else:
            caller, refusal = await resolve(self, policy)
        if refusal is not None:
            yield refusal
            return
        async for event in events_of(fn(self, caller, *args, **kwargs)):
            yield event

    # Reflex converts the payload by these annotations and checks the arguments against this
    # signature: both are the handler's own without the injected user.
    handler.__signature__ = signature.replace(parameters=[state_parameter, *rest[1:]])
    handler.__annotations__ = {name: hint for name, hint in fn.__annotations__.items() if name != injected}
    setattr(handler, GUARD_ATTRIBUTE, policy.kind)
    return rx.event(handler, background=background)


def admin_event(fn: Callable | None = None, *, background: bool = False):
    """An event only an admin may run; the handler's parameter after ``self`` gets the admin."""
    policy = _Policy(ADMIN)
    if fn is None:
        return lambda inner: _guarded(inner, _resolve_admin, policy, background)
    return _guarded(fn, _resolve_admin, policy, background)


def user_event(fn: Callable | None = None, *, background: bool = False, guests: bool = False,
               login_to: str | None = None, notice: Toast | None = None):
    """An event for a signed-in user (with ``guests=True``: the user or None for a guest); the
    handler's parameter after ``self`` gets them. ``login_to`` is where the login page sends the
    browser back to (default: the page it is on); ``notice`` a toast shown with the redirect."""
    policy = _Policy(USER, guests=guests, login_to=login_to, notice=notice)
    if fn is None:
        return lambda inner: _guarded(inner, _resolve_user, policy, background)
    return _guarded(fn, _resolve_user, policy, background)
