"""Where each browser tab's server-side state lives (issue 23).

Reflex keeps one state tree per tab. Its default without Redis writes each tree to files under
``.states/`` (about 18 files a tab) and every couple of seconds lists and checks all of them to
expire those an hour old: at tens of thousands of files that scan took a quarter of the worker's
CPU, and the files outlived restarts. Here, without Redis, the trees stay in the worker's memory
(Reflex's own in-memory manager: one worker, no files) and expire ``DD_STATE_TTL_SECONDS`` after
their tab's last event; a tab that comes back later is rehydrated by Reflex and runs its page's
on-load work again. A tab whose websocket closed goes sooner, ``DD_CLOSED_TAB_SECONDS`` (60 s)
later, unless it comes back first (a reload keeps its token). With Redis (several workers) Reflex's Redis manager keeps them, with the
same lifetime as a Redis TTL (rxconfig.py).

Reflex's in-memory manager wakes at the earliest deadline and then checks every tab, so tabs
closing one after another would cost a full pass each. :class:`TabStates` batches that work:
one pass at most every :data:`~discount_deals.config.settings_ui.STATE_SWEEP_S` seconds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

from reflex.istate.manager.memory import StateManagerMemory

from . import reflex_adapter
from ..config.settings_ui import DEFAULT_CLOSED_TAB_S, STATE_SWEEP_S


@dataclasses.dataclass
class TabStates(StateManagerMemory):
    """Reflex's in-memory state manager, expiring tab states in batches."""

    sweep_seconds: float = STATE_SWEEP_S
    closed_seconds: float = DEFAULT_CLOSED_TAB_S

    async def _expire_states(self):
        # Every sweep_seconds while any tab state is held: a closed tab's deadline moves earlier
        # (tab_closed), so sleeping until the earliest deadline seen would miss it.
        try:
            while self._purge_expired_tokens() is not None:
                await asyncio.sleep(self.sweep_seconds)
        finally:
            if self._expiration_task is asyncio.current_task():
                self._expiration_task = None

    def tab_closed(self, ident: str) -> None:
        """The tab's websocket closed: its state goes ``closed_seconds`` from now (unless an
        event comes first: a reload or a reconnection of the same tab keeps it)."""
        entry = self._token_expires_at.get(ident)
        if entry is not None:
            deadline, token = entry
            self._token_expires_at[ident] = (min(deadline, time.time() + self.closed_seconds), token)

    def tab_count(self) -> int:
        """How many tab states this worker holds."""
        return len(self.states)


def install(app, ttl_seconds: int, closed_seconds: float = DEFAULT_CLOSED_TAB_S) -> StateManagerMemory | None:
    """Put :class:`TabStates` in place of Reflex's in-memory manager (when Reflex chose that one:
    no Redis) and tell it when a tab's websocket closes; returns the manager now in use, or None
    when the app has none of ours."""
    current = reflex_adapter.state_manager(app)
    if type(current) is StateManagerMemory:
        current = TabStates(token_expiration=ttl_seconds, closed_seconds=closed_seconds)
        reflex_adapter.replace_state_manager(app, current)
    if not isinstance(current, TabStates):
        return None
    reflex_adapter.on_tab_closed(app, current.tab_closed)
    return current


def held(app) -> int | None:
    """Tab states this worker holds (None when Redis holds them: count them there)."""
    current = reflex_adapter.state_manager(app)
    return current.tab_count() if isinstance(current, TabStates) else None
