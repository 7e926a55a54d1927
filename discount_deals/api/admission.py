"""Admission of the API's writing requests: on SQLite they queue in the event loop, one at a time.

Why: SQLite has one write lock per database. A writing request used to take it in one worker
thread (its first statement) and release it in another (the commit after the response was
serialised). With 60 writers at once, 40 threads (the whole thread pool) sat in SQLite's busy
wait for the lock while its holder waited for a free thread to serialise its response: every
writer stalled for the 30 s busy timeout. Now a writing request waits for its turn here,
without a thread, and enters the thread pool only when it holds the turn, so the lock holder
always finds a thread and the lock is held for milliseconds.

The wait is bounded: a request that cannot start within ``DD_WRITE_WAIT_SECONDS``, or arrives
when ``DD_WRITE_QUEUE_LIMIT`` requests are already waiting, gets 503 with ``Retry-After`` at
once instead of hanging. On PostgreSQL nothing queues here (row locks and MVCC let writers run
side by side). The turn is per worker process; between processes SQLite's busy timeout applies.

A request holds the turn to its end, so slow work in it holds every writer of the worker back:
a login's argon2 hash (~20 ms of CPU, far more on a busy machine) made a cart wait 330-470 ms
beside eight clients logging in (bench/password_lock.py). Such an endpoint is marked
:func:`takes_turns` and takes the turn for each step that writes (:func:`in_turn`), the hash in
between running without it (:func:`off_turn`, at most one per core).
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from fastapi import Request

from ..services import ServiceError
from ..config.settings import get_settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Endpoints that write nothing themselves but call one that does (the fake payment provider's
# approve/decline buttons post to our webhook in-process): holding the turn there would make
# the webhook wait for the very request that waits for it.
NO_TURN_PATHS = ("/payments/fake/",)
BUSY = "The service is busy. Please try again."
P = ParamSpec("P")
T = TypeVar("T")


class Overloaded(ServiceError):
    """503: the request was refused before it changed anything; the client may retry."""

    status = 503

    def __init__(self, retry_after: int):
        super().__init__(BUSY)
        self.headers = {"Retry-After": str(max(1, retry_after))}


@dataclass
class _WriteQueue:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    waiting: int = 0
    # Recent time a turn was held (seconds, smoothed): estimates Retry-After.
    typical_turn: float = 0.02


_queue: RunVar[_WriteQueue] = RunVar("dd_write_queue")
_limiter_sized: RunVar[bool] = RunVar("dd_thread_limiter_sized")


def _current_queue() -> _WriteQueue:
    """One queue per event loop (a worker process has one loop; tests make several)."""
    try:
        return _queue.get()
    except LookupError:
        queue = _WriteQueue()
        _queue.set(queue)
        return queue


def size_thread_pool() -> None:
    """Match the worker's thread pool to its database pool (once per event loop).

    A thread that runs an endpoint needs a connection; more threads than connections would only
    wait on the pool.
    """
    try:
        _limiter_sized.get()
    except LookupError:
        anyio.to_thread.current_default_thread_limiter().total_tokens = max(2, get_settings().db_pool_size)
        _limiter_sized.set(True)


_reads: RunVar[anyio.CapacityLimiter] = RunVar("dd_read_limiter")


def read_limiter() -> anyio.CapacityLimiter:
    """Threads the product reads may use at once (per event loop; ``DD_READ_THREADS``).

    Requests beyond it wait in the event loop, holding no thread: on 2 cores, 32 concurrent
    listings went from 180 to about 300-360 requests/s (bench/api_products.py), since threads
    that mostly hold the GIL only slow each other down."""
    try:
        return _reads.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(get_settings().read_threads)
        _reads.set(limiter)
        return limiter


async def _read_body_first(request: Request) -> None:
    """Read a body the endpoint reads itself (bulk uploads) before queueing, so a slow upload
    never holds the turn. Bodies over the endpoint's limit (api/bodies.py) or the bulk limit are
    left to the endpoint, which refuses them with its own message."""
    length = request.headers.get("content-length", "")
    limit = min(get_settings().bulk_max_bytes, getattr(request, "body_limit", get_settings().bulk_max_bytes))
    if length.isascii() and length.isdigit() and 0 < int(length) <= limit:
        await request.body()


def takes_turns(endpoint: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Mark an endpoint that takes the write turn itself, a step at a time (:func:`in_turn`), so
    that its slow work in between (an argon2 hash: ~20 ms of CPU) holds no turn: a login used to
    keep every cart and checkout of its worker waiting for it. It must not use ``WriteSessionDep``
    (that session would commit after the turn is gone): each step opens and commits its own."""
    endpoint.takes_turns = True  # type: ignore[attr-defined]
    return endpoint


def _takes_turns(request: Request) -> bool:
    route = request.scope.get("route")
    return bool(getattr(getattr(route, "endpoint", None), "takes_turns", False))


@asynccontextmanager
async def _turn() -> AsyncIterator[None]:
    """Hold this worker's write turn (SQLite only): 503 with ``Retry-After`` when the queue is full
    or the turn does not come within ``DD_WRITE_WAIT_SECONDS``."""
    settings = get_settings()
    queue = _current_queue()
    if queue.waiting >= settings.write_queue_limit:
        raise Overloaded(math.ceil(queue.waiting * queue.typical_turn))
    queue.waiting += 1
    try:
        with anyio.move_on_after(settings.write_wait_seconds) as waited:
            await queue.lock.acquire()
    finally:
        queue.waiting -= 1
    if waited.cancelled_caught:
        raise Overloaded(math.ceil(max(1.0, queue.waiting * queue.typical_turn)))
    started = anyio.current_time()
    try:
        yield
    finally:
        queue.typical_turn = 0.9 * queue.typical_turn + 0.1 * (anyio.current_time() - started)
        queue.lock.release()


async def in_turn(work: Callable[[], T]) -> T:
    """Run ``work`` in a worker thread while holding the write turn (on SQLite; elsewhere it just
    runs): a step of a :func:`takes_turns` endpoint that writes, committing before it returns."""
    size_thread_pool()
    if not get_settings().is_sqlite:
        return await anyio.to_thread.run_sync(work)
    async with _turn():
        return await anyio.to_thread.run_sync(work)


_cpu: RunVar[anyio.CapacityLimiter] = RunVar("dd_cpu_limiter")


def _cpu_limiter() -> anyio.CapacityLimiter:
    """As many CPU-bound steps at once as the machine has cores (per event loop): eight argon2
    hashes at once on two cores each took four times as long, and registrations per second fell."""
    try:
        return _cpu.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(os.cpu_count() or 1)
        _cpu.set(limiter)
        return limiter


async def off_turn(work: Callable[[], T]) -> T:
    """Run ``work``, CPU-bound work that opens no write transaction (a password hash), in a worker
    thread, holding no turn; at most one per core at once."""
    size_thread_pool()
    return await anyio.to_thread.run_sync(work, limiter=_cpu_limiter())


async def write_admission(request: Request) -> AsyncIterator[None]:
    """FastAPI dependency (app-wide, function scope): hold the write turn for the whole endpoint
    (except one that :func:`takes_turns` itself).

    Function scope releases the turn once the response is serialised and the session dependency
    has committed, before the response is sent to the client.
    """
    size_thread_pool()
    settings = get_settings()
    if (request.method in SAFE_METHODS or not settings.is_sqlite or _takes_turns(request)
            or any(p in request.url.path for p in NO_TURN_PATHS)):
        yield
        return
    await _read_body_first(request)
    async with _turn():
        yield
