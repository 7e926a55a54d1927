"""A synthetic browser tab for bench/ui_load.py: Reflex's websocket protocol, nothing more.

A tab speaks to the server as the compiled React app does (Engine.IO 4 / Socket.IO 5 over one
websocket on ``/_event/``): it connects with the hydrate event in the CONNECT packet, answers the
server's pings, sends events as ``42/_event,["event", {...}]`` and applies what comes back the way
the browser would: a ``_redirect`` becomes a navigation (``update_vars_internal`` with the tab's
browser storage, then ``on_load_internal`` for the new URL), scripts and toasts are ignored.

The frames it sends are templates taken from a real browser (bench/_ui_record.py), so it sends
what Chromium sent: the same event names, payload shapes, state hashes and storage variables.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import websockets

EVENT_PREFIX = "42/_event,"
Update = dict[str, Any]
Predicate = Callable[[Update], bool]


@dataclass
class Recording:
    """What a real browser sent, reduced to templates (see bench/_ui_record.py)."""

    connect_auth: dict  # the CONNECT packet's auth: {"event": hydrate_and_load, "state_schema": ...}
    storage_vars: dict  # update_vars_internal's vars on a navigation (browser storage)
    handlers: dict[str, str]  # short name (go_to_page, set_sort, ...) -> full event name
    update_vars_name: str
    on_load_name: str
    signed_in_vars: dict = field(default_factory=dict)  # a signed-in tab's storage (tokens replaced)

    @classmethod
    def load(cls, path) -> Recording:
        return cls(**json.loads(open(path).read()))


def router_data(path: str, route_params: dict[str, str] | None = None) -> dict:
    parts = urlsplit(path)
    query = {**dict(parse_qsl(parts.query)), **(route_params or {})}
    data: dict[str, Any] = {"pathname": parts.path, "asPath": path}
    if query:
        data["query"] = query
    return data


def product_route_params(path: str) -> dict[str, str]:
    parts = urlsplit(path).path.strip("/").split("/")
    return {"product_id": parts[1]} if len(parts) == 2 and parts[0] == "products" else {}


class Tab:
    """One browser tab: one websocket, one server-side state."""

    def __init__(self, url: str, recording: Recording, token: str, storage: dict | None = None):
        self.ws_url = url.replace("http://", "ws://").replace("https://", "wss://") + \
            f"/_event/?token={token}&EIO=4&transport=websocket"
        self.origin = url
        self.recording = recording
        self.storage = storage if storage is not None else dict(recording.storage_vars)
        self.path = "/"
        self.sent = 0  # events sent (the CONNECT's hydrate counts as one)
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._waiter: tuple[Predicate, asyncio.Future] | None = None
        self.closed = asyncio.Event()
        self.error: str | None = None

    # --- connection -----------------------------------------------------------------------

    async def open(self, path: str, done: Predicate, timeout: float = 30) -> float:
        """Connect on ``path`` (a page load); seconds until ``done`` holds."""
        started = time.perf_counter()
        self._ws = await websockets.connect(self.ws_url, origin=self.origin, max_size=None, open_timeout=timeout,
                                            ping_interval=None, compression=None)
        opening = await asyncio.wait_for(self._ws.recv(), timeout)
        if not str(opening).startswith("0"):
            raise RuntimeError(f"unexpected opening packet: {str(opening)[:80]}")
        self.path = path
        auth = json.loads(json.dumps(self.recording.connect_auth))
        auth["event"]["router_data"] = router_data(path, product_route_params(path))
        if self.storage:
            auth["event"]["payload"]["vars"] = self.storage
        future = self._expect(done)
        self._reader = asyncio.create_task(self._read())
        await self._ws.send("40/_event," + json.dumps(auth))
        self.sent += 1
        await asyncio.wait_for(future, timeout)
        return time.perf_counter() - started

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass

    # --- events ---------------------------------------------------------------------------

    async def act(self, send: Callable[[], Any], done: Predicate, timeout: float = 30) -> float:
        """Run ``send`` (it sends the click's events); seconds until ``done`` holds."""
        started = time.perf_counter()
        future = self._expect(done)
        await send()
        await asyncio.wait_for(future, timeout)
        return time.perf_counter() - started

    async def event(self, handler: str, payload: dict | None = None) -> None:
        """A click on a control whose on_click is ``handler`` (a short name from the recording)."""
        await self._send(self.recording.handlers[handler], payload)

    async def navigate(self, path: str) -> None:
        """A link followed inside the app: React Router's navigation, as the browser sends it."""
        self.path = path
        await self._send(self.recording.update_vars_name, {"vars": self.storage})
        await self._send(self.recording.on_load_name, None)

    async def _send(self, name: str, payload: dict | None) -> None:
        event: dict[str, Any] = {"name": name, "router_data": router_data(self.path, product_route_params(self.path))}
        if payload is not None:
            event["payload"] = payload
        self.sent += 1
        await self._ws.send(EVENT_PREFIX + json.dumps(["event", event]))

    def _expect(self, done: Predicate) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._waiter = (done, future)
        return future

    async def _read(self) -> None:
        try:
            async for raw in self._ws:
                if raw == "2":
                    await self._ws.send("3")
                    continue
                if not raw.startswith(EVENT_PREFIX):
                    continue
                waiter = self._waiter
                # Parsing every frame would cost the load generator more than the server's work
                # on this 2-core machine: only frames that may matter are parsed.
                if '"events"' not in raw and (waiter is None or waiter[1].done()
                                               or getattr(waiter[0], "marker", "") not in raw):
                    continue
                update = json.loads(raw[len(EVENT_PREFIX):])[1]
                for event in update.get("events") or ():
                    if event.get("name") == "_redirect" and not event["payload"].get("external"):
                        await self.navigate(event["payload"]["path"])
                    elif event.get("name") == "_call_script" and "history.pushState" in \
                            (event["payload"].get("javascript_code") or ""):
                        self.path = _pushed_path(event["payload"]["javascript_code"]) or self.path
                waiter = self._waiter
                if waiter is not None and not waiter[1].done() and waiter[0](update):
                    waiter[1].set_result(True)
        except websockets.ConnectionClosed as exc:
            self.error = f"closed: {exc}"
        finally:
            self.closed.set()
            waiter = self._waiter
            if waiter is not None and not waiter[1].done():
                waiter[1].set_exception(ConnectionError(self.error or "closed"))


def _pushed_path(script: str) -> str | None:
    """The URL a ``history.pushState(…, "", "/products?…")`` script puts in the address bar."""
    start = script.find('"/')
    if start < 0:
        return None
    return json.loads(script[start:script.find('"', start + 1) + 1])


# --- what "done" looks like on screen -------------------------------------------------------


def _state_delta(update: Update, suffix: str) -> dict | None:
    for name, values in (update.get("delta") or {}).items():
        if name.endswith(suffix):
            return values
    return None


def _marked(marker: str):
    """A predicate decides only on frames that contain ``marker`` (a state's name)."""

    def mark(predicate: Predicate) -> Predicate:
        predicate.marker = marker
        return predicate

    return mark


@_marked("___products_state")
def listing_shown(update: Update) -> bool:
    """The product grid shows the new page: its products arrived (and it is not loading), or the
    click's last step came, the new address for the bar (when the products did not change)."""
    values = _state_delta(update, "___products_state")
    if values and "products_rx_state_" in values and values.get("loading_rx_state_") is not True:
        return True
    return any(event.get("name") == "_call_script" and "history.pushState" in
               (event.get("payload", {}).get("javascript_code") or "") for event in update.get("events") or ())


@_marked("is_hydrated_rx_state_")
def page_ready(update: Update) -> bool:
    """A navigation has finished its on-load work (Reflex marks the state hydrated)."""
    values = _state_delta(update, "reflex___state____state")
    return bool(values) and values.get("is_hydrated_rx_state_") is True and len(update.get("delta")) == 1


@_marked("___product_page_state")
def product_shown(update: Update) -> bool:
    values = _state_delta(update, "___product_page_state")
    return bool(values) and values.get("status_rx_state_") == "found"


@_marked("___cart_state")
def added_to_cart(update: Update) -> bool:
    values = _state_delta(update, "___cart_state")
    return bool(values) and values.get("updating_rx_state_") is False
