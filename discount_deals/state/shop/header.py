"""The header's page-load work (issue 23).

Every page shows who is signed in and the cart's and favourites' counts. Three on-load events
did that (session, cart, favourites): three trips through Reflex's event machinery on every
navigation, even once this visit had the answers (then each does nothing). One event does all
three now, in the order they depend on each other, and the shop's busiest pages (home, the
listing, a product) do it inside their own on-load event (:func:`with_header`): a navigation
there is one event fewer.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

import reflex as rx

from ..account.session import SessionState
from ..actions import events_of
from .cart import CartState
from .favorites import FavoritesState

HEADER_WORK = "does_header_work"  # the mark :func:`with_header` leaves on a page's load handler


async def header_work(state: rx.State) -> AsyncIterator[Any]:
    """Who is signed in (a stale session goes to /login), then the badges, from any state's event."""
    redirect = await (await state.get_state(SessionState))._load_once()
    for badge in (CartState, FavoritesState):
        async for update in events_of((await state.get_state(badge))._load_once()):
            yield update
    if redirect is not None:
        yield redirect


def with_header(load: Callable[..., Any]) -> Callable[..., Any]:
    """A page's on-load handler that does the header's work first, in the same event (under
    ``@rx.event``). The app then leaves ``HeaderState.load`` out of that page's on-load list."""

    @functools.wraps(load)
    async def load_with_header(self, *args, **kwargs):
        async for update in header_work(self):
            yield update
        async for update in events_of(load(self, *args, **kwargs)):
            yield update

    setattr(load_with_header, HEADER_WORK, True)
    return load_with_header


def does_header_work(handler: Any) -> bool:
    """Whether an on-load event handler already does the header's work (:func:`with_header`)."""
    return getattr(getattr(handler, "fn", handler), HEADER_WORK, False)


class HeaderState(rx.State):
    @rx.event
    async def load(self):
        """The header's work as an on-load event of its own, for the pages whose load lacks it."""
        async for update in header_work(self):
            yield update
