"""Bulk product import: 10,000 generated CSV rows through services.bulk_import.

Each run uses a fresh, migrated SQLite file in a temporary folder and times what an upload
costs: parsing the CSV (pandas), validating every row and inserting them in one transaction.
The target is ≤ 3 s for 10,000 rows. Peak memory comes from a separate run under tracemalloc
(which slows Python down, so it is never timed).

    .venv/bin/python bench/bulk_import.py [--rows 10000] [--runs 3]
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
from discount_deals.migrations import upgrade_head
from discount_deals.models import Category, Role
from discount_deals.services.bulk_import import import_products, parse_products_csv
from discount_deals.services.catalog import slugify
from discount_deals.services.users import add_user
from discount_deals.settings import get_settings

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
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
        "target_s": 3.0,
        "meets_target": median <= 3.0,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(
        f"{args.rows:,} rows: median {median:.3f} s over {len(runs)} runs = {results['rows_per_s']:,} rows/s; "
        f"peak Python memory {results['peak_python_mb']} MB, max RSS {results['max_rss_mb']} MB "
        f"(target ≤ 3 s: {'met' if results['meets_target'] else 'MISSED'})"
    )
    out = ROOT / "bench" / "results" / "bulk_import.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
