"""Waiting for what a test cannot see in a page: a row written by a server, a worker's work."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(predicate: Callable[[], object], what: Callable[[], object] | str, timeout: float = 20.0,
          pause: float = 0.05) -> None:
    """Poll ``predicate`` until it holds; after ``timeout`` s fail, saying ``what`` was awaited
    (a callable: read at the failure, e.g. the rows as they then stood)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(pause)
    raise AssertionError(f"not done after {timeout} s: {what() if callable(what) else what}")
