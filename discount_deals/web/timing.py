"""Every HTTP request's time, by route, for /api/metrics (``dd_http_request_seconds``).

The outermost layer of the site, so the time is the whole answer's (the shell's own layers
included). API requests are labelled with the route template FastAPI matched (``/api/products/
{product_id}``: one label per route, whatever the id); pages and static files are grouped as
``page`` and ``asset`` so that a crawler's made-up paths cannot grow the label set.
"""

from __future__ import annotations

import time

from starlette.types import Message, Receive, Scope, Send

from ..server import metrics
from .layers import HttpLayer

ASSET_SUFFIXES = (".js", ".css", ".map", ".png", ".jpg", ".jpeg", ".webp", ".svg", ".ico", ".woff", ".woff2", ".json",
                  ".txt", ".xml", ".gz", ".br")


def route_label(scope: Scope) -> str:
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    path = scope.get("path", "")
    if path.startswith("/api"):
        return f"/api{template}" if template and not template.startswith("/api") else (template or "/api (unmatched)")
    if path.startswith(("/assets/", "/_next/")) or path.endswith(ASSET_SUFFIXES):
        return "asset"
    return "page"


class RequestTiming(HttpLayer):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            metrics.observe_request(route_label(scope), scope.get("method", ""), status, time.perf_counter() - started)
