"""The shop's public address for every absolute URL: ``DD_PUBLIC_URL``, or trusted proxies' headers.

Absolute URLs (DRF ``next``/``previous`` links, picture URLs, Reflex's view of the page's host)
are built from the request's scheme and ``Host``. Behind a TLS-terminating proxy those say
``http://127.0.0.1:3000``, and without a proxy a client may send any ``Host`` it likes. This
middleware rewrites the request's scheme and host before anything reads them:

1. ``DD_PUBLIC_URL`` set (``https://shop.example.com``): always that origin, whatever the
   client or the proxies send.
2. Else ``DD_TRUSTED_PROXY_HOPS`` = N > 0: ``X-Forwarded-Proto`` / ``X-Forwarded-Host`` as the
   N-th proxy from the app saw them (the N-th value from the right, like ``X-Forwarded-For``);
   values that are missing or malformed, and hosts the site does not answer (``hosts.py``), are
   ignored.
3. Else the request as it came (local development).

Why not uvicorn's ``ProxyHeadersMiddleware``: it trusts proxies by their IP address and sets the
scheme and the client's address, not the ``Host``, and knows nothing of a configured public
address; Granian, which serves the shop, has no such option.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from ..config.settings import get_settings, trusted_hop

_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$")
_SCHEMES = {"http": "ws", "https": "wss"}


def _trusted_value(raw: bytes | None, hops: int) -> str | None:
    return trusted_hop(raw.decode("latin-1"), hops) if raw else None


def _allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """A forwarded host is used only when the site answers that name (web/hosts.py's list)."""
    name = (host[: host.index("]") + 1] if host.startswith("[") else host.rsplit(":", 1)[0]).lower()
    return any(p == "*" or name == p or (p.startswith("*.") and name.endswith(p[1:])) for p in allowed)


def public_origin(headers: dict[bytes, bytes]) -> tuple[str, str] | None:
    """(scheme "http"/"https", host[:port]) the client used, or None to keep the request's own."""
    settings = get_settings()
    if settings.public_url:
        parts = urlsplit(settings.public_url)
        return parts.scheme, parts.netloc
    hops = settings.trusted_proxy_hops
    if hops <= 0:
        return None
    proto = _trusted_value(headers.get(b"x-forwarded-proto"), hops)
    host = _trusted_value(headers.get(b"x-forwarded-host"), hops)
    proto = proto.lower() if proto and proto.lower() in _SCHEMES else None
    host = host if host and _HOST.match(host) and _allowed(host, settings.security.allowed_hosts) else None
    if proto is None and host is None:
        return None
    current_host = headers.get(b"host", b"").decode("latin-1")
    return proto or "", host or current_host


class PublicOrigin:
    """ASGI middleware (outermost): set ``scheme`` and the ``Host`` header to the public origin."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            origin = public_origin(headers)
            if origin is not None:
                scheme, host = origin
                scope = dict(scope)
                if scheme:
                    scope["scheme"] = scheme if scope["type"] == "http" else _SCHEMES[scheme]
                if host:
                    scope["headers"] = [(k, v) for k, v in scope.get("headers") or [] if k != b"host"]
                    scope["headers"].append((b"host", host.encode("latin-1")))
        await self.app(scope, receive, send)
