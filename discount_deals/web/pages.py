"""Serve page routes without the trailing-slash redirect.

The production build stores each page as ``<route>/index.html``, so the static file server
answers ``/products`` with a redirect to ``/products/``: one more round trip before a phone
sees anything. This middleware serves the page at the address the links use.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

# Paths served by the API and by Reflex's backend, never pages.
_NOT_PAGES = ("/api", "/_", "/ping", "/assets")


class PagesWithoutRedirect:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            path: str = scope["path"]
            last = path.rsplit("/", 1)[-1]
            if path != "/" and not path.endswith("/") and "." not in last and not path.startswith(_NOT_PAGES):
                scope = {**scope, "path": f"{path}/", "raw_path": f"{path}/".encode()}
        await self.app(scope, receive, send)
