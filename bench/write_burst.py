"""Concurrent writes against a running server: the add-to-cart burst and the last-units checkout race.

Two bursts, each fired at once from one event loop over HTTP:

1. ``--carts`` shoppers (default 60) add the same product to their carts at the same moment.
   Target on SQLite with one worker: every request 201, the slowest within 2 s.
2. ``--buyers`` shoppers (default 50) with that product in their carts check out at the same
   moment while only ``--units`` (default 10) are in stock. Target: exactly ``units`` orders,
   the others a clear 409, the slowest within 3 s, stock ending at 0.

Under overload a write may be refused with 503 + Retry-After; any other status (500, a timeout)
is a failure. The shoppers are registered over the API first (not timed).

By default the script starts the production launcher (``python -m discount_deals serve``) with a
SQLite database in a temporary folder. ``--url URL --var-dir DIR`` measures a server that is
already running (the admin that creates the product is made with the CLI in that environment);
``--env KEY=VALUE`` passes settings to the server it starts; ``--mode postgres`` also starts a
throwaway PostgreSQL and Redis and serves with ``--workers`` workers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import (
    Server,
    base_env,
    make_admin,
    make_product,
    percentile,
    production_server,
    register_shopper,
    write_results,
)


def _shoppers(server: Server, count: int, tag: str) -> list[dict]:
    with httpx.Client(timeout=60) as client:
        return [register_shopper(client, server.url, n, tag) for n in range(count)]


async def _fire(requests: list[tuple[str, str, dict, dict | None]]) -> list[tuple[int | str, float, dict]]:
    """Send every request at once; (status or error name, seconds, headers) each."""
    limits = httpx.Limits(max_connections=len(requests) + 10, max_keepalive_connections=len(requests) + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        start = asyncio.Event()

        async def one(method: str, url: str, headers: dict, body: dict | None):
            await start.wait()
            began = time.perf_counter()
            try:
                response = await client.request(method, url, headers=headers, json=body)
                return response.status_code, time.perf_counter() - began, dict(response.headers)
            except httpx.HTTPError as exc:
                return type(exc).__name__, time.perf_counter() - began, {}

        tasks = [asyncio.create_task(one(*request)) for request in requests]
        await asyncio.sleep(0.2)  # every task is waiting on the event
        start.set()
        return await asyncio.gather(*tasks)


def _summary(results: list[tuple[int | str, float, dict]]) -> dict:
    seconds = [elapsed for _status, elapsed, _headers in results]
    statuses: dict[str, int] = {}
    for status, _elapsed, _headers in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    retry_after = all("retry-after" in headers for status, _e, headers in results if status == 503)
    return {
        "requests": len(results),
        "statuses": statuses,
        "median_s": round(statistics.median(seconds), 3),
        "p95_s": round(percentile(seconds, 0.95), 3),
        "slowest_s": round(max(seconds), 3),
        "every_503_has_retry_after": retry_after,
    }


def run(server: Server, carts: int, buyers: int, units: int) -> dict:
    admin = make_admin(server)
    tag = f"burst{int(time.time())}"
    product = make_product(server, admin, name=f"Burst item {tag}", stock=10_000)
    shoppers = _shoppers(server, max(carts, buyers), tag)

    cart_url = f"{server.url}/api/cart/cartitems/"
    cart_results = asyncio.run(
        _fire([("POST", cart_url, headers, {"product": product, "quantity": 1}) for headers in shoppers[:carts]])
    )
    add = _summary(cart_results)

    # The race: only `units` left; every buyer has one in the cart (from the burst above or added now).
    for headers in shoppers[carts:buyers]:
        httpx.post(cart_url, json={"product": product, "quantity": 1}, headers=headers, timeout=30).raise_for_status()
    httpx.patch(f"{server.url}/api/products/{product}/", json={"stock": units}, headers=admin, timeout=30).raise_for_status()
    checkout_url = f"{server.url}/api/orders/checkout/"
    checkout_results = asyncio.run(_fire([("POST", checkout_url, headers, {}) for headers in shoppers[:buyers]]))
    checkout = _summary(checkout_results)
    stock_left = httpx.get(f"{server.url}/api/products/{product}", timeout=30).json()["data"]["stock"]
    checkout["stock_left"] = stock_left
    checkout["orders_placed"] = checkout["statuses"].get("201", 0)
    return {"add_to_cart": add, "checkout": checkout}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="measure this running server instead of starting one")
    parser.add_argument("--var-dir", help="DD_VAR_DIR of the server given with --url (for the CLI)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="server setting")
    parser.add_argument("--carts", type=int, default=60)
    parser.add_argument("--buyers", type=int, default=50)
    parser.add_argument("--units", type=int, default=10)
    parser.add_argument("--mode", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--workers", type=int, default=2, help="workers with --mode postgres")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    args.label = args.label or (f"{args.mode}-1-worker" if args.mode == "sqlite"
                                else f"postgres-redis-{args.workers}-workers")
    extra = dict(item.split("=", 1) for item in args.env)

    if args.url:
        env = base_env({**({"DD_VAR_DIR": args.var_dir} if args.var_dir else {}), **extra})
        figures = run(Server(url=args.url.rstrip("/"), env=env), args.carts, args.buyers, args.units)
    elif args.mode == "postgres":
        from tests.support.servers import postgres, redis

        with postgres(durable=True) as database, redis() as redis_server:
            extra = {"REFLEX_DB_URL": database.url, "REFLEX_REDIS_URL": redis_server.url,
                     "GRANIAN_WORKERS": str(args.workers), "DD_SECRET_KEY": os.urandom(32).hex(), **extra}
            with production_server(extra, name="write-burst", seed=False) as server:
                figures = run(server, args.carts, args.buyers, args.units)
            extra["DD_SECRET_KEY"] = "***"
    else:
        with production_server(extra, name="write-burst", seed=False) as server:
            figures = run(server, args.carts, args.buyers, args.units)

    add, checkout = figures["add_to_cart"], figures["checkout"]
    print(f"{args.label}: {args.carts} concurrent add-to-cart -> {add['statuses']}, "
          f"median {add['median_s']} s, slowest {add['slowest_s']} s (target: all 201, slowest <= 2 s)")
    print(f"{args.label}: {args.buyers} concurrent checkouts on {args.units} units -> {checkout['statuses']}, "
          f"median {checkout['median_s']} s, slowest {checkout['slowest_s']} s, stock left {checkout['stock_left']} "
          f"(target: {args.units} x 201 + {args.buyers - args.units} x 409, slowest <= 3 s)")
    path = write_results(f"write-burst-{args.label}", {"label": args.label, "server_env": extra, **figures})
    print(f"written to {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")


if __name__ == "__main__":
    main()
