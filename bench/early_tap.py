"""A shared product link opened cold on a phone network, and Add to Cart tapped as soon as it shows.

A shopper opens a product's link (from WhatsApp: empty cache, no account) through the latency
proxy (tests/support/slow_network.py) in Chromium at 390 × 844 with touch, and taps Add to Cart
the moment the button shows. The page's words come from the server's HTML long before the app
behind them is live. The shopper taps again whenever nothing has answered for ``--patience``
seconds (nothing changed on screen: no badge, no busy button), as people do.

Per walk, from the link's opening (seconds): ``shown`` (the button is on screen), ``live`` (the
app's own button is there), ``added`` (the header's badge says "Cart, 1 item"), and ``taps`` (how
many taps it took). Medians over ``--walks`` walks per profile; results in
``bench/results/early_tap-<time>.json``.

    .venv/bin/python bench/early_tap.py [--profiles 3g,2g] [--walks 3] [--patience 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import free_port, make_admin, make_product, production_server, write_results

from tests.support.slow_network import PROFILES, SlowNetwork

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
BADGE_ONE = "() => [...document.querySelectorAll('header a .sr-only')].some((e) => e.textContent.trim() === 'Cart, 1 item')"
LIVE = ("(label) => { const b = document.querySelector('main button[aria-label=\"' + label + '\"]');"
        " return !!b && !b.disabled && !b.closest('[data-ssr-slot]'); }")
ANSWERED = ("(label) => (" + BADGE_ONE + ")() || [...document.querySelectorAll('main button')].some("
            "(b) => b.getAttribute('aria-label') === label && b.getAttribute('aria-busy') === 'true')")


def walk_once(browser, url: str, label: str, patience_s: float, limit_s: float = 60) -> dict:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        started = time.monotonic()
        page.goto(url, wait_until="commit")
        button = page.locator(f'main button[aria-label="{label}"]').first
        button.wait_for(state="visible", timeout=limit_s * 1000)
        shown = time.monotonic() - started
        live = added = None
        taps = 0
        while added is None and time.monotonic() - started < limit_s:
            box = button.bounding_box()
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            taps += 1
            waited = time.monotonic()
            while time.monotonic() - waited < patience_s:  # an answer on screen, else the shopper taps again
                if live is None and page.evaluate(LIVE, label):
                    live = time.monotonic() - started
                if page.evaluate(BADGE_ONE):
                    added = time.monotonic() - started
                    break
                if page.evaluate(ANSWERED, label):
                    waited = time.monotonic()  # the button says it is busy: the shopper waits on
                time.sleep(0.05)
        while live is None and time.monotonic() - started < limit_s:
            if page.evaluate(LIVE, label):
                live = time.monotonic() - started
            time.sleep(0.05)
        return {"shown": round(shown, 2), "live": round(live, 2) if live else None,
                "added": round(added, 2) if added else None, "taps": taps}
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="3g,2g")
    parser.add_argument("--walks", type=int, default=3)
    parser.add_argument("--patience", type=float, default=3.0)
    parser.add_argument("--label", default="", help="a name for this run in the results file")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    proxy_port = free_port()
    env = {"DD_PUBLIC_URL": f"http://127.0.0.1:{proxy_port}"}
    results: dict[str, dict] = {}
    with production_server(env, name="early_tap") as server, \
            SlowNetwork(int(server.url.rsplit(":", 1)[1]), PROFILES["loopback"], port=proxy_port) as network, \
            sync_playwright() as playwright:
        admin = make_admin(server, email=f"tap-admin-{uuid.uuid4().hex[:8]}@example.com")
        name = f"Bench Shared Gari {uuid.uuid4().hex[:4]}"
        product_id = make_product(server, admin, name=name, stock=100_000, price="18.00")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for profile_name in args.profiles.split(","):
            network.use(PROFILES[profile_name])
            walks = []
            for n in range(args.walks):
                walk = walk_once(browser, f"{network.url}/products/{product_id}", f"Add to Cart: {name}",
                                 args.patience)
                walks.append(walk)
                print(f"{profile_name} walk {n + 1}: {walk}", flush=True)
            results[profile_name] = {
                "walks": walks,
                **{key: statistics.median(w[key] for w in walks if w[key] is not None)
                   for key in ("shown", "live", "added", "taps") if any(w[key] is not None for w in walks)},
            }
        browser.close()
    print()
    print("| profile | shown s | live s | added s | taps |\n|---|---:|---:|---:|---:|")
    for profile_name, r in results.items():
        print(f"| {profile_name} | {r.get('shown', '–')} | {r.get('live', '–')} | {r.get('added', '–')} | {r.get('taps', '–')} |")
    path = write_results("early_tap" + (f"-{args.label}" if args.label else ""),
                         {"patience_s": args.patience, "viewport": PHONE, "results": results})
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
