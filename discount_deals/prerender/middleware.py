"""Serve /, /test-home, /products and /products/{id} with their data in the first HTML.

An ASGI middleware in front of Reflex's static file server: for those paths it answers with the
pre-rendered shell filled in by :mod:`.render` (brotli or gzip when the browser accepts it); for anything
else, when there is no production build, or if filling a page fails, the request goes on as
before (the app then loads the data itself).
"""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable
from urllib.parse import parse_qsl

import brotli
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import routes
from ..db import session_scope
from ..public_url import public_base_url
from . import render

log = logging.getLogger("discount_deals.prerender")

MAX_ID_LENGTH = 64


def _encoding_for(accept_encoding: str) -> str:
    """``br``, ``gzip`` or ``""``: the best of ours the browser accepts (``q=0`` refuses one)."""
    accepted = set()
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        quality = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
        try:
            if float(quality) > 0:
                accepted.add(name.strip())
        except ValueError:
            continue
    return next((name for name in ("br", "gzip") if name in accepted), "")


def _route(path: str, query: dict[str, str]) -> Callable | None:
    """The renderer for ``path`` (a function of session and base URL), or None."""
    path = path.rstrip("/") or "/"
    if path == routes.HOME:
        return render.home
    if path == routes.TEST_HOME:
        return render.test_home
    if path == routes.PRODUCTS:
        return lambda session, base: render.products(session, base, query)
    prefix = routes.PRODUCTS + "/"
    if path.startswith(prefix):
        product_id = path[len(prefix) :]
        if product_id and "/" not in product_id and "." not in product_id and len(product_id) <= MAX_ID_LENGTH:
            return lambda session, base: render.product(session, base, product_id)
    return None


class FirstHtml:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        renderer = _route(scope["path"], query)
        if renderer is None:
            await self.app(scope, receive, send)
            return
        base = public_base_url(str(Request(scope).base_url))

        def build():
            with session_scope() as session:
                return renderer(session, base)

        try:
            page = await run_in_threadpool(build)
        except Exception:
            log.exception("first HTML of %s failed; serving the plain shell", scope["path"])
            page = None
        if page is None:
            await self.app(scope, receive, send)
            return
        body = page.html.encode("utf-8")
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"vary", b"Accept-Encoding"),
        ]
        encoding = _encoding_for(Headers(scope=scope).get("accept-encoding", ""))
        if encoding == "br":  # ~12 % smaller than gzip for these pages, at quality 5 in ~1.5 ms
            body = brotli.compress(body, quality=5)
        elif encoding == "gzip":
            body = gzip.compress(body, compresslevel=6, mtime=0)
        if encoding:
            headers.append((b"content-encoding", encoding.encode()))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": page.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
