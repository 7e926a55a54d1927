"""Product listing over HTTP with 50,000 products: p50/p99 latency and requests/s.

The request is the storefront's heaviest listing: search + category + ordering + page 3,
``GET /api/products/?search=rice&category=groceries&ordering=price-low&page=3``.

By default the script creates a temporary folder, migrates and seeds its database, starts the
production server (``reflex run --env prod``) on a free port with ``DD_VAR_DIR`` pointing at that
folder, measures, and stops the server. With ``--url`` it measures a server that is already
running instead; give ``--var-dir`` (that server's ``DD_VAR_DIR``) so the script can seed its
database first, e.g. with the API app alone served by granian:

    DD_VAR_DIR=/tmp/dd-bench .venv/bin/granian --interface asgi --factory discount_deals.api:create_app --port 8123 &
    .venv/bin/python bench/api_products.py --url http://127.0.0.1:8123 --var-dir /tmp/dd-bench

It also prints SQLite's query plans for the listing's SQL and the in-process time of the
service call, so the HTTP figures can be read against the database's share.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CATEGORIES = [
    "Groceries",
    "Beverages",
    "Household",
    "Electronics",
    "Baby & Kids",
    "Beauty & Personal Care",
    "Fresh Food",
    "Home & Kitchen",
    "Snacks & Sweets",
    "Fashion",
]
BRANDS = ["shoprite", "melcom", "game", "makro", "pick n pay", "checkers"]
ADJECTIVES = [
    "Golden",
    "Royal",
    "Fresh",
    "Classic",
    "Premium",
    "Family",
    "Super",
    "Original",
    "Tasty",
    "Natural",
    "Everyday",
    "Deluxe",
    "Mini",
    "Mega",
    "Organic",
    "Spicy",
    "Sweet",
]
NOUNS = [
    "Rice",
    "Oil",
    "Soap",
    "Milk",
    "Tea",
    "Coffee",
    "Juice",
    "Biscuits",
    "Sardines",
    "Flour",
    "Sugar",
    "Noodles",
    "Detergent",
    "Lotion",
    "Shampoo",
    "Phone",
    "Radio",
    "Kettle",
    "Blender",
    "Sneakers",
    "Dress",
    "Diapers",
    "Chocolate",
]
QUERY = {"search": "rice", "category": "groceries", "ordering": "price-low", "page": "3"}
# Other listings timed in-process only, for context.
OTHER_LISTINGS = {
    "default (by name, page 1)": {},
    "category only, price-low, page 3": {"category": "groceries", "ordering": "price-low", "page": 3},
    "search only (no category), page 3": {"search": "rice", "page": 3},
    "price range 25-50, discount, page 3": {"price_range": "25-50", "ordering": "discount", "page": 3},
    "brand, rating, page 3": {"brand": "melcom", "ordering": "rating", "page": 3},
}
STARTUP_TIMEOUT_S = 15 * 60
SEED_CHUNK = 20_000  # the bulk importer's row limit


def _use_database(var_dir: Path) -> None:
    """Point this process's settings at ``var_dir`` (before any database access)."""
    os.environ["DD_VAR_DIR"] = str(var_dir)
    os.environ.pop("REFLEX_DB_URL", None)
    from discount_deals.settings import get_settings

    get_settings.cache_clear()


def seed(var_dir: Path, products: int) -> None:
    """Migrate the database of ``var_dir`` and fill it up to ``products`` products through the
    bulk importer (idempotent: an already seeded database is left alone)."""
    _use_database(var_dir)
    from sqlmodel import func, select

    from discount_deals.db import session_scope, write_session
    from discount_deals.migrations import upgrade_head
    from discount_deals.models import Category, Product, Role, User
    from discount_deals.services.bulk_import import import_products
    from discount_deals.services.catalog import slugify
    from discount_deals.services.users import add_user

    upgrade_head()
    with session_scope() as session:
        existing = session.exec(select(func.count()).select_from(Product)).one()
        if existing >= products:
            print(f"database already holds {existing:,} products: not seeding")
            return
        known = set(session.exec(select(Category.slug)).all())
        for name in CATEGORIES:
            if slugify(name) not in known:
                session.add(Category(name=name, slug=slugify(name)))
        admin = session.exec(select(User).where(User.email == "bench-admin@example.com")).first()
        if admin is None:
            admin = add_user(
                session,
                email="bench-admin@example.com",
                password="bench-password",
                username="bench-admin",
                role=Role.ADMIN,
            )
    started = time.perf_counter()
    for first in range(existing, products, SEED_CHUNK):
        rows = [_product_row(n) for n in range(first, min(first + SEED_CHUNK, products))]
        with write_session() as session:
            result = import_products(session, admin, rows)
        if result.errors:
            raise SystemExit(f"seeding failed: {result.errors[:3]}")
    print(f"seeded {products - existing:,} products in {time.perf_counter() - started:.1f} s")


def _product_row(n: int) -> dict:
    price = 1 + (n * 7919 % 29_900) / 100
    return {
        "name": f"{ADJECTIVES[n % len(ADJECTIVES)]} {NOUNS[(n // 17) % len(NOUNS)]} {n:05d}",
        "description": f"{NOUNS[(n // 17) % len(NOUNS)]} from our partner {BRANDS[n % len(BRANDS)]}, item {n}",
        "brand": BRANDS[n % len(BRANDS)],
        "price": f"{price:.2f}",
        "discount_price": f"{price * (0.5 + n % 5 / 10):.2f}" if n % 3 else None,
        "category": slugify_cached(CATEGORIES[n % len(CATEGORIES)]),
        "image_url": f"https://cdn.example.com/p/{n}.jpg",
        "rating": round(3 + (n % 21) / 10, 1),
        "stock": n % 120,
        "is_featured": n % 97 == 0,
        "status": "inactive" if n % 50 == 0 else "active",
        "tags": [BRANDS[n % len(BRANDS)]],
    }


def slugify_cached(name: str, _cache: dict[str, str] = {}) -> str:  # noqa: B006 - a deliberate memo
    if name not in _cache:
        from discount_deals.services.catalog import slugify

        _cache[name] = slugify(name)
    return _cache[name]


def query_plans(var_dir: Path) -> dict:
    """SQLite's plans for the listing's SQL, and the in-process time of the service call."""
    _use_database(var_dir)
    from sqlalchemy import event, text

    from discount_deals.db import get_engine, session_scope
    from discount_deals.services.catalog import list_products

    engine = get_engine()
    captured: list[tuple[str, tuple]] = []

    def capture(_conn, _cursor, statement, parameters, _context, _many):
        captured.append((statement, parameters))

    def call():
        with session_scope() as session:
            return list_products(
                session,
                search=QUERY["search"],
                category=QUERY["category"],
                ordering=QUERY["ordering"],
                page=int(QUERY["page"]),
                page_size=10,
            )

    event.listen(engine, "before_cursor_execute", capture)
    try:
        page = call()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    plans = {}
    with engine.connect() as connection:
        for statement, parameters in captured:
            if statement.lstrip().upper().startswith("SELECT") and "FROM product" in statement:
                rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
                plans[" ".join(statement.split())[:160]] = [row[-1] for row in rows]
        total = connection.execute(text("SELECT count(*) FROM product")).scalar()
    others = {}
    for name, filters in OTHER_LISTINGS.items():
        with session_scope() as session:
            others[name] = _median_ms(lambda f=filters, s=session: list_products(s, **f))
    return {
        "products_in_db": total,
        "matching_products": page.count,
        "plans": plans,
        "service_p50_ms": _median_ms(call),
        "other_listings_service_p50_ms": others,
    }


def _median_ms(function, runs: int = 30) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        timings.append(time.perf_counter() - started)
    return round(statistics.median(timings) * 1000, 2)


def measure(url: str, requests: int, concurrency: int) -> dict:
    """``requests`` GETs of the listing spread over ``concurrency`` keep-alive connections."""
    target = f"{url.rstrip('/')}/api/products/"
    latencies: list[float] = []
    lock = threading.Lock()
    per_worker = [requests // concurrency + (1 if i < requests % concurrency else 0) for i in range(concurrency)]

    def worker(count: int) -> None:
        mine = []
        with httpx.Client(timeout=30) as client:
            client.get(target, params=QUERY).raise_for_status()  # open the connection first
            for _ in range(count):
                started = time.perf_counter()
                response = client.get(target, params=QUERY)
                mine.append(time.perf_counter() - started)
                response.raise_for_status()
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(worker, per_worker))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "concurrency": concurrency,
        "requests": len(latencies),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2),
        "requests_per_s": round(len(latencies) / elapsed, 1),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except (OSError, http.client.HTTPException):
        return False


def start_production_server(var_dir: Path) -> tuple[subprocess.Popen, str, Path]:
    """``reflex run --env prod`` on a free port, its database in ``var_dir`` (as tests/e2e does)."""
    port = _free_port()
    env = dict(os.environ)
    env.pop("REFLEX_DB_URL", None)
    env.update(
        DD_VAR_DIR=str(var_dir),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        REFLEX_CHECK_LATEST_VERSION="false",
        PYTHONUNBUFFERED="1",
    )
    env.setdefault("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/")
    log_path = var_dir / "server.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reflex",
            "run",
            "--env",
            "prod",
            "--backend-host",
            "127.0.0.1",
            "--frontend-port",
            str(port),
            "--backend-port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=log_path.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not (_ok(f"{url}/ping") and _ok(f"{url}/api/health/")):
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}; see {log_path}")
        if time.monotonic() > deadline:
            stop_server(process)
            raise SystemExit(f"the server did not start within {STARTUP_TIMEOUT_S} s; see {log_path}")
        time.sleep(1)
    return process, url, log_path


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="measure this running server instead of starting the production server")
    parser.add_argument("--var-dir", type=Path, help="the server's DD_VAR_DIR, seeded before measuring")
    parser.add_argument("--no-seed", action="store_true", help="with --url: the server's database is already seeded")
    parser.add_argument("--products", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", default="1,4", help="comma-separated connection counts (default 1,4)")
    args = parser.parse_args()
    if args.url and not (args.var_dir or args.no_seed):
        parser.error("--url needs --var-dir (the server's DD_VAR_DIR, to seed it) or --no-seed")
    os.environ.setdefault("DD_SECRET_KEY", "bench-secret-not-for-production-0123456789abcdef")

    own_dir = args.var_dir is None
    var_dir = args.var_dir or Path(tempfile.mkdtemp(prefix="dd-bench-api-"))
    process = None
    try:
        if not args.no_seed:
            seed(var_dir, args.products)
        database = query_plans(var_dir) if not args.no_seed else {}
        for statement, plan in database.get("plans", {}).items():
            print(f"plan for {statement}...\n    " + "\n    ".join(plan))
        if database:
            print(f"{database['matching_products']} products match; service call p50 {database['service_p50_ms']} ms")
            for name, p50 in database["other_listings_service_p50_ms"].items():
                print(f"  service call p50 for {name}: {p50} ms")
        if args.url:
            url, server = args.url, "given by --url"
        else:
            process, url, _log = start_production_server(var_dir)
            server = "reflex run --env prod"
        first = httpx.get(f"{url.rstrip('/')}/api/products/", params=QUERY, timeout=30)
        first.raise_for_status()
        body = first.json()
        print(f"{url}: count {body['count']}, page 3 holds {len(body['results'])} products")
        for _ in range(50):  # warm-up
            httpx.get(f"{url.rstrip('/')}/api/products/", params=QUERY, timeout=30)
        runs = []
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            runs.append(measure(url, args.requests, concurrency))
            run = runs[-1]
            print(
                f"concurrency {concurrency}: p50 {run['p50_ms']} ms, p99 {run['p99_ms']} ms, "
                f"{run['requests_per_s']} requests/s over {run['requests']} requests"
            )
    finally:
        if process is not None:
            stop_server(process)
        if own_dir:
            shutil.rmtree(var_dir, ignore_errors=True)

    results = {
        "benchmark": "api_products",
        "request": "GET /api/products/?" + "&".join(f"{k}={v}" for k, v in QUERY.items()),
        "server": server,
        "url": url,
        "products": args.products,
        "database": database,
        "runs": runs,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "note": "load generator and server share this machine",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    out = ROOT / "bench" / "results" / "api_products.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
