"""A real SMTP server (aiosmtpd) on a free loopback port that keeps what it receives, and a
local HTTP server shaped like Hubtel's SMS API. Tests and bench/notifications.py use both."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller

from .servers import free_port

_MESSAGE_ID = re.compile(rb"^Message-ID: (<[^>]+>)", re.MULTILINE | re.IGNORECASE)


@dataclass
class Mailbox:
    """What the SMTP server accepted, in order; thread-safe."""

    # The raw messages as received; parsed on first read (parsing is slower than receiving, and
    # the benchmark only counts them).
    raw: list[bytes] = field(default_factory=list)
    _parsed: list[EmailMessage] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(init=False)
    # Test hooks: refuse recipients (5xx), or hold the DATA of the n-th message until released.
    refuse: set[str] = field(default_factory=set)
    refuse_message: set[str] = field(default_factory=set)  # recipients whose message is refused at DATA (554)
    reply_after: float = 0.0  # seconds before the message's "250" (a slow server that has it already)
    hold_after: int | None = None
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    received_at: list[float] = field(default_factory=list)

    def __post_init__(self):
        self.arrived = threading.Condition(self.lock)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "550 5.1.1 No such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_message & set(envelope.rcpt_tos):
            return "554 5.6.0 Message refused"
        if self.hold_after is not None and len(self.messages) >= self.hold_after:
            self.held.set()
            import asyncio

            while not self.release.is_set():
                await asyncio.sleep(0.02)
            return "451 4.3.0 Try again later"  # never accepted: the sender died meanwhile
        with self.arrived:
            self.raw.append(envelope.content)
            self.received_at.append(time.monotonic())
            self.arrived.notify_all()
        if self.reply_after:
            import asyncio

            await asyncio.sleep(self.reply_after)
        return "250 OK"

    @property
    def messages(self) -> list[EmailMessage]:
        with self.lock:
            for content in self.raw[len(self._parsed):]:
                self._parsed.append(email.message_from_bytes(content, policy=email.policy.default))
            return list(self._parsed)

    def clear(self) -> None:
        with self.lock:
            self.raw.clear()
            self._parsed.clear()
            self.received_at.clear()

    def wait_for(self, count: int, timeout: float = 20) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.raw) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.raw)} emails arrived, {count} expected")
                self.arrived.wait(left)
        return self.messages

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]

    def duplicates(self) -> dict[str, int]:
        """Message-IDs received more than once (read from the raw headers: fast)."""
        with self.lock:
            ids = [_MESSAGE_ID.search(content).group(1) for content in self.raw]
        counts = Counter(ids)
        return {key.decode(): n for key, n in counts.items() if n > 1}


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def html_of(message: EmailMessage) -> str:
    return message.get_body(("html",)).get_content()


class SmtpServer:
    """``with SmtpServer() as smtp:`` a real SMTP server on 127.0.0.1:``smtp.port``."""

    def __init__(self):
        self.mailbox = Mailbox()
        self.port = free_port()
        self._controller = Controller(self.mailbox, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpServer:
        self._controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.mailbox.release.set()
        self._controller.stop()

    def environment(self) -> dict[str, str]:
        return {"DD_SMTP_HOST": "127.0.0.1", "DD_SMTP_PORT": str(self.port), "DD_SMTP_TLS": "none",
                "DD_MAIL_FROM": "Discount Deals <shop@deals.example>"}


@dataclass
class SmsOutbox:
    texts: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The next answers to give (status code), then 200s.
    failures: list[int] = field(default_factory=list)
    retry_after: str = ""  # the Retry-After header sent with those failures
    answer_after: float = 0.0  # seconds before answering (a slow provider that has the text already)
    auth: str = ""

    def wait_for(self, count: int, timeout: float = 20) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.texts) >= count:
                    return list(self.texts)
            time.sleep(0.02)
        raise AssertionError(f"{len(self.texts)} texts arrived, {count} expected")


class HubtelServer:
    """A local HTTP server shaped like Hubtel's ``POST /v1/messages/send`` (Basic auth with the
    client id and secret; JSON From, To, Content; answers status 0 and a messageId)."""

    CLIENT_ID, CLIENT_SECRET = "test-client", "test-secret"

    def __init__(self):
        self.outbox = SmsOutbox()
        outbox = self.outbox
        expected = "Basic " + base64.b64encode(f"{self.CLIENT_ID}:{self.CLIENT_SECRET}".encode()).decode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                if status != 200 and outbox.retry_after:
                    self.send_header("Retry-After", outbox.retry_after)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path != "/v1/messages/send":
                    return self._answer(404, {"message": "not found"})
                if self.headers.get("Authorization") != expected:
                    return self._answer(401, {"message": "Unauthorized"})
                with outbox.lock:
                    status = outbox.failures.pop(0) if outbox.failures else 200
                    if status == 200:
                        outbox.texts.append(body)
                time.sleep(outbox.answer_after)
                if status != 200:
                    return self._answer(status, {"message": "temporarily unavailable"})
                self._answer(200, {"rate": 0.03, "messageId": f"hubtel-{len(outbox.texts)}", "status": 0,
                                   "networkId": "62001"})

        self.port = free_port()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HubtelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def environment(self) -> dict[str, str]:
        return {"DD_SMS_PROVIDER": "hubtel", "DD_HUBTEL_BASE_URL": f"http://127.0.0.1:{self.port}",
                "DD_HUBTEL_CLIENT_ID": self.CLIENT_ID, "DD_HUBTEL_CLIENT_SECRET": self.CLIENT_SECRET,
                "DD_SMS_SENDER": "DealsGH"}
