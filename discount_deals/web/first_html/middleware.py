"""Serve /, /test-home, /products and /products/{id} with their data in the first HTML.

An ASGI middleware in front of Reflex's static file server: for those paths it answers with the
pre-rendered shell filled in by :mod:`.render`, under the Content-Security-Policy of exactly
the scripts that page has (the renderer knows them) and compressed as the browser accepts
(:mod:`..compression`); for anything else, when there is no production build, or if filling a
page fails, the request goes on as before (the app then loads the data itself).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.types import Receive, Scope, Send

from ... import routes
from ...db import session_scope
from ...config.public_url import public_base_url
from ..compression import compressed
from ..csp import page_policy
from ..layers import HttpLayer
from . import render

log = logging.getLogger("discount_deals.first_html")

MAX_ID_LENGTH = 64


def _route(path: str, query: dict[str, str]) -> Callable | None:
    """The renderer for ``path`` (a function of session and base URL), or None."""
    path = path.rstrip("/") or "/"
    if path == routes.HOME:
        return render.home
    if path == routes.TEST_HOME:
        return render.sample_home
    if path == routes.PRODUCTS:
        return lambda session, base: render.products(session, base, query)
    product_id = routes.product_id_in(path)
    if product_id and "/" not in product_id and "." not in product_id and len(product_id) <= MAX_ID_LENGTH:
        return lambda session, base: render.product(session, base, product_id)
    return None


class FirstHtml(HttpLayer):
    methods = ("GET", "HEAD")

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        renderer = _route(scope["path"], query)
        if renderer is None:
            await self.app(scope, receive, send)
            return
        base = public_base_url(str(Request(scope).base_url))

        def build() -> render.Page | None:
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
        response = HTMLResponse(
            page.html,
            status_code=page.status,
            headers={"Cache-Control": "no-cache", "Content-Security-Policy": page_policy(scope, page.script_hashes)},
        )
        await compressed(response)(scope, receive, send)
