"""Serve page routes without the trailing-slash redirect.

The production build stores each page as ``<route>/index.html``, so the static file server
answers ``/products`` with a redirect to ``/products/``: one more round trip before a phone
sees anything. This middleware serves the page at the address the links use.
"""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

from .layers import HttpLayer

# Paths served by the API and by Reflex's backend, never pages.
_NOT_PAGES = ("/api", "/_", "/ping", "/assets")


class PagesWithoutRedirect(HttpLayer):
    methods = ("GET", "HEAD")

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        last = path.rsplit("/", 1)[-1]
        if path != "/" and not path.endswith("/") and "." not in last and not path.startswith(_NOT_PAGES):
            scope = {**scope, "path": f"{path}/", "raw_path": f"{path}/".encode()}
        await self.app(scope, receive, send)
