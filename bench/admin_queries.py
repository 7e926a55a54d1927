"""The admin screen's queries with 50,000 products: median in-process time of each service call.

Seeds a temporary database like bench/api_products.py (or reuses ``--var-dir``), adds orders over
the last 30 days, then times what the admin tabs run: a page of the product list (first, deep,
searched), the users list, and the overview's reports. Writes bench/results/admin_queries.json.

    .venv/bin/python bench/admin_queries.py [--products 50000] [--orders 3000] [--var-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api_products import _use_database, seed


def _median_ms(function, runs: int = 20) -> float:
    function()  # warm the page cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def seed_orders(count: int) -> None:
    from sqlmodel import func, select

    from discount_deals.db import write_session
    from discount_deals.models import Order, OrderItem, Product, User

    with write_session() as session:
        if session.exec(select(func.count()).select_from(Order)).one() >= count:
            return
        buyer = session.exec(select(User)).first()
        products = session.exec(select(Product.id, Product.name).limit(500)).all()
        now = datetime.now(UTC)
        for n in range(count):
            total = Decimal("10.00") + n % 50
            order = Order(user_id=buyer.id, item_count=2, subtotal=total, total=total,
                          created_at=now - timedelta(minutes=n * 14 % (30 * 24 * 60)))
            session.add(order)
            session.flush()
            product_id, name = products[n % len(products)]
            session.add(OrderItem(order_id=order.id, product_id=product_id, name=name, unit_price=total / 2,
                                  original_price=total / 2, quantity=2, line_total=total))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--products", type=int, default=50_000)
    parser.add_argument("--orders", type=int, default=3_000)
    parser.add_argument("--var-dir", type=Path)
    args = parser.parse_args()
    var_dir = args.var_dir or Path(tempfile.mkdtemp(prefix="dd-bench-admin-"))
    seed(var_dir, args.products)
    _use_database(var_dir)
    seed_orders(args.orders)

    from sqlmodel import select

    from discount_deals.db import session_scope
    from discount_deals.models import User
    from discount_deals.services import catalog, reports, users

    with session_scope() as session:
        admin = session.exec(select(User).where(User.role == "admin")).first()
        count = catalog.list_products(session, include_inactive=True, actor=admin).count

    def timed(call):
        def run():
            with session_scope() as session:
                call(session)
        return _median_ms(run)

    last_page = max(1, (count + 9) // 10)
    results = {
        "products": count,
        "product list, page 1": timed(lambda s: catalog.list_products(s, include_inactive=True, actor=admin)),
        f"product list, last page ({last_page})": timed(
            lambda s: catalog.list_products(s, page=last_page, include_inactive=True, actor=admin)
        ),
        "product list, search 'rice'": timed(
            lambda s: catalog.list_products(s, search="rice", include_inactive=True, actor=admin)
        ),
        "category options (1,000)": timed(lambda s: catalog.list_categories(s, limit=1000)),
        "users, search": timed(lambda s: users.list_users(s, admin, search="bench", limit=20)),
        "overview: sales per day": timed(lambda s: reports.sales_overview(s, admin)),
        "overview: top products": timed(lambda s: reports.top_products(s, admin)),
        "overview: low stock": timed(lambda s: reports.low_stock_products(s, admin)),
    }
    for name, value in results.items():
        print(f"{name:40} {value}{'' if name == 'products' else ' ms'}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "admin_queries.json").write_text(json.dumps(
        {"when": datetime.now(UTC).isoformat(), "machine": platform.platform(), "median_ms": results}, indent=2
    ))


if __name__ == "__main__":
    main()
