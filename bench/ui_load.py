"""The storefront UI under load: synthetic shoppers over Reflex's websocket (issue 23).

Each shopper is one browser tab (bench/_ui_tab.py) that replays what Debian's Chromium sent on
the same server a moment earlier (bench/_ui_record.py): it opens /products, goes to another page,
changes the sort, searches, opens a product, adds it to the cart, sometimes (signed in) opens
/checkout, and returns to /products; it thinks 2 s between clicks. A click's time runs from its
first frame sent to the frame that puts its result on screen (the grid's new products, the
product, the cart's "added"), so redirects and on-load events a click causes are inside it.

    .venv/bin/python bench/ui_load.py                                  # 25, 100, 300, 600 shoppers
    .venv/bin/python bench/ui_load.py --shoppers 300 --seconds 60 --repeat 3
    .venv/bin/python bench/ui_load.py --capacity 40                    # events/s with no think time
    .venv/bin/python bench/ui_load.py --churn 20000                    # p95 at 25 shoppers: fresh,
                                                                       #  after 20,000 tabs, after a restart
    .venv/bin/python bench/ui_load.py --idle 1000                      # memory per idle tab, and when freed
    .venv/bin/python bench/ui_load.py --redis --workers 2 --shoppers 1000

It starts the production launcher itself (SQLite, one Granian worker, as ``make run``; with
--redis, a throwaway Redis and GRANIAN_WORKERS) unless --url names a running server. The load
generator runs on the same 2 cores as the server, as the issue measured. Results:
bench/results/ui_load-<label>-<time>.json and a line per run on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import Server, percentile, production_server, register_shopper, rss_kib, write_results
from _ui_record import record, signed_in_storage
from _ui_tab import Recording, Tab, added_to_cart, listing_shown, page_ready, product_shown

SORTS = ["price-low", "price-high", "rating", "discount", "name"]
SEARCH_WORDS = ["rice", "oil", "soap", "milk", "juice", "tea", "sugar", "phone", "towel", "pack", "water", "bread"]
ACTIONS = ("open", "page", "sort", "search", "product", "add_to_cart", "checkout", "products")
ACTION_TIMEOUT_S = 30
VISIT_ROUNDS = 3  # rounds of the journey in one tab; then the tab closes and a new visitor arrives
CHECKOUT_SHARE = 0.4  # of a signed-in shopper's rounds that open /checkout


@dataclass
class Run:
    think_s: float
    started: float = field(default_factory=time.monotonic)
    measuring_from: float = 0.0
    stopping: bool = False
    times: dict[str, list[float]] = field(default_factory=lambda: {a: [] for a in ACTIONS})
    errors: dict[str, int] = field(default_factory=dict)
    events_sent: int = 0
    events_in_window: int = 0
    server_events_per_s: int | None = None  # events the server handled (on-load chains included)
    cpu_share: dict[str, float] = field(default_factory=dict)  # cores each part used in the window
    rss_kib: list[int] = field(default_factory=list)

    def measuring(self) -> bool:
        return self.measuring_from and time.monotonic() >= self.measuring_from

    def record(self, action: str, seconds: float, events: int) -> None:
        if self.measuring():
            self.times[action].append(seconds)
            self.events_in_window += events

    def error(self, action: str, exc: BaseException) -> None:
        if self.measuring() or not self.measuring_from:
            key = f"{action}: {type(exc).__name__}"
            self.errors[key] = self.errors.get(key, 0) + 1


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the processes have used so far, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


OTHER_PIDS: dict[str, list[int]] = {}  # e.g. {"redis": [pid]}: their CPU is reported beside the server's


@dataclass
class Setup:
    url: str
    recording: Recording
    products: list[str]
    accounts: list[dict]  # {access, refresh}: one per signed-in shopper slot (every fourth)


async def _timed(run: Run, tab: Tab, action: str, send, done) -> bool:
    before = tab.sent
    try:
        seconds = await tab.act(send, done, ACTION_TIMEOUT_S)
    except Exception as exc:  # a timeout or a dropped connection is the shopper's error
        run.error(action, exc)
        return False
    run.record(action, seconds, tab.sent - before)
    return True


async def shopper(run: Run, setup: Setup, n: int, delay: float) -> None:
    """One shopper slot: visit after visit (a new tab each, as new people arrive) until the end.
    Every fourth slot is signed in with an account of its own, whose cart a visit starts empty."""
    rng = random.Random(n)
    await asyncio.sleep(delay)
    account = setup.accounts[n // 4] if n % 4 == 0 and n // 4 < len(setup.accounts) else None
    async with httpx.AsyncClient(base_url=setup.url, timeout=ACTION_TIMEOUT_S) as api:
        while not run.stopping:
            if account is not None:
                await _empty_cart(api, account)
            if not await visit(run, setup, rng, account):
                await asyncio.sleep(1)  # an error: the next visit is a new tab


async def _empty_cart(api: httpx.AsyncClient, account: dict) -> None:
    headers = {"Authorization": f"Bearer {account['access']}"}
    lines = (await api.get("/api/cart/cartitems/", headers=headers)).json().get("results") or []
    if lines:
        await api.delete(f"/api/cart/{lines[0]['cart']}/clear/", headers=headers)


async def visit(run: Run, setup: Setup, rng: random.Random, account: dict | None) -> bool:
    """Open /products in a new tab and go round the journey VISIT_ROUNDS times; False on an error."""
    storage = signed_in_storage(setup.recording.signed_in_vars, account) if account else None
    tab = Tab(setup.url, setup.recording, uuid.uuid4().hex, storage)

    async def think() -> bool:
        if run.think_s:
            await asyncio.sleep(rng.uniform(0.8, 1.2) * run.think_s)
        return not run.stopping

    try:
        try:
            seconds = await tab.open("/products", listing_shown, ACTION_TIMEOUT_S)
            run.record("open", seconds, 1)
        except Exception as exc:
            run.error("open", exc)
            return False
        sort = "name"
        for _round in range(VISIT_ROUNDS):
            sort = rng.choice([s for s in SORTS if s != sort])
            product = rng.choice(setup.products)
            steps = [
                ("page", partial(tab.event, "go_to_page", {"page": str(rng.randint(2, 5))}), listing_shown),
                ("sort", partial(tab.event, "set_sort", {"value": sort}), listing_shown),
                ("search", partial(tab.event, "apply_search", {"value": rng.choice(SEARCH_WORDS)}), listing_shown),
                ("product", partial(tab.navigate, f"/products/{product}"), product_shown),
                ("add_to_cart", partial(tab.event, "add_to_cart", {"product_id": product}), added_to_cart),
            ]
            if account and rng.random() < CHECKOUT_SHARE:
                steps.append(("checkout", partial(tab.navigate, "/checkout"), page_ready))
            steps.append(("products", partial(tab.navigate, "/products"), listing_shown))
            sort = "name"
            for action, send, done in steps:
                if not await think():
                    return True
                if not await _timed(run, tab, action, send, done):
                    return False
        return True
    finally:
        await tab.close()


async def sample_rss(run: Run, server: Server | None) -> None:
    while not run.stopping:
        if server is not None:
            run.rss_kib.append(rss_kib(server.pids()))
        await asyncio.sleep(1)


def _cpu_split(server: Server | None) -> dict[str, float]:
    """CPU seconds so far: the server (launcher, web workers, message worker), each other
    process named in OTHER_PIDS, and this load generator."""
    split = {"server": cpu_seconds(server.pids()) if server is not None else 0.0}
    for name, pids in OTHER_PIDS.items():
        split[name] = cpu_seconds(pids)
    usage = os.times()
    split["load_generator"] = usage.user + usage.system
    return split


async def load(setup: Setup, server: Server | None, shoppers: int, seconds: float, think_s: float) -> Run:
    """``shoppers`` tabs arrive over a ramp, then clicks are timed for ``seconds``."""
    run = Run(think_s=think_s)
    ramp = max(2.0, min(30.0, shoppers / 25))
    tasks = [asyncio.create_task(shopper(run, setup, n, ramp * n / shoppers)) for n in range(shoppers)]
    sampler = asyncio.create_task(sample_rss(run, server))
    await asyncio.sleep(ramp + max(think_s, 1.0))
    handled_before = await asyncio.to_thread(server_events, setup.url)
    cpu_before = _cpu_split(server)
    run.measuring_from = time.monotonic()
    await asyncio.sleep(seconds)
    handled_after = await asyncio.to_thread(server_events, setup.url)
    cpu_after = _cpu_split(server)
    run.cpu_share = {name: round((cpu_after[name] - cpu_before[name]) / seconds, 2) for name in cpu_after}
    run.stopping = True
    window = time.monotonic() - run.measuring_from
    if handled_before is not None and handled_after is not None:
        run.server_events_per_s = round((handled_after - handled_before) / window)
    done, pending = await asyncio.wait(tasks, timeout=ACTION_TIMEOUT_S + 5)
    for task in pending:
        task.cancel()
    sampler.cancel()
    run.events_sent = int(run.events_in_window / window)
    return run


def summarise(run: Run, shoppers: int, seconds: float) -> dict:
    clicks = [t for action, times in run.times.items() if action != "open" for t in times]
    per_action = {
        action: {"n": len(times), "p50_ms": _ms(percentile(times, 0.5)), "p95_ms": _ms(percentile(times, 0.95)),
                 "p99_ms": _ms(percentile(times, 0.99))}
        for action, times in run.times.items() if times
    }
    return {
        "shoppers": shoppers,
        "seconds": seconds,
        "think_s": run.think_s,
        "clicks": len(clicks),
        "click_p50_ms": _ms(percentile(clicks, 0.5)),
        "click_p95_ms": _ms(percentile(clicks, 0.95)),
        "click_p99_ms": _ms(percentile(clicks, 0.99)),
        "events_per_s": run.events_sent,
        "server_events_per_s": run.server_events_per_s,
        "clicks_per_s": round(len(clicks) / seconds, 1),
        "errors": sum(run.errors.values()),
        "error_kinds": run.errors,
        "rss_mib_max": round(max(run.rss_kib, default=0) / 1024, 1),
        "cores_used": run.cpu_share,
        "rss_mib_end": round((run.rss_kib[-1] if run.rss_kib else 0) / 1024, 1),
        "actions": per_action,
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1) if seconds == seconds else float("nan")


def print_line(label: str, result: dict) -> None:
    print(f"{label}: {result['shoppers']} shoppers, {result['clicks']} clicks, p50 {result['click_p50_ms']} ms, "
          f"p95 {result['click_p95_ms']} ms, p99 {result['click_p99_ms']} ms, {result['events_per_s']} events/s "
          f"sent ({result['server_events_per_s']} handled), "
          f"{result['errors']} errors, RSS max {result['rss_mib_max']} MiB, cores used {result['cores_used']}", flush=True)


def prepare(url: str, accounts: int, record_frames: str | None = None) -> Setup:
    with httpx.Client(timeout=60) as client:
        products = [p["id"] for p in client.get(f"{url}/api/products/", params={"page_size": 100}).json()["results"]
                    if p.get("stock", 0) > 0]
        tag = f"ui{uuid.uuid4().hex[:6]}"
        tokens = []
        for n in range(accounts):
            headers = register_shopper(client, url, n, tag)
            login = client.post(f"{url}/api/auth/token/", json={"email": f"{tag}-{n}@example.com",
                                                                 "password": "shopper-secret-1"}).json()
            tokens.append({"access": login["access"], "refresh": login["refresh"]})
            del headers
    recording = Recording(**record(url, tokens[0] if tokens else None, record_frames))
    return Setup(url=url, recording=recording, products=products, accounts=tokens)


# --- scenarios --------------------------------------------------------------------------------


def scenario_levels(setup: Setup, server: Server | None, levels: list[int], seconds: float, think: float,
                    repeat: int, label: str) -> list[dict]:
    results = []
    for shoppers in levels:
        runs = []
        for _ in range(repeat):
            runs.append(summarise(asyncio.run(load(setup, server, shoppers, seconds, think)), shoppers, seconds))
            print_line(label, runs[-1])
            time.sleep(3)
        results.append(_median_of(runs))
    return results


def _median_of(runs: list[dict]) -> dict:
    if len(runs) == 1:
        return runs[0]
    keys = ("click_p50_ms", "click_p95_ms", "click_p99_ms", "events_per_s", "clicks_per_s", "rss_mib_max")
    runs_with_server = [r for r in runs if r.get("server_events_per_s") is not None]
    median = {k: statistics.median(r[k] for r in runs) for k in keys}
    if runs_with_server:
        median["server_events_per_s"] = statistics.median(r["server_events_per_s"] for r in runs_with_server)
    return {**runs[0], **median, "errors": sum(r["errors"] for r in runs), "runs": runs}


async def _churn(url: str, recording: Recording, tabs: int, concurrency: int = 20) -> tuple[int, float]:
    """Open and close ``tabs`` tabs on /products (each a real state on the server)."""
    opened = 0
    failures = 0
    started = time.monotonic()
    queue = iter(range(tabs))

    async def worker() -> None:
        nonlocal opened, failures
        for _ in queue:
            tab = Tab(url, recording, uuid.uuid4().hex)
            try:
                await tab.open("/products", listing_shown, ACTION_TIMEOUT_S)
                opened += 1
            except Exception:
                failures += 1
            finally:
                await tab.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    if failures:
        print(f"churn: {failures} tabs failed to open", flush=True)
    return opened, time.monotonic() - started


async def _idle(url: str, recording: Recording, tabs: int) -> list[Tab]:
    opened: list[Tab] = []
    sem = asyncio.Semaphore(20)

    async def one() -> None:
        async with sem:
            tab = Tab(url, recording, uuid.uuid4().hex)
            await tab.open("/products", listing_shown, ACTION_TIMEOUT_S)
            opened.append(tab)

    await asyncio.gather(*(one() for _ in range(tabs)))
    return opened


def metric(url: str, name: str) -> float | None:
    """One of the server's figures (/api/metrics), when it publishes it."""
    try:
        text = httpx.get(f"{url}/api/metrics", timeout=10).text
    except httpx.HTTPError:
        return None
    for line in text.splitlines():
        if line.startswith(f"{name} "):
            return float(line.split()[1])
    return None


def server_events(url: str) -> float | None:
    """Events the server has handled so far (the counts of dd_ui_event_seconds, all handlers)."""
    try:
        text = httpx.get(f"{url}/api/metrics", timeout=10).text
    except httpx.HTTPError:
        return None
    counts = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("dd_ui_event_seconds_count")]
    return sum(counts) if counts else None


def tab_states(url: str) -> float | None:
    """The server's count of tab states held."""
    return metric(url, "dd_ui_tab_states")


async def _bare_sockets(url: str, count: int) -> list:
    """``count`` websockets opened the way a tab's is (Engine.IO's open packet), without a tab
    behind them: what the server's websocket itself costs, state aside."""
    import websockets

    opened = []
    address = url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"
    for _ in range(count):
        socket = await websockets.connect(address, origin=url, ping_interval=None, compression=None)
        await socket.recv()
        opened.append(socket)
    return opened


def scenario_idle(setup: Setup, server: Server, tabs: int, wait_s: float) -> dict:
    """Memory per idle tab, split into the websocket's own cost (the same number of bare
    websockets, open meanwhile) and the tab's (its state and Socket.IO session); then how long
    until the closed tabs' states are gone, and whether the same number again grows memory."""

    async def go() -> dict:
        await asyncio.sleep(2)
        before = rss_kib(server.pids())
        bare = await _bare_sockets(setup.url, tabs)
        await asyncio.sleep(5)
        with_sockets = rss_kib(server.pids())
        opened = await _idle(setup.url, setup.recording, tabs)
        await asyncio.sleep(5)
        during = rss_kib(server.pids())
        held = tab_states(setup.url)
        state_bytes = metric(setup.url, "dd_ui_state_bytes")
        for socket in bare:
            await socket.close()
        for tab in opened:
            await tab.close()
        closed_at = time.monotonic()
        freed_after = None
        while time.monotonic() - closed_at < wait_s:
            await asyncio.sleep(10)
            states = tab_states(setup.url)
            if states is not None and states <= 1:
                freed_after = time.monotonic() - closed_at
                break
        after = rss_kib(server.pids())
        again = await _idle(setup.url, setup.recording, tabs)  # freed memory is reused, not grown
        await asyncio.sleep(5)
        reopened = rss_kib(server.pids())
        for tab in again:
            await tab.close()
        per_socket = (with_sockets - before) / tabs
        per_tab = (during - with_sockets) / max(len(opened), 1)
        return {"tabs": len(opened), "rss_mib_before": round(before / 1024, 1),
                "rss_mib_bare_sockets": round(with_sockets / 1024, 1), "rss_mib_idle_tabs": round(during / 1024, 1),
                "kib_per_bare_websocket": round(per_socket, 1), "kib_per_idle_tab": round(per_tab, 1),
                "kib_per_idle_tab_beyond_its_websocket": round(per_tab - per_socket, 1),
                "states_held": held, "state_kib_each_upper_bound": round((state_bytes or 0) / 1024 / max(held or 1, 1), 1),
                "freed_after_s": None if freed_after is None else round(freed_after),
                "rss_mib_after_close": round(after / 1024, 1), "rss_mib_same_tabs_again": round(reopened / 1024, 1)}
    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--shoppers", default="25,100,300,600", help="comma-separated levels")
    parser.add_argument("--seconds", type=float, default=60, help="measured seconds per level")
    parser.add_argument("--think", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--capacity", type=int, default=0, help="shoppers with no think time: events/s")
    parser.add_argument("--churn", type=int, default=0, help="tabs opened and closed before re-measuring 25 shoppers")
    parser.add_argument("--idle", type=int, default=0, help="idle tabs: memory per tab and when it is freed")
    parser.add_argument("--idle-wait", type=float, default=900)
    parser.add_argument("--redis", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--accounts", type=int, default=0,
                        help="signed-in shoppers' accounts (default: one per fourth shopper of the largest level)")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    parser.add_argument("--label", default="")
    parser.add_argument("--frames", help="also write the recorded browser frames to this file")
    args = parser.parse_args()
    label = args.label or ("redis-%d-workers" % args.workers if args.redis else "sqlite-1-worker")
    levels = [int(x) for x in args.shoppers.split(",") if x]
    result: dict = {"label": label, "think_s": args.think}
    with ExitStack() as stack:
        # The shoppers' accounts are registered from one address: lift the per-address limit.
        env = {"DD_REGISTER_MAX_ATTEMPTS": "1000000", "DD_ACCESS_TOKEN_SECONDS": "14400", **dict(item.split("=", 1) for item in args.env)}
        if args.redis:
            from tests.support.servers import redis

            redis_server = stack.enter_context(redis())
            OTHER_PIDS["redis"] = [redis_server.process.pid]
            env.update(REFLEX_REDIS_URL=redis_server.url, GRANIAN_WORKERS=str(args.workers),
                       DD_SECRET_KEY=os.urandom(32).hex())
        server = None if args.url else stack.enter_context(production_server(env, name=f"ui-load-{label}"))
        url = args.url or server.url
        biggest = max([*levels, args.capacity, 25])
        accounts = args.accounts or (biggest + 3) // 4
        setup = prepare(url, accounts, args.frames)
        result["server"] = {"url": url, "settings": {k: ("***" if "SECRET" in k else v) for k, v in env.items()}}
        if args.idle:
            result["idle"] = scenario_idle(setup, server, args.idle, args.idle_wait)
            print(f"{label}: idle {result['idle']}", flush=True)
        elif args.capacity:
            result["capacity"] = scenario_levels(setup, server, [args.capacity], args.seconds, 0, args.repeat, label)
        elif args.churn:
            fresh = scenario_levels(setup, server, [25], args.seconds, args.think, args.repeat, label + " fresh")
            opened, took = asyncio.run(_churn(url, setup.recording, args.churn))
            print(f"{label}: {opened} tabs opened and closed in {took:.0f} s", flush=True)
            churned = scenario_levels(setup, server, [25], args.seconds, args.think, args.repeat, label + " churned")
            result["churn"] = {"tabs": opened, "seconds": round(took), "fresh": fresh[0], "after_churn": churned[0]}
            if server is not None:
                restarted = stack.enter_context(_restarted(server))
                setup = prepare(restarted.url, accounts)
                after = scenario_levels(setup, restarted, [25], args.seconds, args.think, args.repeat,
                                        label + " restarted")
                result["churn"]["after_restart"] = after[0]
            for key in ("after_churn", "after_restart"):
                if key in result["churn"]:
                    result["churn"][f"{key}_ratio"] = round(
                        result["churn"][key]["click_p95_ms"] / result["churn"]["fresh"]["click_p95_ms"], 2)
            print(f"{label}: churn {({k: v for k, v in result['churn'].items() if 'ratio' in k})}", flush=True)
        else:
            result["levels"] = scenario_levels(setup, server, levels, args.seconds, args.think, args.repeat, label)
    path = write_results(f"ui_load-{label}", result)
    print(f"written to {path}")


def _restarted(server: Server):
    """The same server (its database and state folder kept) stopped and started again."""
    from contextlib import contextmanager

    from _harness import restart_server

    @contextmanager
    def cm():
        with restart_server(server) as again:
            yield again

    return cm()


if __name__ == "__main__":
    main()
