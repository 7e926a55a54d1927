"""Bulk product import through services.bulk_import: an upload, and a big catalogue streamed.

1. Upload (the API and admin screen's path): 10,000 generated CSV rows parsed from bytes,
   validated and inserted in one transaction, in a fresh migrated SQLite file per run. Target
   ≤ 3 s. Peak Python memory comes from a separate run under tracemalloc (never timed).
2. Big import (the ``import-products`` command's path): 100,000 rows streamed from a CSV file
   in chunks, in a child process whose peak resident memory (VmHWM) is read at the end.
   Targets (issue 11): ≤ 15 s and ≤ 300 MiB peak; before, 12.5–14 s and 753 MB.

    .venv/bin/python bench/bulk_import.py [--rows 10000] [--runs 3] [--big-rows 100000]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DD_SECRET_KEY", "bench-secret-not-for-production-0123456789abcdef")

from discount_deals.db import dispose_engines, session_scope, write_session
from discount_deals.server.migrations import upgrade_head
from discount_deals.models import Category, Role
from discount_deals.services.bulk_import import import_products, parse_products_csv
from discount_deals.services.catalog import slugify
from discount_deals.services.users import add_user
from discount_deals.config.settings import get_settings

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
HEADER = [
    "name",
    "description",
    "price",
    "discount_price",
    "discount_start",
    "discount_end",
    "category",
    "image_url",
    "tags",
    "status",
    "is_available",
    "is_featured",
    "stock",
    "related_products",
]


def generate_csv(rows: int) -> bytes:
    """A realistic upload: every column filled, quoted descriptions with commas, mixed categories."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for n in range(rows):
        price = 1 + (n * 37 % 19_900) / 100
        discounted = n % 4 != 0
        writer.writerow(
            [
                f"Bench Product {n:06d}",
                f"Item {n}, a fine product from {BRANDS[n % len(BRANDS)]}, now on offer",
                f"{price:.2f}",
                f"{price * 0.8:.2f}" if discounted else "",
                "2026-11-30T10:00" if discounted else "",
                "2026-12-31T23:59" if discounted else "",
                CATEGORIES[n % len(CATEGORIES)].lower() if n % 2 else CATEGORIES[n % len(CATEGORIES)],
                f"https://cdn.example.com/products/{n}.jpg" if n % 3 else "",
                f"tag{n % 10}, {BRANDS[n % len(BRANDS)]}",
                "active",
                "true",
                "true" if n % 25 == 0 else "false",
                str(n % 150),
                "",
            ]
        )
    return out.getvalue().encode()


def fresh_database() -> tuple[Path, object]:
    """A new temporary folder with a migrated database, the categories and an admin."""
    var_dir = Path(tempfile.mkdtemp(prefix="dd-bench-bulk-"))
    dispose_engines()
    os.environ["DD_VAR_DIR"] = str(var_dir)
    os.environ.pop("REFLEX_DB_URL", None)
    get_settings.cache_clear()
    upgrade_head()
    with session_scope() as session:
        for name in CATEGORIES:
            session.add(Category(name=name, slug=slugify(name)))
        admin = add_user(
            session, email="bench@example.com", password="bench-password", username="bench", role=Role.ADMIN
        )
    return var_dir, admin


def one_import(data: bytes, admin) -> dict:
    started = time.perf_counter()
    rows = parse_products_csv(data)
    parsed = time.perf_counter()
    with write_session() as session:
        result = import_products(session, admin, rows)
    finished = time.perf_counter()
    if result.errors or len(result.created) != len(rows):
        raise SystemExit(f"unexpected row errors: {result.errors[:3]}")
    return {"total_s": finished - started, "parse_s": parsed - started, "import_s": finished - parsed}


BIG_IMPORT = """
import json, os, resource, sys, time
from discount_deals.db import session_scope, write_session
from discount_deals.server.migrations import upgrade_head
from discount_deals.models import Category, Role
from discount_deals.services.bulk_import import import_products, iter_products_csv
from discount_deals.services.catalog import slugify
from discount_deals.services.users import add_user

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024

upgrade_head()
with session_scope() as session:
    for name in json.loads(sys.argv[2]):
        session.add(Category(name=name, slug=slugify(name)))
    admin = add_user(session, email="bench@example.com", password="bench-password", username="bench", role=Role.ADMIN)
before = rss("VmRSS")
cpu_before = resource.getrusage(resource.RUSAGE_SELF)
started = time.perf_counter()
with open(sys.argv[1], "rb") as handle, write_session() as session:
    result = import_products(session, admin, iter_products_csv(handle), max_rows=None)
elapsed = time.perf_counter() - started
cpu_after = resource.getrusage(resource.RUSAGE_SELF)
cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
assert not result.errors and len(result.created) == result.rows, result.errors[:3]
print(json.dumps({"rows": result.rows, "seconds": elapsed, "cpu_seconds": cpu, "rss_before_mb": before,
                  "peak_rss_mb": rss("VmHWM")}))
"""


def big_import(rows: int) -> dict:
    """``rows`` streamed from a file by a child process (fresh database): time and peak RSS."""
    var_dir = Path(tempfile.mkdtemp(prefix="dd-bench-big-"))
    try:
        source = var_dir / "catalogue.csv"
        source.write_bytes(generate_csv(rows))
        env = {**os.environ, "DD_VAR_DIR": str(var_dir)}
        env.pop("REFLEX_DB_URL", None)
        out = subprocess.run(
            [sys.executable, "-c", BIG_IMPORT, str(source), json.dumps(CATEGORIES)],
            cwd=ROOT, env=env, capture_output=True, text=True, check=True,
        ).stdout
        measured = json.loads(out.strip().splitlines()[-1])
        measured["csv_mb"] = round(source.stat().st_size / 2**20, 1)
        return measured
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big-rows", type=int, default=100_000)
    parser.add_argument("--big-runs", type=int, default=3)
    args = parser.parse_args()

    data = generate_csv(args.rows)
    runs = []
    for run in range(args.runs):
        var_dir, admin = fresh_database()
        try:
            runs.append(one_import(data, admin))
        finally:
            dispose_engines()
            shutil.rmtree(var_dir, ignore_errors=True)
        print(
            f"run {run + 1}: {runs[-1]['total_s']:.3f} s (parse {runs[-1]['parse_s']:.3f} s, "
            f"validate + insert {runs[-1]['import_s']:.3f} s)"
        )

    var_dir, admin = fresh_database()
    try:
        tracemalloc.start()
        one_import(data, admin)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        dispose_engines()
        shutil.rmtree(var_dir, ignore_errors=True)

    big = []
    for run in range(args.big_runs):
        big.append(big_import(args.big_rows))
        print(
            f"big import {run + 1}: {args.big_rows:,} rows streamed in {big[-1]['seconds']:.1f} s "
            f"({big[-1]['cpu_seconds']:.1f} s of CPU), peak RSS "
            f"{big[-1]['peak_rss_mb']:.0f} MiB (process at start {big[-1]['rss_before_mb']:.0f} MiB)"
        )
    big_s = statistics.median(b["seconds"] for b in big)
    big_cpu = statistics.median(b["cpu_seconds"] for b in big)
    big_peak = statistics.median(b["peak_rss_mb"] for b in big)

    median = statistics.median(r["total_s"] for r in runs)
    results = {
        "benchmark": "bulk_import",
        "rows": args.rows,
        "csv_bytes": len(data),
        "runs": [{key: round(value, 4) for key, value in run.items()} for run in runs],
        "median_s": round(median, 4),
        "median_parse_s": round(statistics.median(r["parse_s"] for r in runs), 4),
        "median_import_s": round(statistics.median(r["import_s"] for r in runs), 4),
        "rows_per_s": round(args.rows / median),
        "peak_python_mb": round(peak / 2**20, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_average_at_end": os.getloadavg(),
        "target_s": 3.0,
        "meets_target": median <= 3.0,
        "big_import": {
            "rows": args.big_rows,
            "runs": [{k: round(v, 2) for k, v in b.items()} for b in big],
            "median_s": round(big_s, 2),
            "median_cpu_s": round(big_cpu, 2),
            "median_peak_rss_mib": round(big_peak),
            "targets": {"seconds": 15, "peak_rss_mib": 300},
            "before_issue_11": {"seconds": "12.5-14", "peak_mb": 753},
            "meets_targets": big_s <= 15 and big_peak <= 300,
        },
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(
        f"{args.rows:,} rows: median {median:.3f} s over {len(runs)} runs = {results['rows_per_s']:,} rows/s; "
        f"peak Python memory {results['peak_python_mb']} MB, max RSS {results['max_rss_mb']} MB "
        f"(target ≤ 3 s: {'met' if results['meets_target'] else 'MISSED'})"
    )
    print(
        f"big import of {args.big_rows:,} rows: median {big_s:.1f} s ({big_cpu:.1f} s of CPU), peak RSS {big_peak:.0f} MiB "
        f"(targets ≤ 15 s and ≤ 300 MiB: {'met' if results['big_import']['meets_targets'] else 'MISSED'}; "
        "before: 12.5-14 s, 753 MB)"
    )
    out = ROOT / "bench" / "results" / "bulk_import.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
