"""The header's page-load work in one event (issue 23).

Every page shows who is signed in and the cart's and favourites' counts. Three on-load events
did that (session, cart, favourites): three trips through Reflex's event machinery on every
navigation, even once this visit had the answers (then each does nothing). One event does all
three now, in the order they depend on each other.
"""

from __future__ import annotations

import reflex as rx

from ..account.session import SessionState
from ..actions import events_of
from .cart import CartState
from .favorites import FavoritesState


class HeaderState(rx.State):
    @rx.event
    async def load(self):
        """Who is signed in (a stale session goes to /login), then the badges."""
        redirect = await (await self.get_state(SessionState))._load_once()
        for badge in (CartState, FavoritesState):
            async for update in events_of((await self.get_state(badge))._load_once()):
                yield update
        if redirect is not None:
            yield redirect
