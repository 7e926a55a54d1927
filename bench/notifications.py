"""Messages end to end over HTTP against the production launcher (its own message worker), to a
local SMTP server (aiosmtpd) in this process.

1. **Order → email**: ``--orders`` shoppers (default 40) each place an order over the API, one at
   a time; the latency is from sending the checkout request to the order's email arriving in the
   SMTP server. Target: p95 ≤ 2 s.
2. **A deal for 10,000 fans**: ``--fans`` users (default 10,000) favourited one product and
   switched deal alerts on (by email); an admin puts the product on discount over the API.
   Targets: every alert queued in the outbox ≤ 5 s after the edit, delivered to the SMTP server
   at ≥ 200 messages/s, 0 duplicates (Message-ID), the worker's memory flat (RSS sampled while it
   delivers).

The fans are written straight into the server's SQLite database (10,000 registrations over the
API would spend ~10 minutes hashing passwords; that is not what is measured). Results go to
``bench/results/notifications-<time>.json``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import (
    child_pids,
    make_admin,
    make_product,
    percentile,
    production_server,
    register_shopper,
    rss_kib,
    write_results,
)

from tests.support.mail import SmtpServer


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process and its threads (from /proc)."""
    if not pid:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pid(server) -> int | None:
    for pid in child_pids(server.process.pid):
        try:
            if b"worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    return None


def order_latencies(server, smtp: SmtpServer, admin: dict, count: int) -> list[float]:
    product = make_product(server, admin, name="Bench Rice 5kg", stock=100_000, price="25.00")
    latencies = []
    with httpx.Client(timeout=30) as client:
        shoppers = [register_shopper(client, server.url, n, "notify") for n in range(count)]
        for headers in shoppers:
            client.patch(f"{server.url}/api/users/me/notifications/", json={"order_updates": "email"},
                         headers=headers).raise_for_status()
        for headers in shoppers:
            client.post(f"{server.url}/api/cart/cartitems/", json={"product": product, "quantity": 1},
                        headers=headers).raise_for_status()
            before = len(smtp.mailbox.raw)
            started = time.monotonic()
            order = client.post(f"{server.url}/api/orders/checkout/", json={}, headers=headers)
            order.raise_for_status()
            number = order.json()["id"][:8]
            mail = smtp.mailbox.wait_for(before + 1, timeout=30)[-1]
            assert number in mail["Subject"], mail["Subject"]
            latencies.append(smtp.mailbox.received_at[before] - started)
    return latencies


def add_fans(database: Path, product_id: str, count: int) -> None:
    """``count`` users who favourited ``product_id`` with deal alerts by email (straight into SQLite)."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    users, favourites, prefs = [], [], []
    for n in range(count):
        user_id = str(uuid.uuid4())
        users.append((user_id, f"fan{n}@example.com", f"fan{n}", "x", "Fan", str(n), "", "", "customer", 1, 0,
                      now, now))
        favourites.append((str(uuid.uuid4()), user_id, product_id, now))
        prefs.append((user_id, "email", "email", 1, now))
    with sqlite3.connect(database) as db:
        db.executemany("INSERT INTO user (id, email, username, password_hash, first_name, last_name, phonenumber, "
                       "gender, role, is_active, token_version, created_at, updated_at) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", users)
        db.executemany("INSERT INTO favourite (id, user_id, product_id, added_at) VALUES (?,?,?,?)", favourites)
        db.executemany("INSERT INTO notification_preference (user_id, order_updates, deal_alerts, account_email, "
                       "updated_at) VALUES (?,?,?,?,?)", prefs)


def count_alerts(database: Path) -> int:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT count(*) FROM message WHERE kind = 'deal_alert'").fetchone()[0]


def deal_for_fans(server, smtp: SmtpServer, admin: dict, fans: int) -> dict:
    database = server.var_dir / "discount_deals.db"
    product = make_product(server, admin, name="Bench Palm Oil 5L", stock=500, price="120.00")
    add_fans(database, product, fans)
    pid = worker_pid(server)
    cpu_before = (cpu_seconds(pid), cpu_seconds(os.getpid()))
    before = len(smtp.mailbox.raw)
    rss = [rss_kib([pid])] if pid else []
    started = time.monotonic()
    httpx.patch(f"{server.url}/api/products/{product}/", json={"discount_price": "89.00"}, headers=admin,
                timeout=30).raise_for_status()
    queued_at = None
    deadline = started + 300
    while time.monotonic() < deadline:
        if queued_at is None and count_alerts(database) >= fans:
            queued_at = time.monotonic()
        if pid:
            rss.append(rss_kib([pid]))
        if len(smtp.mailbox.raw) - before >= fans:
            break
        time.sleep(0.25)
    cpu = (cpu_seconds(pid) - cpu_before[0], cpu_seconds(os.getpid()) - cpu_before[1])
    arrived = smtp.mailbox.received_at[before:]
    delivered = len(arrived)
    window = (arrived[-1] - arrived[0]) if delivered > 1 else float("nan")
    time.sleep(2)  # anything sent twice would arrive now
    return {
        "fans": fans,
        "queued_s": round(queued_at - started, 2) if queued_at else None,
        "delivered": delivered,
        "first_email_after_s": round(arrived[0] - started, 2) if arrived else None,
        "all_delivered_after_s": round(arrived[-1] - started, 2) if arrived else None,
        "delivery_rate_per_s": round((delivered - 1) / window, 1) if delivered > 1 else None,
        "duplicates": sum(n - 1 for n in smtp.mailbox.duplicates().values()),
        # CPU seconds spent meanwhile by the worker and by this process (the SMTP server).
        "cpu_s": {"worker": round(cpu[0], 1), "smtp_server_and_bench": round(cpu[1], 1)},
        "worker_rss_mib": {"start": round(rss[0] / 1024, 1), "peak": round(max(rss) / 1024, 1),
                           "end": round(rss[-1] / 1024, 1)} if rss else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=40)
    parser.add_argument("--fans", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=4, help="the worker's threads (DD_WORKER_THREADS)")
    args = parser.parse_args()
    with SmtpServer() as smtp:
        env = {**smtp.environment(), "DD_DEAL_ALERT_BATCH_SECONDS": "0", "DD_WORKER_THREADS": str(args.threads),
               "DD_ACCESS_LOG": "0", "DD_REGISTER_MAX_ATTEMPTS": "100000"}
        with production_server(env, name="notifications") as server:
            admin = make_admin(server)
            latencies = order_latencies(server, smtp, admin, args.orders)
            deal = deal_for_fans(server, smtp, admin, args.fans)
    result = {
        "order_email_latency_s": {"orders": len(latencies), "p50": round(statistics.median(latencies), 3),
                                  "p95": round(percentile(latencies, 0.95), 3), "max": round(max(latencies), 3),
                                  "target_p95": 2.0},
        "deal_alerts": {**deal, "targets": {"queued_s": 5.0, "delivery_rate_per_s": 200, "duplicates": 0}},
        "worker_threads": args.threads,
    }
    path = write_results("notifications", result)
    print(f"order -> email: p50 {result['order_email_latency_s']['p50']} s, "
          f"p95 {result['order_email_latency_s']['p95']} s (target <= 2 s)")
    print(f"deal for {deal['fans']} fans: queued in {deal['queued_s']} s (target <= 5 s), "
          f"{deal['delivered']} delivered at {deal['delivery_rate_per_s']}/s (target >= 200/s), "
          f"{deal['duplicates']} duplicates, worker RSS {deal['worker_rss_mib']}")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
