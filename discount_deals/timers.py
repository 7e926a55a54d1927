"""Work the shop does on a clock rather than on a request.

:func:`release_unpaid_orders` runs for the life of the server (``app.register_lifespan_task``):
every minute it gives back the stock of mobile-money orders that were not paid in time
(``DD_PAYMENT_TIMEOUT_MINUTES``). With several workers each runs it; the releases are guarded
updates, so an order is released once whoever gets there first.
"""

from __future__ import annotations

import asyncio
import logging

from .services.order_status import release_expired_payments

log = logging.getLogger("discount_deals.timers")

RELEASE_INTERVAL_S = 60.0


async def release_unpaid_orders(interval: float = RELEASE_INTERVAL_S) -> None:
    while True:
        try:
            released = await asyncio.to_thread(release_expired_payments)
            if released:
                log.info("released %d unpaid mobile-money orders", released)
        except Exception:
            log.exception("releasing unpaid orders failed")
        await asyncio.sleep(interval)
