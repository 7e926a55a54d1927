"""Requests sent at the same moment, each from its own client (its own connections, as separate
browsers would have), for the race tests over the real ASGI app."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi.testclient import TestClient

T = TypeVar("T")


def at_once(api_app, call: Callable[[TestClient, Any], T], args: Sequence[Any], timeout: float = 120) -> list[T]:
    """``call(own_client, arg)`` for each of ``args`` in its own thread, all released together by a
    barrier; the answers in the order they finished."""
    start = threading.Barrier(len(args))
    answers: list[T] = []
    lock = threading.Lock()

    def run(arg: Any) -> None:
        own_client = TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False)
        start.wait()
        answer = call(own_client, arg)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=run, args=(arg,)) for arg in args]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return answers
