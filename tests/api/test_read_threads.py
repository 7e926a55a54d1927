"""Product reads take turns for a few threads (``DD_READ_THREADS``, api/admission.read_limiter).

Threads that mostly hold the GIL slow each other down: on 2 cores, 32 concurrent listings
served about 180 requests/s in 32 threads and about 300-360 in 2 (bench/api_products.py).
Here: a burst in one event loop is answered in full and correctly, never using more threads
at once than the setting allows."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx

from discount_deals.api import admission
from discount_deals.config.settings import get_settings


async def _burst_watching_threads(app, urls: list[str]) -> tuple[list[httpx.Response], int, int]:
    transport = httpx.ASGITransport(app=app)
    busiest = 0
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as client:
        limiter = admission.read_limiter()  # the same loop's limiter the endpoints use
        burst = asyncio.gather(*(client.get(url) for url in urls))
        while not burst.done():
            busiest = max(busiest, limiter.borrowed_tokens)
            await asyncio.sleep(0)
        return await burst, busiest, int(limiter.total_tokens)


def test_a_burst_of_listings_is_answered_in_full_by_a_few_threads(api_app, clean_db, make_product):
    for n in range(12):
        make_product(name=f"Jasmine Rice {n:02}", price=f"{10 + n}.00")
    urls = ["/api/products/?search=rice&ordering=price-low&page=2&page_size=5"] * 30 + ["/api/products/"] * 10
    responses, busiest, allowed = asyncio.run(_burst_watching_threads(api_app, urls))

    assert Counter(r.status_code for r in responses) == {200: 40}
    pages = {tuple(p["name"] for p in r.json()["results"]) for r in responses[:30]}
    assert pages == {tuple(f"Jasmine Rice {n:02}" for n in range(5, 10))}
    assert all(r.json()["count"] == 12 for r in responses[30:])
    assert allowed == get_settings().read_threads
    assert 1 <= busiest <= allowed
