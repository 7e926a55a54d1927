"""Running a coroutine from a test, whatever ran before it.

The browser suite's Playwright (sync API) leaves an event loop running in the main thread, and
``asyncio.run`` refuses to start inside one; the unit tests run after it. A loop of our own in a
thread works either way. The context is copied so context variables set by the test (Reflex's
event context, for one) are seen by the coroutine.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion on a fresh event loop in a worker thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(contextvars.copy_context().run, asyncio.run, coroutine).result()
