"""CSV exports over HTTP: the production backend's memory while it streams 10,000 and 100,000 rows.

For each size the script builds a database (products through the bulk importer; orders and their
lines inserted directly, four lines an order), starts the production backend (``reflex run --env
prod --backend-only``) on a free port, and downloads ``/api/admin/exports/products.csv`` and
``/api/admin/exports/orders.csv`` while sampling the resident memory (RSS) of the server's
processes every 20 ms. "Flat" means the growth during a download does not depend on its size.
Results go to ``bench/results/exports[-postgresql].{json,md}``.

    .venv/bin/python bench/exports.py                      # SQLite, 10,000 and 100,000 rows
    .venv/bin/python bench/exports.py --sizes 100000
    scripts/with-postgres.sh .venv/bin/python bench/exports.py --postgres
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _harness import stop
from api_products import _environment, start_server

SEED_SCRIPT = """
import sys, time, uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from sqlalchemy import insert
from discount_deals.db import session_scope, write_session
from discount_deals.server.migrations import upgrade_head
from discount_deals.models import Category, Order, OrderItem, Role, User
from discount_deals.services.bulk_import import import_products
from discount_deals.services.users import add_user
sys.path.insert(0, "bench")
from api_products import product_row
count = int(sys.argv[1])
upgrade_head()
with session_scope() as session:
    session.add(Category(name="Groceries", slug="groceries"))
    admin = add_user(session, email="bench-admin@example.com", password="bench-password", username="bench-admin",
                     role=Role.ADMIN)
    shopper = add_user(session, email="bench-shopper@example.com", password="bench-password",
                       username="bench-shopper", first_name="Ama", last_name="Mensah")
started = time.perf_counter()
with write_session() as session:
    result = import_products(session, admin, (product_row(n) for n in range(count)), max_rows=None)
assert not result.errors, result.errors[:3]
start = datetime(2026, 1, 1, tzinfo=UTC)
with write_session() as session:
    connection = session.connection()
    for first in range(0, count // 4, 5000):
        orders, lines = [], []
        for n in range(first, min(first + 5000, count // 4)):
            order_id = str(uuid.uuid4())
            orders.append({"id": order_id, "user_id": shopper.id, "status": "delivered", "item_count": 4,
                           "subtotal": Decimal("40.00"), "savings": Decimal("4.00"), "discount": Decimal("0.00"),
                           "shipping": Decimal("0.00"), "tax": Decimal("3.20"), "total": Decimal("43.20"),
                           "delivery_method": "delivery", "payment_method": "cash_on_delivery",
                           "payment_status": "paid", "attention_note": "",
                           "created_at": start + timedelta(seconds=n), "updated_at": start})
            for k in range(4):
                lines.append({"id": str(uuid.uuid4()), "order_id": order_id, "product_id": None,
                              "name": f"Line {n}-{k}", "image_url": "", "unit_price": Decimal("10.00"),
                              "original_price": Decimal("11.00"), "quantity": 1, "line_total": Decimal("10.00")})
        connection.execute(insert(Order.__table__), orders)
        connection.execute(insert(OrderItem.__table__), lines)
print(f"seeded {count:,} products and {count:,} order lines in {time.perf_counter() - started:.1f} s")
"""

TOKEN_SCRIPT = """
from discount_deals.db import session_scope
from discount_deals.models import User
from discount_deals.services.auth.tokens import create_access_token
from sqlmodel import select
with session_scope() as session:
    print(create_access_token(session.exec(select(User).where(User.email == "bench-admin@example.com")).one()))
"""


def _group_rss_kib(pgid: int) -> int:
    """Resident memory of every process in the server's process group (the launcher and its worker)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total


def download(url: str, token: str, pgid: int) -> dict:
    samples: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            samples.append(_group_rss_kib(pgid))
            done.wait(0.02)

    time.sleep(1)
    before = statistics.median(_group_rss_kib(pgid) for _ in range(5))
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    size = lines = 0
    with urllib.request.urlopen(request, timeout=600) as response:
        while chunk := response.read(64 * 1024):
            size += len(chunk)
            lines += chunk.count(b"\n")  # (a "\r\n" may straddle two reads)
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    peak = max(samples) if samples else before
    return {
        "rows": lines - 1,
        "megabytes": round(size / 1024 / 1024, 1),
        "seconds": round(elapsed, 2),
        "rows_per_s": round((lines - 1) / elapsed),
        "rss_before_mb": round(before / 1024, 1),
        "rss_peak_mb": round(peak / 1024, 1),
        "rss_growth_mb": round((peak - before) / 1024, 1),
    }


def run(size: int, database_url: str | None) -> dict:
    var_dir = Path(tempfile.mkdtemp(prefix="dd-bench-exports-"))
    env = _environment(var_dir, database_url)
    subprocess.run([sys.executable, "-c", SEED_SCRIPT, str(size)], cwd=ROOT, env=env, check=True)
    token = subprocess.run([sys.executable, "-c", TOKEN_SCRIPT], cwd=ROOT, env=env, check=True,
                           capture_output=True, text=True).stdout.strip()
    process, url = start_server(env, var_dir / "server.log")
    try:
        results = {}
        for kind in ("products", "orders"):
            results[kind] = download(f"{url}/api/admin/exports/{kind}.csv", token, os.getpgid(process.pid))
            print(f"  {size:>7,} {kind:<8} {results[kind]}")
        return results
    finally:
        stop(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--postgres", action="store_true", help="use REFLEX_DB_URL / DD_TEST_DB_URL (PostgreSQL)")
    args = parser.parse_args()
    database_url = None
    if args.postgres:
        database_url = os.environ.get("DD_TEST_DB_URL") or os.environ.get("REFLEX_DB_URL")
        if not database_url:
            raise SystemExit("--postgres needs DD_TEST_DB_URL (scripts/with-postgres.sh sets it)")
    results = {}
    for number, size in enumerate(args.sizes):
        if database_url and number:  # one database: empty it between sizes
            subprocess.run([sys.executable, "-c", "from tests.conftest import truncate_all; truncate_all()"],
                           cwd=ROOT, env={**os.environ, "DD_TEST_DB_URL": database_url}, check=True)
        results[str(size)] = run(size, database_url)
    engine = "postgresql" if database_url else "sqlite"
    record = {"measured_at": datetime.now(UTC).isoformat(timespec="seconds"), "engine": engine,
              "machine": platform.platform(), "cpus": os.cpu_count(), "results": results}
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stem = "exports" + ("-postgresql" if database_url else "")
    (out / f"{stem}.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [f"# CSV exports over HTTP ({engine}, {record['measured_at']})", "",
             "Server RSS (launcher and worker) sampled every 20 ms during each download.", "",
             "| rows | export | MB sent | seconds | rows/s | RSS before | RSS peak | growth |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for size, by_kind in results.items():
        for kind, r in by_kind.items():
            lines.append(f"| {int(size):,} | {kind} | {r['megabytes']} | {r['seconds']} | {r['rows_per_s']:,} | "
                         f"{r['rss_before_mb']} MB | {r['rss_peak_mb']} MB | {r['rss_growth_mb']} MB |")
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
