"""Soak: N simulated shoppers for T minutes against a running production server, over HTTP.

Each shopper (its own HTTP client, like its own browser) repeats a visit: a page of the
catalogue (and every third visit the /products page itself), a search, a product, add to cart,
its cart, and every third visit a checkout. It waits 1–3 s between requests (a person reading),
so 50 shoppers make about 25 requests per second.

Every minute it prints p50/p95 latency, requests, failures and the server's memory (RSS of the
launcher and its workers). A failure is any response that is not 2xx, or no response at all: the
shop's own products have ample stock, so no 4xx is expected. Targets (issue 12): 0 failed
requests, p95 ≤ 250 ms, RSS growth ≤ 10 % (end of minute 1 → end of the run).

    .venv/bin/python bench/soak.py --mode sqlite              # SQLite, one worker (the default setup)
    .venv/bin/python bench/soak.py --mode postgres --workers 2 # PostgreSQL + Redis + 2 workers

Both start the production launcher themselves (and, for --mode postgres, a throwaway PostgreSQL
with its default durability and a Redis). Results: bench/results/soak-<label>-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import (
    Server,
    make_admin,
    make_product,
    percentile,
    production_server,
    register_shopper,
    rss_kib,
    write_results,
)

SEARCH_WORDS = ["rice", "oil", "soap", "milk", "juice", "tea", "sugar", "phone", "towel", "pack"]
THINK_S = (1.0, 3.0)


@dataclass
class Sample:
    at: float
    kind: str
    status: int | str
    seconds: float


@dataclass
class Run:
    started: float
    samples: list[Sample] = field(default_factory=list)
    rss: list[tuple[int, int]] = field(default_factory=list)  # (minute, KiB)

    def record(self, kind: str, status: int | str, seconds: float) -> None:
        self.samples.append(Sample(time.monotonic() - self.started, kind, status, seconds))


def _failed(status: int | str) -> bool:
    return not (isinstance(status, int) and 200 <= status < 300)


async def _request(run: Run, client: httpx.AsyncClient, kind: str, method: str, url: str, **kwargs) -> httpx.Response | None:
    began = time.perf_counter()
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        run.record(kind, type(exc).__name__, time.perf_counter() - began)
        return None
    run.record(kind, response.status_code, time.perf_counter() - began)
    return response


async def shopper(run: Run, url: str, headers: dict, products: list[str], soak_products: list[str], pages: int,
                  deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits, headers=headers) as client:
        visit = 0
        await asyncio.sleep(rng.uniform(0, THINK_S[1]))  # shoppers arrive spread out

        async def think() -> bool:
            await asyncio.sleep(rng.uniform(*THINK_S))
            return time.monotonic() < deadline

        while time.monotonic() < deadline:
            visit += 1
            if visit % 3 == 1:
                await _request(run, client, "page", "GET", "/products")
                if not await think():
                    break
            await _request(run, client, "browse", "GET", "/api/products/", params={"page": rng.randint(1, pages)})
            if not await think():
                break
            await _request(run, client, "search", "GET", "/api/products/", params={"search": rng.choice(SEARCH_WORDS)})
            if not await think():
                break
            await _request(run, client, "product", "GET", f"/api/products/{rng.choice(products)}")
            if not await think():
                break
            await _request(run, client, "add", "POST", "/api/cart/cartitems/",
                           json={"product": rng.choice(soak_products), "quantity": rng.randint(1, 2)})
            if not await think():
                break
            await _request(run, client, "cart", "GET", "/api/cart/cartitems/")
            if visit % 3 == 0:
                if not await think():
                    break
                await _request(run, client, "checkout", "POST", "/api/orders/checkout/", json={})
            if not await think():
                break


async def sample_rss(run: Run, server: Server, minutes: int) -> None:
    for minute in range(1, minutes + 1):
        await asyncio.sleep(max(0.0, run.started + minute * 60 - time.monotonic()))
        run.rss.append((minute, rss_kib(server.pids())))


def minute_table(run: Run, minutes: int) -> list[dict]:
    rows = []
    rss = dict(run.rss)
    for minute in range(1, minutes + 1):
        chunk = [s for s in run.samples if minute - 1 <= s.at / 60 < minute]
        seconds = [s.seconds for s in chunk]
        rows.append({
            "minute": minute,
            "requests": len(chunk),
            "failed": sum(_failed(s.status) for s in chunk),
            "p50_ms": round(statistics.median(seconds) * 1000, 1) if seconds else None,
            "p95_ms": round(percentile(seconds, 0.95) * 1000, 1) if seconds else None,
            "rss_mib": round(rss[minute] / 1024, 1) if minute in rss else None,
        })
    return rows


def summary(run: Run, rows: list[dict]) -> dict:
    seconds = [s.seconds for s in run.samples]
    failures: dict[str, int] = {}
    for s in run.samples:
        if _failed(s.status):
            key = f"{s.kind} {s.status}"
            failures[key] = failures.get(key, 0) + 1
    by_kind = {}
    for kind in sorted({s.kind for s in run.samples}):
        values = [s.seconds for s in run.samples if s.kind == kind]
        by_kind[kind] = {
            "requests": len(values),
            "p50_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(percentile(values, 0.95) * 1000, 1),
        }
    rss_values = [kib for _minute, kib in run.rss]
    growth = round((rss_values[-1] - rss_values[0]) / rss_values[0] * 100, 1) if len(rss_values) > 1 else None
    return {
        "requests": len(seconds),
        "failed": sum(failures.values()),
        "failures": failures,
        "p50_ms": round(statistics.median(seconds) * 1000, 1),
        "p95_ms": round(percentile(seconds, 0.95) * 1000, 1),
        "p99_ms": round(percentile(seconds, 0.99) * 1000, 1),
        "median_of_minute_p95_ms": statistics.median(r["p95_ms"] for r in rows if r["p95_ms"] is not None),
        "worst_minute_p95_ms": max(r["p95_ms"] for r in rows if r["p95_ms"] is not None),
        "rss_first_minute_mib": round(rss_values[0] / 1024, 1) if rss_values else None,
        "rss_last_minute_mib": round(rss_values[-1] / 1024, 1) if rss_values else None,
        "rss_growth_percent": growth,
        "by_kind": by_kind,
    }


def setup(server: Server, shoppers: int) -> tuple[list[dict], list[str], list[str], int]:
    admin = make_admin(server)
    tag = f"soak{int(time.time())}"
    soak_products = [make_product(server, admin, name=f"Soak item {n} {tag}", stock=1_000_000, price="3.50")
                     for n in range(20)]
    first = httpx.get(f"{server.url}/api/products/", params={"page_size": 100}, timeout=30).json()
    products = [p["id"] for p in first["results"]]
    pages = max(1, -(-first["count"] // 10))  # pages of the storefront's size (10)
    with httpx.Client(timeout=60) as client:
        headers = [register_shopper(client, server.url, n, tag) for n in range(shoppers)]
    return headers, products, soak_products, pages


async def soak(server: Server, shoppers: int, minutes: int) -> Run:
    headers, products, soak_products, pages = await asyncio.to_thread(setup, server, shoppers)
    run = Run(started=time.monotonic())
    deadline = run.started + minutes * 60
    tasks = [
        asyncio.create_task(shopper(run, server.url, h, products, soak_products, pages, deadline, seed=n))
        for n, h in enumerate(headers)
    ]
    sampler = asyncio.create_task(sample_rss(run, server, minutes))

    async def report() -> None:
        for minute in range(1, minutes + 1):
            await asyncio.sleep(max(0.0, run.started + minute * 60 + 1 - time.monotonic()))
            row = minute_table(run, minute)[-1]
            print(f"minute {row['minute']:>2}: {row['requests']:>5} requests, {row['failed']} failed, "
                  f"p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, RSS {row['rss_mib']} MiB", flush=True)

    reporter = asyncio.create_task(report())
    await asyncio.gather(*tasks)
    await sampler
    await reporter
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--shoppers", type=int, default=50)
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="workers with --mode postgres")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    label = args.label or (f"{args.mode}-1-worker" if args.mode == "sqlite" else f"postgres-redis-{args.workers}-workers")

    with ExitStack() as stack:
        env: dict[str, str] = {}
        if args.mode == "postgres":
            from tests.support.servers import postgres, redis

            database = stack.enter_context(postgres(durable=True))
            redis_server = stack.enter_context(redis())
            env = {
                "REFLEX_DB_URL": database.url,
                "REFLEX_REDIS_URL": redis_server.url,
                "GRANIAN_WORKERS": str(args.workers),
                "DD_SECRET_KEY": os.urandom(32).hex(),
            }
        server = stack.enter_context(production_server(env, name=f"soak-{label}"))
        print(f"{label}: {args.shoppers} shoppers for {args.minutes} min against {server.url}", flush=True)
        load_before = os.getloadavg()
        run = asyncio.run(soak(server, args.shoppers, args.minutes))
        load_after = os.getloadavg()

    rows = minute_table(run, args.minutes)
    result = summary(run, rows)
    print(f"{label}: {result['requests']} requests, {result['failed']} failed {result['failures'] or ''}")
    print(f"{label}: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms (worst minute {result['worst_minute_p95_ms']} ms), "
          f"RSS {result['rss_first_minute_mib']} -> {result['rss_last_minute_mib']} MiB ({result['rss_growth_percent']} %)")
    print("targets: 0 failed, p95 <= 250 ms, RSS growth <= 10 %")
    path = write_results(f"soak-{label}", {
        "label": label,
        "shoppers": args.shoppers,
        "minutes": args.minutes,
        "server": {"mode": args.mode, "workers": 1 if args.mode == "sqlite" else args.workers,
                   "settings": {k: ("***" if "SECRET" in k else v) for k, v in env.items()}},
        "load_average_before_after": [round(x, 2) for x in (*load_before, *load_after)],
        "summary": result,
        "minutes_table": rows,
    })
    print(f"written to {path}")


if __name__ == "__main__":
    main()
