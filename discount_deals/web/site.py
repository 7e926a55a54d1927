"""The site: the web shell wrapped around an API app (and whatever Reflex mounts behind it).

:func:`site` returns the outer app that Reflex receives as ``api_transformer``; Reflex mounts
its own pages and websocket behind it. The API is mounted at ``/api``.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.types import ASGIApp

from . import seo
from .body_limits import BodyLimits
from .first_html.middleware import FirstHtml
from .hosts import TrustedHosts
from .pages import PagesWithoutRedirect
from .proxy import PublicOrigin
from .security import SecurityHeaders
from .timing import RequestTiming


def site(api: ASGIApp) -> FastAPI:
    """The outer app: ``api`` under ``/api``, the site's own pages, and the shell's middleware."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(PagesWithoutRedirect)
    app.add_middleware(FirstHtml)  # sees the path as the browser sent it
    app.include_router(seo.router)
    # Headers, the pages' CSP and the websocket origin check (issue 13), on the public origin.
    app.add_middleware(SecurityHeaders)
    # Scheme and host are the public ones before anything builds a URL (proxy.py).
    app.add_middleware(PublicOrigin)
    # Every body counted as it streams, 413 at its path's limit; uploads from live tabs only.
    app.add_middleware(BodyLimits)
    # Outermost: only the shop's own host names are answered (hosts.py), as the client sent them.
    app.add_middleware(TrustedHosts)
    # Outside everything: each request's whole time, by route, for /api/metrics.
    app.add_middleware(RequestTiming)
    app.mount("/api", api)
    return app


def create_app() -> FastAPI:
    """The site around the API without Reflex's pages: what tests and benches serve
    (``granian --factory discount_deals.web.site:create_app``)."""
    from ..api import create_api

    return site(create_api())
