"""A phone network between a browser and the shop: a TCP proxy that delays and throttles both
directions (HTTP and websocket frames alike) and counts what crosses it.

``SlowNetwork`` listens on a loopback port and relays every connection to the shop. Each
direction is one shared link, as a phone's radio is: bytes queue behind each other at the
link's rate (kbit/s), then arrive half a round trip later (plus jitter, never reordering a
connection's bytes). A new connection pays one round trip before its first byte, as TCP's
handshake does. It also reads what it relays: HTTP requests, the websocket's Socket.IO events
(client to server) and the updates coming back, so a test can count round trips per tap.

It runs its own event loop in a thread, for synchronous Playwright tests and benchmarks::

    with SlowNetwork(upstream_port, Profile.named("3g")) as network:
        page.goto(network.url)
        mark = network.mark()
        ... tap ...
        print(network.since(mark).round_trips)
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field

CHUNK = 1400  # bytes the link carries at a time (about a TCP segment)
PICTURE = re.compile(r"\.(webp|png|jpe?g|gif|svg|ico)(\?|$)")


@dataclass(frozen=True)
class Profile:
    name: str
    rtt_ms: float = 0.0
    down_kbit: float = 0.0  # server to browser; 0: unlimited
    up_kbit: float = 0.0  # browser to server; 0: unlimited
    jitter_ms: tuple[float, float] = (0.0, 0.0)  # extra one-way delay, uniform in [a, b]

    @staticmethod
    def named(name: str) -> Profile:
        return PROFILES[name]


PROFILES = {
    "loopback": Profile("loopback"),
    "3g": Profile("3g", rtt_ms=300, down_kbit=750, up_kbit=250),
    "2g": Profile("2g", rtt_ms=800, down_kbit=240, up_kbit=200),
}


@dataclass
class Message:
    at: float  # time.monotonic() when the proxy saw it
    kind: str  # "request" (HTTP, browser to shop), "event" (websocket, browser to shop),
    #            "response" (HTTP status line back), "update" (websocket, shop to browser),
    #            "picture" (a request for an image: the page does not wait for it)
    detail: str = ""


@dataclass
class Traffic:
    messages: list[Message] = field(default_factory=list)
    bytes_down: int = 0  # shop to browser, as relayed (compressed where the shop compressed)
    bytes_up: int = 0
    rtt_s: float = 0.0  # the network's round trip: nothing sooner can answer a flight

    @property
    def requests(self) -> list[str]:
        return [m.detail for m in self.messages if m.kind == "request"]

    @property
    def events(self) -> list[str]:
        return [m.detail for m in self.messages if m.kind == "event"]

    @property
    def pictures(self) -> list[str]:
        return [m.detail for m in self.messages if m.kind == "picture"]

    @property
    def round_trips(self) -> int:
        """Sequential exchanges: a message from the browser starts a new round trip when
        something came back from the shop since the previous one started (what the browser
        sends together, before any answer, is one flight). Pictures do not count: nothing
        waits for them (an image arrives when it arrives)."""
        trips, answered, flight_at = 0, True, 0.0
        for message in self.messages:
            if message.kind in ("request", "event"):
                if answered:
                    trips += 1
                    answered, flight_at = False, message.at
            elif message.kind != "picture" and message.at - flight_at >= self.rtt_s * 0.9:
                answered = True  # (what arrives sooner answers something sent before this flight)
        return trips


class _Link:
    """One direction of the phone's radio link, shared by every connection."""

    def __init__(self, kbit: float, one_way_s: float, jitter_s: tuple[float, float]):
        self.bytes_per_s = kbit * 1000 / 8 if kbit else 0.0
        self.one_way_s = one_way_s
        self.jitter_s = jitter_s
        self.free_at = 0.0

    def arrival(self, now: float, size: int) -> float:
        start = max(now, self.free_at)
        self.free_at = start + (size / self.bytes_per_s if self.bytes_per_s else 0.0)
        return self.free_at + self.one_way_s + random.uniform(*self.jitter_s)


class _HttpReader:
    """Reads one direction of a connection as HTTP (then websocket frames after an upgrade)
    and reports what it finds; it never changes the bytes."""

    def __init__(self, to_server: bool, report):
        self.to_server = to_server
        self.report = report
        self.buffer = b""
        self.body_left = 0
        self.websocket = False
        self.upgrading = False
        self.peer: _HttpReader | None = None

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while self.buffer:
            if self.websocket:
                if not self._frame():
                    return
            elif self.body_left:
                taken = min(self.body_left, len(self.buffer))
                self.buffer = self.buffer[taken:]
                self.body_left -= taken
            elif not self._head():
                return

    def _head(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4:]
        lines = head.split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if self.to_server:
            line = lines[0].rsplit(" ", 1)[0]
            self.report("picture" if PICTURE.search(line) else "request", line)
            if headers.get("upgrade", "").lower() == "websocket":
                self.upgrading = True
        else:
            status = lines[0].split(" ")[1] if " " in lines[0] else ""
            if status != "101":
                self.report("response", lines[0])
            if status == "101" and self.peer is not None and self.peer.upgrading:
                self.websocket = True
                self.peer.websocket = True
                self.peer.buffer, leftover = b"", self.peer.buffer
                self.peer.feed(leftover)
        self.body_left = int(headers.get("content-length", "0") or 0)
        if headers.get("transfer-encoding", "").lower() == "chunked":
            self.body_left = 0  # not parsed: the shop's chunked answers end their connection's reading
        return True

    def _frame(self) -> bool:
        data = self.buffer
        if len(data) < 2:
            return False
        opcode = data[0] & 0x0F
        masked = data[1] & 0x80
        length = data[1] & 0x7F
        at = 2
        if length == 126:
            if len(data) < 4:
                return False
            length, at = int.from_bytes(data[2:4], "big"), 4
        elif length == 127:
            if len(data) < 10:
                return False
            length, at = int.from_bytes(data[2:10], "big"), 10
        mask = b""
        if masked:
            if len(data) < at + 4:
                return False
            mask, at = data[at:at + 4], at + 4
        if len(data) < at + length:
            return False
        payload = data[at:at + length]
        self.buffer = data[at + length:]
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        if opcode in (0x1, 0x0) and payload[:2] == b"42":  # a Socket.IO event
            self.report("event" if self.to_server else "update", _event_name(payload[2:]))
        return True


def _event_name(payload: bytes) -> str:
    """The Reflex event's handler name (browser to shop) or the Socket.IO event's name."""
    text = payload.decode("utf-8", "replace")
    if text.startswith("/"):  # a namespace: 42/_event,[...]
        text = text.partition(",")[2]
    try:
        message = json.loads(text)
    except ValueError:
        return ""
    if isinstance(message, list) and len(message) > 1:
        body = message[1]
        if isinstance(body, str):
            try:
                body = json.loads(body)
            except ValueError:
                return message[0]
        if isinstance(body, dict) and isinstance(body.get("name"), str):
            return body["name"]
        return str(message[0])
    return ""


class SlowNetwork:
    def __init__(self, upstream_port: int, profile: Profile, *, host: str = "127.0.0.1", port: int = 0):
        self.upstream = (host, upstream_port)
        self.profile = profile
        self.host = host
        self.port = port or _free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="slow-network", daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._messages: list[Message] = []
        self._lock = threading.Lock()
        self._links: tuple[_Link, _Link] | None = None
        self._bytes = [0, 0]  # relayed so far: browser to shop, shop to browser
        self._in_flight = 0  # chunks read and not yet delivered
        self._last_activity = time.monotonic()
        self._released: asyncio.Event | None = None  # cleared while the shop's answers are held
        self.offline = False

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # --- control, from the caller's thread ----------------------------------------------------

    def __enter__(self) -> SlowNetwork:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def use(self, profile: Profile) -> None:
        """Switch the network's profile (connections made from now on, and every byte queued
        from now on, pay the new one)."""
        self.profile = profile
        self._links = None

    def go_offline(self) -> None:
        """Drop every connection and refuse new ones, as when the phone loses signal."""
        self.offline = True
        asyncio.run_coroutine_threadsafe(self._drop_all(), self._loop).result(10)

    def go_online(self) -> None:
        self.offline = False

    def delay_uplink(self, seconds: float) -> None:
        """Let what the browser sends from now on take ``seconds`` more to reach the shop (on the
        connections already open too): a drop meanwhile loses a tap that left the phone, as a
        radio that dies with a frame in the air does. ``delay_uplink(0)`` puts it back."""
        self._link_pair()[0].one_way_s = self.profile.rtt_ms / 2000 + seconds

    def hold(self) -> None:
        """Keep the shop's answers from the browser (they queue) until :meth:`release`: what a
        page shows meanwhile is what it shows before any answer, whatever the machine's speed."""
        self._loop.call_soon_threadsafe(self._released.clear)

    def release(self) -> None:
        self._loop.call_soon_threadsafe(self._released.set)

    def answers_held_and_done(self, since: float, quiet_s: float = 1.0) -> bool:
        """While :meth:`hold` keeps the shop's answers: whether some are held and the shop has sent
        nothing more for ``quiet_s`` (counted from ``since``, a ``time.monotonic()``, at the
        earliest): what a tap made the shop answer has all been answered, and none of it delivered."""
        with self._lock:
            return self._in_flight > 0 and time.monotonic() - max(self._last_activity, since) >= quiet_s

    def wait_quiet(self, quiet_s: float = 0.5, timeout_s: float = 30) -> None:
        """Return once nothing has crossed the network for ``quiet_s`` (every answer delivered),
        counting from now at the earliest (a debounced event may be about to leave)."""
        started = time.monotonic()
        deadline = started + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                idle = self._in_flight == 0 and time.monotonic() - max(self._last_activity, started) >= quiet_s
            if idle:
                return
            time.sleep(0.05)
        raise TimeoutError(f"the network was not quiet for {quiet_s} s within {timeout_s} s")

    def mark(self) -> tuple[int, int, int]:
        with self._lock:
            return len(self._messages), self._bytes[0], self._bytes[1]

    def since(self, mark: tuple[int, int, int]) -> Traffic:
        with self._lock:
            return Traffic(list(self._messages[mark[0]:]), self._bytes[1] - mark[2], self._bytes[0] - mark[1],
                           self.profile.rtt_ms / 1000)

    # --- the relay, in the proxy's loop -------------------------------------------------------

    def _link_pair(self) -> tuple[_Link, _Link]:
        if self._links is None:
            p = self.profile
            half = p.rtt_ms / 2000
            jitter = (p.jitter_ms[0] / 1000, p.jitter_ms[1] / 1000)
            self._links = (_Link(p.up_kbit, half, jitter), _Link(p.down_kbit, half, jitter))
        return self._links

    def _report(self, kind: str, detail: str) -> None:
        with self._lock:
            self._messages.append(Message(time.monotonic(), kind, detail))

    async def _start(self) -> None:
        self._released = asyncio.Event()
        self._released.set()
        self._connections: set[asyncio.StreamWriter] = set()
        self._server = await asyncio.start_server(self._accept, self.host, self.port)

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._drop_all()
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    async def _drop_all(self) -> None:
        for writer in list(self._connections):
            writer.transport.abort()
        self._connections.clear()

    async def _accept(self, client_reader, client_writer) -> None:
        if self.offline:
            client_writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_writer.transport.abort()
            return
        self._connections.update((client_writer, server_writer))
        up, down = self._link_pair()
        loop = asyncio.get_running_loop()
        handshake_done = loop.time() + self.profile.rtt_ms / 1000  # SYN, SYN-ACK
        to_server = _HttpReader(True, self._report)
        to_client = _HttpReader(False, self._report)
        to_server.peer, to_client.peer = to_client, to_server
        await asyncio.gather(
            self._pump(client_reader, server_writer, up, to_server, handshake_done),
            self._pump(server_reader, client_writer, down, to_client, 0.0),
            return_exceptions=True,
        )
        for writer in (client_writer, server_writer):
            self._connections.discard(writer)
            writer.transport.abort()

    async def _pump(self, reader, writer, link: _Link, http: _HttpReader, not_before: float) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        undelivered = [0]  # this pump's share of _in_flight

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not http.to_server:
                    await self._released.wait()
                    http.feed(data)  # counted when the browser gets it
                with self._lock:
                    self._bytes[0 if http.to_server else 1] += len(data)
                    self._in_flight -= 1
                    undelivered[0] -= 1
                    self._last_activity = time.monotonic()
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()

        sender = asyncio.create_task(deliver())
        last = not_before
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                if http.to_server:
                    http.feed(data)  # counted when the browser sends it
                for start in range(0, len(data), CHUNK):
                    piece = data[start:start + CHUNK]
                    last = max(last, link.arrival(loop.time(), len(piece)))
                    with self._lock:
                        self._in_flight += 1
                        undelivered[0] += 1
                        self._last_activity = time.monotonic()
                    queue.put_nowait((last, piece))
        except (ConnectionError, OSError):
            pass
        finally:
            queue.put_nowait((last, None))
            try:
                await sender
            except (Exception, asyncio.CancelledError):  # the connection went: nothing more to deliver
                pass
            with self._lock:  # what a dropped connection never delivered
                self._in_flight -= undelivered[0]
                undelivered[0] = 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
