"""The back office on a Ghanaian phone network: an admin's round through the same proxy as
``bench/slow_network.py`` (latency and bandwidth both ways, websocket included), in Chromium at
390 × 844, timed as the admin waits. A shop's staff work from the market on their phones too.

Steps (each from the tap, or the navigation, to what the admin waits for):

- ``open``: cold /admin (signed in, empty cache) → the Overview's figures shown
- ``orders``: the Orders tab → the list's rows
- ``order``: "View order #…" → the order's page with its actions
- ``status``: "Start processing" → "Order updated" and the new status
- ``back``: "Back to orders" → the list
- ``products``: the Products tab → "Products (N)" and its rows
- ``edit``: "Edit …" → the form filled
- ``save``: "Update Product" → "Product updated"
- ``reopen``: /admin?tab=orders opened again later (the code cached) → the list's rows

Each step counts what crossed the network until it was done, as slow_network does. Medians of
``--walks`` walks per profile; results in ``bench/results/admin_phone-<time>.json``.

    .venv/bin/python bench/admin_phone.py [--profiles loopback,3g,2g] [--walks 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import free_port, make_admin, make_product, production_server, profile_walks, register_shopper
from _harness import step_table, write_results
from slow_network import ARGS, CHROMIUM, PHONE, first_visit_bytes, phone_tab, signed_in, summarise

from tests.support.slow_network import PROFILES, SlowNetwork

STEPS = ["open", "orders", "order", "status", "back", "products", "edit", "save", "reopen"]

FIGURES = ("() => location.pathname === '/admin' && [...document.querySelectorAll('main')].some("
           "(m) => m.textContent.includes('Revenue today') && /GH₵|\\$|[0-9]/.test(m.textContent))"
           " && !document.querySelector('main [aria-busy=\"true\"]')")
ORDER_ROWS = "() => !!document.querySelector('main ul[aria-label=\"Orders\"] li')"
ORDER_PAGE = ("(short) => () => [...document.querySelectorAll('main h2, main h1')].some("
              "(h) => h.textContent.includes('Order #' + short))"
              " && [...document.querySelectorAll('main button')].some((b) => b.textContent.trim() === 'Start processing')")
UPDATED = ("() => [...document.querySelectorAll('[data-sonner-toast]')].some("
           "(t) => t.textContent.includes('Order updated'))")
PRODUCT_ROWS = ("(name) => () => [...document.querySelectorAll('main h2, main h3')].some("
                "(h) => /^Products \\([0-9]+\\)$/.test(h.textContent.trim()))"
                " && document.querySelector('main').textContent.includes(name)")
FORM_FILLED = ("(name) => () => { const f = [...document.querySelectorAll('main input')].find("
               "(i) => i.value === name); return !!f && [...document.querySelectorAll('main h2, main h3')].some("
               "(h) => h.textContent.trim() === 'Edit Product'); }")
SAVED = ("() => [...document.querySelectorAll('[data-sonner-toast]')].some("
         "(t) => t.textContent.includes('Product updated'))")


def place_order(client: httpx.Client, url: str, headers: dict, product: str) -> str:
    client.post(f"{url}/api/cart/cartitems/", json={"product": product, "quantity": 1},
                headers=headers).raise_for_status()
    placed = client.post(f"{url}/api/orders/checkout/", json={}, headers=headers)
    placed.raise_for_status()
    body = placed.json()
    return (body.get("data") or body)["id"]


def walk_once(browser, network: SlowNetwork, storage: dict, order_id: str, product_name: str, price: str) -> dict:
    context, page, walk = phone_tab(browser, network, storage)
    steps: dict[str, dict] = {}
    short = order_id[:8]

    def record(step: str, elapsed_ms: int, mark) -> None:
        traffic = network.since(mark)
        steps[step] = {"seconds": round(elapsed_ms / 1000, 3), "round_trips": traffic.round_trips,
                       "requests": len(traffic.requests), "kb_down": round(traffic.bytes_down / 1024, 1),
                       "kb_up": round(traffic.bytes_up / 1024, 1), "events": traffic.events,
                       "request_lines": traffic.requests,
                       "timeline": [(round((m.at - traffic.messages[0].at) * 1000), m.kind, m.detail[-60:])
                                    for m in traffic.messages]}

    def tap_and_time(step: str, condition: str, tap) -> None:
        walk.watch(**{step: condition})
        mark = network.mark()
        tap()
        record(step, walk.seen(step) - walk.input_at(), mark)

    try:
        page.goto(network.url + "/favicon.svg")
        walk.watch(open=FIGURES)
        mark = network.mark()
        page.goto(network.url + "/admin", wait_until="commit")
        shown = walk.seen("open")
        record("open", shown - int(page.evaluate("() => performance.timeOrigin")), mark)
        first_visit = first_visit_bytes(page, network, mark)

        tab = page.get_by_role("tab", name="Orders", exact=True)
        tap_and_time("orders", ORDER_ROWS, tab.click)
        tap_and_time("order", f"({ORDER_PAGE})({json.dumps(short)})",
                     page.get_by_role("button", name=f"View order #{short}").click)
        tap_and_time("status", UPDATED, page.locator("main").get_by_role("button", name="Start processing").click)
        tap_and_time("back", ORDER_ROWS, page.get_by_role("button", name="Back to orders").click)
        tap_and_time("products", f"({PRODUCT_ROWS})({json.dumps(product_name)})",
                     page.get_by_role("tab", name="Products", exact=True).click)
        tap_and_time("edit", f"({FORM_FILLED})({json.dumps(product_name)})",
                     page.get_by_role("button", name=f"Edit {product_name}").click)
        page.get_by_label("Price", exact=True).fill(price)
        tap_and_time("save", SAVED, page.get_by_role("button", name="Update Product").click)

        walk.watch(reopen=ORDER_ROWS)
        mark = network.mark()
        page.goto(network.url + "/admin?tab=orders", wait_until="commit")
        shown = walk.seen("reopen")
        record("reopen", shown - int(page.evaluate("() => performance.timeOrigin")), mark)
    finally:
        context.close()
    steps["first_visit"] = first_visit
    return steps


def table(results: dict) -> str:
    lines = step_table(results, STEPS, "s (round trips, requests, KB down)", lambda _profile, _step, s: (
        f"{s['median_s']:.2f} ({s['round_trips']:g}, {s['requests']:g}, {s['kb_down']:g})"))
    lines.append("| first visit to /admin, KB | " + " | ".join(f"{r['first_visit_kb']:.0f}" for r in results.values()) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="loopback,3g,2g")
    parser.add_argument("--walks", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    profiles = [PROFILES[name] for name in args.profiles.split(",")]
    proxy_port = free_port()
    public = f"http://127.0.0.1:{proxy_port}"
    env = {"DD_PUBLIC_URL": public, "DD_REGISTER_MAX_ATTEMPTS": "100000", "DD_PAGE_SIZE": "10"}
    results: dict[str, dict] = {}
    raw: dict[str, list] = {}
    with production_server(env, name="admin_phone") as server, \
            SlowNetwork(int(server.url.rsplit(":", 1)[1]), PROFILES["loopback"], port=proxy_port) as network, \
            sync_playwright() as playwright, httpx.Client(timeout=60) as client:
        admin = make_admin(server, email=f"phone-admin-{uuid.uuid4().hex[:8]}@example.com")
        product_name = f"Bench Shito Jar {uuid.uuid4().hex[:4]}"
        product = make_product(server, admin, name=product_name, stock=100_000, price="24.00")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tag = "admin" + uuid.uuid4().hex[:6]
        for profile, n in profile_walks(network, profiles, args.walks):
            order_id = place_order(client, server.url, register_shopper(client, server.url, n, tag), product)
            started = time.monotonic()
            steps = walk_once(browser, network, signed_in(public, admin), order_id, product_name, f"{24 + n % 5}.50")
            raw.setdefault(profile.name, []).append(steps)
            print(f"{profile.name} walk {len(raw[profile.name])}: "
                  + ", ".join(f"{k} {v['seconds']:.2f}s/{v['round_trips']}rt" for k, v in steps.items() if k in STEPS)
                  + f", first visit {steps['first_visit']['kb_down']} KB ({time.monotonic() - started:.0f} s)", flush=True)
        results.update({name: summarise(walks, STEPS) for name, walks in raw.items()})
        browser.close()
    print()
    print(table(results))
    path = write_results("admin_phone", {"profiles": {p.name: vars(p) for p in profiles}, "viewport": PHONE,
                                         "summary": results, "walks": raw})
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
