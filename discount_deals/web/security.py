"""Security headers on every response, the pages' Content-Security-Policy, and origin checks.

:class:`SecurityHeaders` wraps the whole site (pages, ``/api``, Reflex's websocket):

* Every response carries ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
  strict-origin-when-cross-origin``, ``X-Frame-Options: DENY``, a ``Permissions-Policy`` that
  turns off what the shop never uses, ``Cross-Origin-Opener-Policy: same-origin``, and
  ``Strict-Transport-Security`` when the browser used HTTPS (the scheme as ``proxy.PublicOrigin``
  set it: directly, ``DD_PUBLIC_URL``, or a trusted proxy's ``X-Forwarded-Proto``).
* HTML gets the policy of :mod:`.csp`, with the hashes of that page's inline scripts: a page the
  server filled brings its own (its renderer knows its scripts), a page file sent by path gets
  those of the file (once per version of the file), and only other HTML (Swagger UI's page) is
  read as it passes. Other responses get ``csp.NON_HTML_POLICY``; a 304 gets no policy at all.
* Scripts, style sheets, fonts and images are never documents of their own that could be
  framed or use a browser feature: they carry nosniff, the Referrer-Policy, the short
  non-HTML policy and HSTS, not the document-only headers (X-Frame-Options,
  Permissions-Policy, COOP). A phone loads about 20 of them per page and those headers were
  ~250 bytes on each (issue 15's page weight).
* Cross-origin: the allow-list is ``DD_CORS_ORIGINS`` (same origin only by default; Reflex's
  own CORS middleware gets the same list through rxconfig). A websocket upgrade whose
  ``Origin`` is neither this site nor on the list is refused before it is accepted (browsers
  do not apply CORS to websockets, so the server must).

Why our own middleware rather than a security-headers package (``secure``, for one): those set
one fixed list of headers on every response, while these depend on the response (a document
or a subresource, HTTPS or not, a 304, the page's own script hashes) and on the websocket's
origin. The header values are constants here; the choosing is what the code is for.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..server.reflex_adapter import declared_env_mode, leave_websocket_origins_to_the_app
from ..config.settings import get_settings
from . import csp

PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=(), browsing-topics=()"
)
HSTS = "max-age=31536000; includeSubDomains"
NON_HTML_POLICY = csp.NON_HTML_POLICY
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


# --- origins ------------------------------------------------------------------------------------


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None]:
    parts = urlsplit(f"{scheme}://{netloc}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    return (parts.hostname or "").lower(), port


def is_same_origin(origin: str, host_header: str | None) -> bool:
    """True when ``origin`` names the site the request was sent to (its ``Host``).

    Schemes are not compared: behind a proxy that ends TLS, the browser's ``https`` origin
    reaches us as plain HTTP. Ports are, with each scheme's default filled in."""
    if not host_header:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    try:
        origin_port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        return False
    host, port = _host_port(host_header, parts.scheme)
    return host == parts.hostname.lower() and (port or _DEFAULT_PORTS[parts.scheme]) == origin_port


def dev_origins() -> tuple[str, ...]:
    """In ``reflex run`` development mode the pages come from the dev server on another port."""
    if declared_env_mode() == "dev":
        return ("http://localhost:3000", "http://127.0.0.1:3000")
    return ()


def allowed_origins() -> tuple[str, ...]:
    """Other origins allowed to call the app: ``DD_CORS_ORIGINS`` (and the dev server in dev mode)."""
    return get_settings().security.cors_origins + dev_origins()


def origin_allowed(origin: str | None, host_header: str | None) -> bool:
    """No ``Origin`` (not a browser page), this very site, or an allowed one."""
    if not origin:
        return True
    origin = origin.strip().rstrip("/").lower()
    return is_same_origin(origin, host_header) or origin in allowed_origins()


def _over_https(scope: Scope) -> bool:
    """Whether the browser used HTTPS: ``proxy.PublicOrigin`` (outside this middleware) has set
    the scheme from DD_PUBLIC_URL or the trusted proxies' ``X-Forwarded-Proto``."""
    return scope.get("scheme") in ("https", "wss")


_SUBRESOURCE_TYPES = ("text/javascript", "application/javascript", "text/css", "font/", "image/")


def is_subresource(content_type: str) -> bool:
    """A script, style sheet, font or image: never a document that can be framed or use features
    (a 304 has no Content-Type and counts as a document; it adds nothing to the cached headers)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith(_SUBRESOURCE_TYPES) and kind != "image/svg+xml"


# --- the middleware -----------------------------------------------------------------------------


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = Headers(scope=scope)
            if not origin_allowed(headers.get("origin"), headers.get("host")):
                # Closing before accepting answers the upgrade with 403.
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _Responder(send, scope).send)


class _Responder:
    """Adds the headers to one HTTP response (see the module docstring)."""

    def __init__(self, send: Send, scope: Scope) -> None:
        self._send = send
        self._scope = scope
        self._https = _over_https(scope)
        self._start: Message | None = None  # an HTML start held until its scripts are known
        self._chunks: list[bytes] = []
        self._size = 0

    def _common(self, headers: MutableHeaders) -> None:
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
        if self._https:
            headers["Strict-Transport-Security"] = HSTS
        if not is_subresource(headers.get("content-type", "")):
            headers["X-Frame-Options"] = "DENY"
            headers["Permissions-Policy"] = PERMISSIONS_POLICY
            headers["Cross-Origin-Opener-Policy"] = "same-origin"

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            await self._started(message)
        elif self._start is None:
            await self._send(message)
        elif message["type"] == "http.response.pathsend":
            # A static page sent by path (Granian's pathsend): the hashes of the file it names.
            await self._release(csp.file_script_hashes(message["path"], self._encoding()))
            await self._send(message)
        elif message["type"] == "http.response.body":
            await self._read_body(message)
        else:
            await self._send(message)

    async def _started(self, message: Message) -> None:
        headers = MutableHeaders(scope=message)
        self._common(headers)
        if message["status"] == 304:
            # No policy at all: the browser merges a 304's headers into the cached response,
            # which keeps the policy it was stored with (the one matching its scripts). A 304
            # carries no Content-Type, so it cannot tell a page from a script here.
            await self._send(message)
        elif not headers.get("content-type", "").startswith("text/html"):
            worker = self._scope.get("path") == csp.WORKER_PATH
            headers["Content-Security-Policy"] = csp.WORKER_POLICY if worker else csp.NON_HTML_POLICY
            await self._send(message)
        elif "content-security-policy" in headers:
            # A page the server filled: its renderer knew its scripts (first_html).
            await self._send(message)
        else:
            self._start = message

    def _encoding(self) -> str:
        assert self._start is not None
        return Headers(raw=self._start["headers"]).get("content-encoding", "")

    async def _release(self, script_hashes) -> None:
        start, self._start = self._start, None
        MutableHeaders(scope=start)["Content-Security-Policy"] = csp.page_policy(self._scope, script_hashes)
        await self._send(start)

    async def _read_body(self, message: Message) -> None:
        """HTML that is neither a filled page nor a file sent by path (Swagger UI's page, or a
        build page under a server without pathsend): its scripts are read from the body."""
        self._chunks.append(message.get("body", b""))
        self._size += len(self._chunks[-1])
        more = message.get("more_body", False)
        if more and self._size <= csp.MAX_HTML_BYTES:
            return
        body, self._chunks = b"".join(self._chunks), []
        await self._release(csp.inline_script_hashes(csp.decoded(body, self._encoding())))
        await self._send({"type": "http.response.body", "body": body, "more_body": more})


def hand_websocket_origins_to_us(app) -> None:
    """Leave the websocket's origin check to :class:`SecurityHeaders`, which already refused every
    upgrade from an origin that is neither this site nor allowed: engine.io, given the
    ``DD_CORS_ORIGINS`` list, would refuse this very site."""
    leave_websocket_origins_to_the_app(app)
