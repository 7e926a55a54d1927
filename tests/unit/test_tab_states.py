"""Where tab states live (issue 23): in memory with a bounded lifetime, expired in batches.

Reflex's default without Redis kept each tab's state in files under ``.states/`` for an hour and
scanned them all every couple of seconds; discount_deals/server/tab_states.py keeps them in the
worker's memory for DD_STATE_TTL_SECONDS after the tab's last event.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from types import SimpleNamespace

import pytest
from reflex.istate.manager.disk import StateManagerDisk
from reflex.istate.manager.memory import StateManagerMemory
from reflex.istate.manager.token import BaseStateToken

from discount_deals.config import settings_ui
from discount_deals.server import tab_states
from discount_deals.server.tab_states import TabStates

from ..support.loops import run_coroutine
from .test_reflex_adapter import _run


class CountingTabStates(TabStates):
    """Counts its passes over the tab states (what the batching saves)."""

    passes: int = 0

    def _purge_expired_tokens(self):
        type(self).passes += 1
        return super()._purge_expired_tokens()


def _tokens(count: int) -> list[BaseStateToken]:
    from reflex.state import State

    import discount_deals.discount_deals  # noqa: F401  (the app's states exist)

    return [BaseStateToken(ident=uuid.uuid4().hex, cls=State) for _ in range(count)]


def test_a_tab_state_goes_its_lifetime_after_its_last_event_in_few_passes():
    async def scenario() -> tuple[int, int, int, int]:
        CountingTabStates.passes = 0
        # A lifetime of 6 s: under a loaded CI machine the 40 first events once took longer than
        # the 2 s it was, and the first tabs were gone before they were counted.
        manager = CountingTabStates(token_expiration=6, sweep_seconds=1.0)
        tokens = _tokens(40)
        for token in tokens:  # tabs whose last events come one after another over 0.8 s
            await manager.get_state(token)
            await asyncio.sleep(0.02)
        held = manager.tab_count()
        await asyncio.sleep(0.3)
        still = manager.tab_count()  # none has reached its lifetime yet
        await asyncio.sleep(8.0)  # the lifetime, a sweep and some slack
        return held, still, manager.tab_count(), CountingTabStates.passes

    held, still, after, passes = run_coroutine(scenario())
    assert held == 40 and still == 40
    assert after == 0
    # Reflex's own manager passes over every tab once per expiring tab (41 passes here); the
    # batched one once per sweep interval (about 9 in these 9 s).
    assert passes <= 14


def test_an_event_keeps_a_tab_alive():
    async def scenario() -> int:
        manager = TabStates(token_expiration=1, sweep_seconds=0.2)
        [token] = _tokens(1)
        for _ in range(6):  # an event every 0.4 s for 2.4 s: longer than its lifetime
            async with manager.modify_state(token):
                pass
            await asyncio.sleep(0.4)
        return manager.tab_count()

    assert run_coroutine(scenario()) == 1


def test_install_replaces_only_reflexs_in_memory_manager():
    app = SimpleNamespace(_state_manager=StateManagerMemory())
    ours = tab_states.install(app, 120)
    assert isinstance(ours, TabStates) and app._state_manager is ours and ours.token_expiration == 120
    assert tab_states.held(app) == 0
    assert tab_states.install(app, 120) is ours  # twice: the same one

    elsewhere = SimpleNamespace(_state_manager=StateManagerDisk())
    assert tab_states.install(elsewhere, 120) is None
    assert isinstance(elsewhere._state_manager, StateManagerDisk)
    assert tab_states.held(elsewhere) is None


def test_the_app_keeps_tab_states_in_memory_for_the_configured_lifetime():
    seen = _run(
        "import json\n"
        "from discount_deals.discount_deals import app\n"
        "from discount_deals.server import reflex_adapter\n"
        "m = reflex_adapter.state_manager(app)\n"
        "print(json.dumps({'kind': type(m).__name__, 'ttl': m.token_expiration}))\n",
        DD_STATE_TTL_SECONDS="240", REFLEX_REDIS_URL="",
    )
    assert seen == {"kind": "TabStates", "ttl": 240}


@pytest.mark.parametrize("redis_url, mode", [("", "memory"), ("redis://127.0.0.1:1/0", "disk")])
def test_rxconfig_chooses_memory_without_redis_and_leaves_redis_to_reflex(redis_url, mode):
    """With Redis, Reflex's own choice (it switches to Redis when the mode was left alone) stands;
    either way tab states expire DD_STATE_TTL_SECONDS after their last event."""
    seen = _run(
        "import json, rxconfig\n"
        "c = rxconfig.config\n"
        "print(json.dumps({'mode': c.state_manager_mode.value, 'ttl': c.redis_token_expiration,\n"
        "                  'explicit': 'state_manager_mode' in c._non_default_attributes}))\n",
        DD_STATE_TTL_SECONDS="420", REFLEX_REDIS_URL=redis_url,
    )
    assert seen["ttl"] == 420 and seen["mode"] == mode
    assert seen["explicit"] is (not redis_url)


def test_a_bad_lifetime_is_a_clear_error_and_rxconfig_still_loads(monkeypatch):
    monkeypatch.setenv("DD_STATE_TTL_SECONDS", "soon")
    with pytest.raises(ValueError, match="DD_STATE_TTL_SECONDS must be a number"):
        settings_ui.ui_settings()
    monkeypatch.setenv("DD_STATE_TTL_SECONDS", "5")
    with pytest.raises(ValueError, match="between 30 and 86400"):
        settings_ui.ui_settings()
    seen = _run("import json, rxconfig\nprint(json.dumps(rxconfig.config.redis_token_expiration))\n",
                DD_STATE_TTL_SECONDS="soon")
    assert json.loads(json.dumps(seen)) == settings_ui.DEFAULT_STATE_TTL_S  # preflight names the problem


def test_a_started_worker_hides_what_it_loaded_from_the_garbage_collector():
    """lifespan.calm_garbage_collector: full collections walked every object Reflex, SQLAlchemy
    and the app had loaded (~180 ms each at 600 shoppers); frozen, they walk the tabs' states."""
    seen = _run(
        "import asyncio, gc, json\n"
        "from discount_deals.server.lifespan import GC_YOUNG_THRESHOLD, calm_garbage_collector\n"
        "import discount_deals.discount_deals\n"
        "async def main():\n"
        "    async with calm_garbage_collector():\n"
        "        return {'frozen': gc.get_freeze_count(), 'young': gc.get_threshold()[0],\n"
        "                'expected': GC_YOUNG_THRESHOLD}\n"
        "print(json.dumps(asyncio.run(main())))\n"
    )
    assert seen["frozen"] > 100_000
    assert seen["young"] == seen["expected"]


def test_a_closed_tab_goes_sooner_unless_it_comes_back():
    async def scenario() -> tuple[int, int, int]:
        manager = TabStates(token_expiration=60, sweep_seconds=0.2, closed_seconds=0.5)
        kept, closed, back = _tokens(3)
        for token in (kept, closed, back):
            await manager.get_state(token)
        await asyncio.sleep(0.3)  # the expiry loop has looked once: the earliest deadline is a minute away
        manager.tab_closed(closed.ident)
        manager.tab_closed(back.ident)
        async with manager.modify_state(back):  # a reload: the same tab's next event
            pass
        manager.tab_closed("no-such-tab")  # a socket that never had a state: nothing to do
        await asyncio.sleep(1.2)
        return tuple(int(token.cache_key in manager.states) for token in (kept, closed, back))

    assert run_coroutine(scenario()) == (1, 0, 1)


def test_the_app_hears_when_a_tab_closes():
    """reflex_adapter.on_tab_closed wraps the websocket namespace's disconnect handler."""
    seen = _run(
        "import json\n"
        "from discount_deals.discount_deals import app\n"
        "from discount_deals.server import reflex_adapter\n"
        "ns = app.event_namespace\n"
        "heard = []\n"
        "ns.on_disconnect = lambda sid, *r: None\n"  # Reflex's own (no socket here) replaced first
        "reflex_adapter.on_tab_closed(app, heard.append)\n"
        "ns._token_manager.sid_to_token['sid-1'] = 'tab-1'\n"
        "ns.on_disconnect('sid-1', 'client disconnect')\n"
        "print(json.dumps({'heard': heard, 'closed_after': reflex_adapter.state_manager(app).closed_seconds}))\n",
        DD_CLOSED_TAB_SECONDS="45",
    )
    assert seen == {"heard": ["tab-1"], "closed_after": 45}
