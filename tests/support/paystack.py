"""A local HTTP server shaped like Paystack's charge API (never the internet), for the adapter's tests.

``POST /charge`` answers with the state the test chose for the number (``answers``; by default
``send_otp`` for Telecel's ``vod``, ``pay_offline`` otherwise), ``POST /charge/submit_otp`` pays
with :data:`VOUCHER` and declines any other code, ``GET /charge/{reference}`` answers
``status[reference]`` (the last state by default), ``POST /refund`` queues a refund (``pending``;
``GET /refund/{id}`` says ``refund_states[id]``)
unless ``refuse_refunds`` holds the transaction's reference (400, as Paystack refuses one) or
``refunds_down`` is set (500).
Every request is recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from discount_deals.config.settings import get_settings

from .servers import closed_port

VOUCHER = "654321"
TEXTS = {
    "send_otp": "Please dial *110# to generate a voucher code. Then input the voucher",
    "pay_offline": "Please complete authorization process on your mobile phone",
}


class PaystackStub(ThreadingHTTPServer):
    secret_key = "sk_test_stub"

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str, dict]] = []
        self.answers: dict[str, str] = {}  # national phone -> first status
        self.status: dict[str, str] = {}  # reference -> status GET /charge answers
        self.amounts: dict[str, int] = {}
        self.currency = "GHS"  # what every charge says it was made in
        self.refuse_refunds: set[str] = set()
        self.refunds_down = False  # POST /refund answers 500 (Paystack unreachable)
        self.refund_states: dict[str, str] = {}  # refund id -> what GET /refund/{id} says ("pending" by default)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def calls(self, path: str) -> list[dict]:
        return [body for _method, called, body in self.requests if called == path]


class _Handler(BaseHTTPRequestHandler):
    server: PaystackStub

    def log_message(self, *_args):
        pass

    def _reply(self, status: int, body: dict) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _charge(self, reference: str, status: str, http: int = 200) -> None:
        self.server.status[reference] = status
        data = {"reference": reference, "status": status, "amount": self.server.amounts.get(reference, 0),
                "currency": self.server.currency}
        if status in TEXTS:
            data["display_text"] = TEXTS[status]
        if status == "failed":
            data["gateway_response"] = "Insufficient funds"
        self._reply(http, {"status": status != "failed", "message": "Charge attempted", "data": data})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(("POST", self.path, body))
        if self.headers.get("Authorization") != f"Bearer {self.server.secret_key}":
            return self._reply(401, {"status": False, "message": "Invalid key"})
        if self.path == "/charge":
            reference = body["reference"]
            self.server.amounts[reference] = body["amount"]
            momo = body["mobile_money"]
            default = "send_otp" if momo["provider"] == "vod" else "pay_offline"
            status = self.server.answers.get(momo["phone"], default)
            return self._charge(reference, status, 400 if status == "failed" else 200)
        if self.path == "/charge/submit_otp":
            right = body["otp"] == VOUCHER
            return self._charge(body["reference"], "success" if right else "failed", 200 if right else 400)
        if self.path == "/refund":
            return self._refund(body)
        self._reply(404, {"status": False, "message": "Not found"})

    def _refund(self, body: dict) -> None:
        reference, amount = body["transaction"], body.get("amount")
        if self.server.refunds_down:
            return self._reply(500, {"status": False, "message": "Internal error"})
        if reference in self.server.refuse_refunds or reference not in self.server.status:
            return self._reply(400, {"status": False, "message": "Transaction has been fully reversed"})
        refund_id = len(self.server.calls("/refund"))
        self.server.refund_states.setdefault(str(refund_id), "pending")
        self._reply(200, {"status": True, "message": "Refund has been queued for processing", "data": {
            "transaction": {"reference": reference}, "amount": amount, "currency": "GHS", "status": "pending",
            "id": refund_id}})

    def do_GET(self):
        self.server.requests.append(("GET", self.path, {}))
        if self.headers.get("Authorization") != f"Bearer {self.server.secret_key}":
            return self._reply(401, {"status": False, "message": "Invalid key"})
        if self.path.startswith("/refund/"):
            refund_id = self.path.removeprefix("/refund/")
            if refund_id not in self.server.refund_states:
                return self._reply(404, {"status": False, "message": "Refund not found"})
            return self._reply(200, {"status": True, "message": "Refund retrieved", "data": {
                "id": int(refund_id), "status": self.server.refund_states[refund_id], "currency": "GHS"}})
        if not self.path.startswith("/charge/"):
            return self._reply(404, {"status": False, "message": "Not found"})
        reference = self.path.removeprefix("/charge/")
        if reference not in self.server.status:
            return self._reply(404, {"status": False, "message": "Charge not found"})
        self._charge(reference, self.server.status[reference])


def serve(monkeypatch) -> Iterator[PaystackStub]:
    """A stub on a free port, with the settings that send the shop's payments to it (a fixture's body)."""
    stub = PaystackStub()
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("DD_PAYMENT_PROVIDER", "paystack")
    monkeypatch.setenv("DD_PAYSTACK_SECRET_KEY", stub.secret_key)
    monkeypatch.setenv("DD_PAYSTACK_BASE_URL", stub.url)
    monkeypatch.setenv("DD_PAYMENT_PROVIDER_TIMEOUT_SECONDS", "5")
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    try:
        yield stub
    finally:
        stub.shutdown()
        stub.server_close()
        monkeypatch.undo()
        get_settings.cache_clear()


@contextmanager
def paystack_unreachable(monkeypatch) -> Iterator[None]:
    """The Paystack adapter pointed, for the block, at a port nothing listens on; every setting
    the test patched is put back after it."""
    monkeypatch.setenv("DD_PAYMENT_PROVIDER", "paystack")
    monkeypatch.setenv("DD_PAYSTACK_SECRET_KEY", "sk_test_x")
    monkeypatch.setenv("DD_PAYSTACK_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    get_settings.cache_clear()
    try:
        yield
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
