"""Security headers, a Content-Security-Policy the Reflex app runs under, and origin checks.

:class:`SecurityHeaders` wraps the whole app (pages, ``/api``, Reflex's websocket):

* Every response carries ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
  strict-origin-when-cross-origin``, ``X-Frame-Options: DENY``, a ``Permissions-Policy`` that
  turns off what the shop never uses, ``Cross-Origin-Opener-Policy: same-origin``, and
  ``Strict-Transport-Security`` when the browser used HTTPS (the scheme as ``proxy.PublicOrigin``
  set it: directly, ``DD_PUBLIC_URL``, or a trusted proxy's ``X-Forwarded-Proto``).
* HTML gets :func:`content_security_policy`: scripts only from this origin, plus the inline
  scripts of *that* document, allowed one by one by their SHA-256 (computed here as the page
  is served, so pages filled by the server are covered as they change), plus ``'unsafe-eval'``
  because Reflex runs ``rx.call_script`` through ``eval``. No inline script injected into a
  page can run. Styles allow ``'unsafe-inline'`` (React style attributes, runtime style tags).
  Other responses get ``default-src 'none'``.
* Scripts, style sheets, fonts and images are never documents of their own that could be
  framed or use a browser feature: they carry nosniff, the Referrer-Policy, the short
  ``default-src 'none'; frame-ancestors 'none'`` policy and HSTS, not the document-only
  headers (X-Frame-Options, Permissions-Policy, COOP). A phone loads about 20 of them per page
  and those headers were ~250 bytes on each (issue 15's page weight).
* Cross-origin: the allow-list is ``DD_CORS_ORIGINS`` (same origin only by default; Reflex's
  own CORS middleware gets the same list through rxconfig). A websocket upgrade whose
  ``Origin`` is neither this site nor on the list is refused before it is accepted (browsers
  do not apply CORS to websockets, so the server must).
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import os
import re
import zlib
from collections.abc import Iterable

import brotli
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..reflex_adapter import declared_env_mode
from ..settings import get_settings

PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=(), browsing-topics=()"
)
HSTS = "max-age=31536000; includeSubDomains"
NON_HTML_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
MAX_HTML_BYTES = 4 * 1024 * 1024
_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(rb"\ssrc\s*=", re.IGNORECASE)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def inline_script_hashes(html: bytes) -> list[str]:
    """``'sha256-…'`` sources for every inline ``<script>`` of ``html`` (in order, without repeats)."""
    hashes: dict[str, None] = {}
    for match in _INLINE_SCRIPT.finditer(html):
        attributes, body = match.group(1), match.group(2)
        if _SRC.search(attributes):
            continue
        digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
        hashes[f"'sha256-{digest}'"] = None
    return list(hashes)


def content_security_policy(script_hashes: Iterable[str], host: str | None) -> str:
    """The policy of an HTML page whose inline scripts have ``script_hashes``."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    scripts = " ".join(["'self'", "'unsafe-eval'", *script_hashes])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            # Product pictures may live on any retailer's site.
            "img-src 'self' data: blob: https: http:",
            "font-src 'self' data:",
            f"connect-src 'self'{sockets}",
            "worker-src 'self' blob:",
            "manifest-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


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
        request_headers = Headers(scope=scope)
        https = _over_https(scope)
        host = request_headers.get("host")
        await self.app(scope, receive, _Responder(send, https, host).send)


class _Responder:
    def __init__(self, send: Send, https: bool, host: str | None) -> None:
        self._send = send
        self._https = https
        self._host = host
        self._start: Message | None = None
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
            headers = MutableHeaders(scope=message)
            self._common(headers)
            if message["status"] == 304:
                # No policy at all: the browser merges a 304's headers into the cached response,
                # which keeps the policy it was stored with (the one matching its scripts). A 304
                # carries no Content-Type, so it cannot tell a page from a script here.
                await self._send(message)
                return
            if not headers.get("content-type", "").startswith("text/html"):
                headers["Content-Security-Policy"] = NON_HTML_POLICY
                await self._send(message)
                return
            self._start = message
            return
        if self._start is not None and message["type"] == "http.response.pathsend":
            # A static page sent by path (Granian's pathsend): hash the file it names.
            start, self._start = self._start, None
            headers = MutableHeaders(scope=start)
            headers["Content-Security-Policy"] = content_security_policy(
                _file_script_hashes(message["path"], headers.get("content-encoding", "")), self._host
            )
            await self._send(start)
            await self._send(message)
            return
        if message["type"] != "http.response.body" or self._start is None:
            await self._send(message)
            return
        self._chunks.append(message.get("body", b""))
        self._size += len(self._chunks[-1])
        if message.get("more_body", False) and self._size <= MAX_HTML_BYTES:
            return
        body = b"".join(self._chunks)
        start, self._start, self._chunks = self._start, None, []
        headers = MutableHeaders(scope=start)
        headers["Content-Security-Policy"] = content_security_policy(
            inline_script_hashes(_decoded(body, headers.get("content-encoding", ""))), self._host
        )
        await self._send(start)
        await self._send({"type": "http.response.body", "body": body, "more_body": message.get("more_body", False)})


def _file_script_hashes(path: str, encoding: str) -> tuple[str, ...]:
    """The inline-script hashes of a static page file, worked out once per version of the file
    (the build's pages are served again and again; reading, inflating and scanning them each
    time cost more than serving them)."""
    try:
        stat = os.stat(path)
    except OSError:
        return ()
    return _hashes_of_file(path, encoding, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _hashes_of_file(path: str, encoding: str, _mtime_ns: int, _size: int) -> tuple[str, ...]:
    try:
        with open(path, "rb") as handle:
            body = handle.read(MAX_HTML_BYTES)
    except OSError:
        return ()
    return tuple(inline_script_hashes(_decoded(body, encoding)))


def _decoded(body: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    try:
        if encoding == "gzip":
            return gzip.decompress(body)
        if encoding == "deflate":
            return zlib.decompress(body)
        if encoding == "br":
            return brotli.decompress(body)
    except (OSError, zlib.error, EOFError, brotli.error):
        return b""
    return body if encoding in ("", "identity") else b""


def hand_websocket_origins_to_us(app) -> None:
    """Turn off engine.io's own origin check of Reflex's websocket: :class:`SecurityHeaders`
    already refused every upgrade from an origin that is neither this site nor allowed, and
    engine.io, given the ``DD_CORS_ORIGINS`` list, would refuse this very site."""
    sio = getattr(app, "sio", None)
    if sio is not None:
        sio.eio.cors_allowed_origins = []
