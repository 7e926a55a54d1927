"""Work done when a server process starts (registered on the rx.App in discount_deals.py).

In development (``reflex run`` / ``make dev``) the database is brought to the latest migration
before the first request, so a plain ``reflex run`` works on a fresh database; each hot reload
repeats it as a cheap revision check. Production migrates before it starts the workers
(``python -m discount_deals serve``), so nothing happens here then.
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
