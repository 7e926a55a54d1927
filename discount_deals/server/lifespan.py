"""Work done when a server process starts (registered on the rx.App in discount_deals.py).

In development (``reflex run`` / ``make dev``) the database is brought to the latest migration
before the first request, so a plain ``reflex run`` works on a fresh database; each hot reload
repeats it as a cheap revision check. Production migrates before it starts the workers
(``python -m discount_deals serve``), so nothing happens here then. The same goes for the
message worker: ``make dev`` gets one from here, production from the launcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

log = logging.getLogger("discount_deals.lifespan")


@contextlib.asynccontextmanager
async def migrate_in_development() -> AsyncIterator[None]:
    from .reflex_adapter import is_dev_mode

    if is_dev_mode():
        from .migrations import upgrade_head

        outcome = await asyncio.to_thread(upgrade_head)
        log.info("%s", outcome.message())
    yield


@contextlib.asynccontextmanager
async def worker_in_development() -> AsyncIterator[None]:
    """``make dev``: the message worker runs beside the hot-reloading server (production's
    launcher starts its own, see launcher.py)."""
    from .reflex_adapter import is_dev_mode
    from ..config.settings import get_settings

    supervisor = None
    if is_dev_mode() and get_settings().messages.start_worker:
        from .supervisor import WorkerSupervisor

        supervisor = WorkerSupervisor().start()
    try:
        yield
    finally:
        if supervisor is not None:
            await asyncio.to_thread(supervisor.stop)


# Python's collector: the first generation is collected after this many allocations net of
# frees (700 by default). Each tab's events allocate and free thousands of small objects, so the
# default ran the young collections ~60 times a second under load, each promoting survivors
# towards the full collections (~180 ms each at 600 tabs: a pause for every tab).
GC_YOUNG_THRESHOLD = 20_000


@contextlib.asynccontextmanager
async def calm_garbage_collector() -> AsyncIterator[None]:
    """Once the worker has started: everything loaded so far (Reflex, SQLAlchemy, the pages, the
    app's states' classes: about a million objects that live as long as the process) moves out of
    the collector's sight (``gc.freeze``), and the young generation is collected less often.
    Full collections then walk the tab states and little else (bench/ui_load.py, 600 shoppers:
    issue 23's closing note)."""
    import gc

    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)
    yield
