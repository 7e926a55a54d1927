"""What the shop measures about itself, in Prometheus' text format (``GET /api/metrics``, issue 23).

prometheus-client is the Prometheus project's own Python client: the exposition format,
histograms with fixed buckets (cheap to observe on every event and request) and a multi-process
mode for several Granian workers (``PROMETHEUS_MULTIPROC_DIR``, set by the launcher when it
starts more than one: every worker writes its figures to files there and a scrape, whichever
worker answers it, adds them up).

- ``dd_ui_event_seconds{handler}``: a UI event's time on the server, waiting for its tab's state
  lock included; its ``_count`` is the events handled (``rate()`` gives events/s).
- ``dd_http_request_seconds{route,method,status}``: HTTP requests (the API by route template,
  pages and assets as ``page`` / ``asset``; methods other than the standard ones as ``other``).
- ``dd_ui_connected_tabs``, ``dd_ui_tab_states`` (tab states held in memory; with Redis they
  live there), ``dd_ui_state_bytes`` (their estimated size), ``dd_db_pool_in_use`` /
  ``dd_db_pool_size``, ``dd_message_queue_depth`` / ``dd_message_queue_oldest_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import random
import sys
import time
import types
from pathlib import Path

from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram,
                               disable_created_metrics, generate_latest, multiprocess)

from . import reflex_adapter, tab_states

log = logging.getLogger("discount_deals.metrics")

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
GAUGES_EVERY_S = 5.0
STATE_SAMPLE = 20  # tab states sized for the estimate of their memory
# How long a sample's mean size stands: walking 20 states' trees costs ~2 % of a busy worker's CPU
# when done at every refresh (py-spy at 40 shoppers); between samples the count alone moves.
STATE_SIZE_EVERY_S = 60.0

disable_created_metrics()  # no *_created series: Prometheus does not need them, and they double the text

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

UI_EVENT_SECONDS = Histogram(
    "dd_ui_event_seconds", "Time a UI event took on the server (its tab's state lock included)", ["handler"],
    buckets=_FAST,
)
UI_EVENT_ERRORS = Counter("dd_ui_event_errors", "UI events whose handler raised", ["handler"])
HTTP_SECONDS = Histogram(
    "dd_http_request_seconds", "HTTP requests by route template (pages and assets grouped)",
    ["route", "method", "status"], buckets=_FAST,
)
CONNECTED_TABS = Gauge("dd_ui_connected_tabs", "Browser tabs connected by websocket", multiprocess_mode="livesum")
TAB_STATES = Gauge("dd_ui_tab_states", "Tab states held in memory (0 with Redis)", multiprocess_mode="livesum")
STATE_BYTES = Gauge("dd_ui_state_bytes", "Estimated size of the tab states held", multiprocess_mode="livesum")
POOL_IN_USE = Gauge("dd_db_pool_in_use", "Database connections in use", multiprocess_mode="livesum")
POOL_SIZE = Gauge("dd_db_pool_size", "Database connections a worker may hold", multiprocess_mode="livesum")
QUEUE_DEPTH = Gauge("dd_message_queue_depth", "Messages waiting to be sent", multiprocess_mode="max")
GC_SECONDS = Counter("dd_gc_seconds", "Time the worker spent in Python's garbage collector", ["generation"])
QUEUE_OLDEST = Gauge("dd_message_queue_oldest_seconds", "Age of the oldest waiting message", multiprocess_mode="max")

_app = None


def handler_label(event_name: str) -> str:
    """``reflex___state____state.discount_deals___state___shop___catalog____products_state.set_sort``
    → ``products_state.set_sort`` (a bounded label: one per handler)."""
    state, _, handler = event_name.rpartition(".")
    return f"{state.rpartition('____')[2] or state}.{handler}" if state else handler


def observe_event(event_name: str, seconds: float, failed: bool) -> None:
    label = handler_label(event_name)
    UI_EVENT_SECONDS.labels(label).observe(seconds)
    if failed:
        UI_EVENT_ERRORS.labels(label).inc()


# The methods the shop answers (and CONNECT/TRACE, which it refuses): any other name a client
# sends is "other", so that made-up methods cannot grow the label set (issue 32).
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"})
OTHER = "other"


def method_label(method: str) -> str:
    """``method`` when it is a standard HTTP method, else ``other`` (a bounded label)."""
    return method if method in KNOWN_METHODS else OTHER


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    HTTP_SECONDS.labels(route, method_label(method), str(status)).observe(seconds)


def install(app) -> None:
    """Time every UI event of ``app`` and the garbage collector, and keep the gauges current (a
    lifespan task)."""
    global _app
    _app = app
    reflex_adapter.time_ui_events(observe_event)
    app.register_lifespan_task(_refresh_gauges_forever)
    if _time_gc not in gc.callbacks:
        gc.callbacks.append(_time_gc)


_gc_started = [0.0]


def _time_gc(phase: str, info: dict) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        GC_SECONDS.labels(str(info.get("generation", ""))).inc(time.perf_counter() - _gc_started[0])


async def _refresh_gauges_forever():
    while True:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(refresh_gauges)
        await asyncio.sleep(GAUGES_EVERY_S)


def refresh_gauges() -> None:
    """Read what the gauges show now (this worker's tabs, states and pool; the shared queue)."""
    from ..db import get_engine
    from ..services.messages.outbox import queue_stats

    if _app is not None:
        CONNECTED_TABS.set(len(reflex_adapter.connected_sessions(_app)))
        held = tab_states.held(_app)
        TAB_STATES.set(held or 0)
        STATE_BYTES.set(_estimated_state_bytes(held or 0))
    engine = get_engine()
    pool = engine.pool
    POOL_IN_USE.set(pool.checkedout() if hasattr(pool, "checkedout") else 0)
    POOL_SIZE.set(pool.size() if hasattr(pool, "size") else 0)
    from sqlmodel import Session

    with Session(engine) as session:
        stats = queue_stats(session)
    QUEUE_DEPTH.set(stats.depth)
    QUEUE_OLDEST.set(stats.oldest_seconds)


_state_size = {"mean": 0.0, "at": float("-inf")}


def _estimated_state_bytes(held: int) -> float:
    """The objects a sample of tab states reach (their whole tree), times how many there are: an
    upper bound, since cards shared between tabs (state/shop/shared_views.py) count in each. The
    sample's mean is taken again every ``STATE_SIZE_EVERY_S``."""
    now = time.monotonic()
    if now - _state_size["at"] >= STATE_SIZE_EVERY_S or not _state_size["mean"]:
        manager = reflex_adapter.state_manager(_app)
        states = list(getattr(manager, "states", {}).values())
        if not states:
            return 0.0
        sample = random.sample(states, min(STATE_SAMPLE, len(states)))
        _state_size.update(mean=sum(deep_size(state) for state in sample) / len(sample), at=now)
    return _state_size["mean"] * held


def deep_size(root: object, limit: int = 200_000) -> int:
    """Bytes of ``root`` and everything it reaches through containers and instance attributes
    (classes, functions and modules aside; each object once)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj, 0)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            attributes = getattr(obj, "__dict__", None)
            if isinstance(attributes, dict):
                stack.append(attributes)
            for slot in getattr(type(obj), "__slots__", ()):
                if isinstance(slot, str) and hasattr(obj, slot):
                    stack.append(getattr(obj, slot))
    return total


def render() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type."""
    with contextlib.suppress(Exception):
        refresh_gauges()
    if not MULTIPROCESS_DIR:
        from prometheus_client import REGISTRY

        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    _forget_dead_workers()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def _forget_dead_workers() -> None:
    """A worker that died (Granian starts another) must not be counted in the live gauges."""
    for path in Path(MULTIPROCESS_DIR).glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid), MULTIPROCESS_DIR)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
