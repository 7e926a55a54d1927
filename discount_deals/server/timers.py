"""Work the shop does on a clock rather than on a request.

:func:`release_unpaid_orders` runs for the life of the server (``app.register_lifespan_task``):
every minute (``DD_PAYMENT_RELEASE_INTERVAL_SECONDS``) it gives back the stock of mobile-money orders that were not paid in time
(``DD_PAYMENT_TIMEOUT_MINUTES``), and asks the payment provider about refunds it queued and has
not confirmed for a while (``services.returns.check_waiting_refunds``: a webhook lost on the
way). With several workers each runs it; the releases and settlements are guarded updates under
the order's lock, so each happens once whoever gets there first.
"""

from __future__ import annotations

import asyncio
import logging

from ..services.orders.expiry import release_expired_payments
from ..services.returns import check_waiting_refunds
from ..config.settings import get_settings

log = logging.getLogger("discount_deals.timers")


async def release_unpaid_orders(interval: float | None = None) -> None:
    checkout = get_settings().checkout
    interval = interval or checkout.release_interval_seconds
    log.info("releasing unpaid mobile-money orders every %s s", interval)
    if checkout.payment_provider == "fake":
        log.warning(
            "mobile money uses the FAKE payment provider: shoppers approve their own payments on a test page. "
            "Set DD_PAYMENT_PROVIDER=paystack (and DD_PAYSTACK_SECRET_KEY) before taking real orders."
        )
    while True:
        # Each job's trouble is logged and never stops the next one (nor the next minute's run).
        for work, done, failed in ((release_expired_payments, "released %d unpaid mobile-money orders",
                                    "releasing unpaid orders failed"),
                                   (check_waiting_refunds, "settled %d refunds the payment provider had queued",
                                    "checking queued refunds failed")):
            try:
                count = await asyncio.to_thread(work)
                if count:
                    log.info(done, count)
            except Exception:
                log.exception(failed)
        await asyncio.sleep(interval)
