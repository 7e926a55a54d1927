"""Every request body is bounded while it streams, and Reflex's upload endpoint answers live tabs only.

:class:`BodyLimits` wraps the whole site (``/api``, Reflex's ``/_upload`` and everything else), so
the bound holds on ``make run`` without nginx too. It counts the bytes as they arrive (a chunked
body declares no length) and answers 413 as soon as they pass the path's limit, before reading
further; a declared ``Content-Length`` over the limit is refused before any byte is read.

- ``/_upload`` (Reflex's file pickers): the admin's bulk files (``pick_csv_file``,
  ``pick_json_file``, state/admin/bulk.py) up to ``DD_BULK_MAX_BYTES``, anything else (the
  profile picture) up to ``DD_MAX_IMAGE_BYTES``; each plus a multipart envelope. The tab token
  Reflex sends must name a tab with a live websocket (403 otherwise): an upload is an event of
  that tab, and without one a stranger could make the server spool files for nobody.
- ``/api``: the largest body any endpoint takes; each endpoint then holds its own, smaller,
  limit (api/bodies.py).
- Anything else (engine.io's long polling, pages): engine.io's own buffer size.

The limit is raised inside the app as :class:`BodyTooLarge`, an HTTP 413 error: FastAPI and
Reflex answer it in their own error shape; if it reaches this layer, the answer is written here.
"""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive, Scope, Send

from ..server import reflex_adapter
from ..config.settings import get_settings
from .layers import HttpLayer

MULTIPART_ENVELOPE = 64 * 1024  # the form's boundaries, headers and small fields around a file
# Reflex upload handlers that take the admin's bulk files; every other upload is a picture.
BULK_FILE_HANDLERS = frozenset({"pick_csv_file", "pick_json_file"})
NO_LIVE_TAB = "This page lost its connection. Reload the page and try again."

_reflex_app = [None]


def install(app) -> None:
    """Check uploads' tab tokens against ``app``'s websockets (without it, no upload is let in)."""
    _reflex_app[0] = app


def size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{max(1, limit // 1024)} KB"


class BodyTooLarge(HTTPException):
    """The body passed its limit (413)."""

    def __init__(self, limit: int):
        super().__init__(413, f"Request body too large: at most {size_text(limit)}.")
        self.code = "body_too_large"


def upload_limit(handler: str) -> int:
    """The most bytes an upload to Reflex's event handler ``handler`` (its full name) may send."""
    settings = get_settings()
    method = handler.rpartition(".")[2]
    size = settings.bulk_max_bytes if method in BULK_FILE_HANDLERS else settings.max_image_bytes
    return size + MULTIPART_ENVELOPE


def api_limit() -> int:
    """The largest body any API endpoint takes: a bulk file or a picture, in a multipart form."""
    settings = get_settings()
    return max(settings.bulk_max_bytes, settings.max_image_bytes) + MULTIPART_ENVELOPE


def body_limit(scope: Scope, headers: Headers) -> int:
    path = scope.get("path", "")
    if path == reflex_adapter.upload_path():
        return upload_limit(headers.get("reflex-event-handler", ""))
    if path == "/api" or path.startswith("/api/"):
        return api_limit()
    return reflex_adapter.socket_polling_limit()


async def _answer(send: Send, status: int, detail: str, code: str) -> None:
    body = json.dumps({"detail": detail, "code": code}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _declared_length(headers: Headers) -> int:
    declared = headers.get("content-length", "")
    return int(declared) if declared.isascii() and declared.isdigit() else 0


class BodyLimits(HttpLayer):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        limit = body_limit(scope, headers)
        if _declared_length(headers) > limit:
            refused = BodyTooLarge(limit)
            await _answer(send, 413, refused.detail, refused.code)
            return
        if scope.get("path") == reflex_adapter.upload_path() and scope.get("method") == "POST":
            token = headers.get("reflex-client-token", "")
            if not await reflex_adapter.tab_connected(_reflex_app[0], token):
                await _answer(send, 403, NO_LIVE_TAB, "no_live_tab")
                return
        await self._bounded(scope, receive, send, limit)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge as refused:
            if not started:  # else the answer is under way: the server closes the connection
                await _answer(send, 413, refused.detail, refused.code)
