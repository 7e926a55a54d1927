"""The Content-Security-Policy of the shop's pages, and where their script hashes come from.

A page's scripts run only from this origin, plus the inline scripts of *that* document, each
allowed by its SHA-256, plus ``'unsafe-eval'`` because Reflex runs ``rx.call_script`` through
``eval``: no inline script injected into a page can run. Styles allow ``'unsafe-inline'``
(React style attributes, runtime style tags). Responses that are not pages get
:data:`NON_HTML_POLICY`.

The hashes are known before a page is sent, never found by reading the response:

* A page the server fills (:mod:`.first_html`) is built from a pre-rendered shell whose hashes
  are worked out once per version of its file, plus the scripts the renderer itself adds (the
  boot loader, the product's JSON-LD); it sets its own policy (:func:`page_policy`).
* A static page file of the build, sent by path (Granian's ``pathsend``): the hashes of that
  file, once per version of the file (:func:`file_script_hashes`).
* Anything else that is HTML (Swagger UI's page at /api/docs, or a static page under a server
  without ``pathsend``, as in the in-process test client) is read as it passes
  (:func:`inline_script_hashes`), see ``security.SecurityHeaders``.
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
from starlette.datastructures import Headers
from starlette.types import Scope

NON_HTML_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
# The service worker's own policy (a worker takes the one its script came with): its library
# from this site, and the site's files fetched to keep them (web/service_worker.py).
WORKER_PATH = "/sw.js"
WORKER_POLICY = "default-src 'none'; script-src 'self'; connect-src 'self'; base-uri 'none'"
MAX_HTML_BYTES = 4 * 1024 * 1024
_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(rb"\ssrc\s*=", re.IGNORECASE)


def script_hash(code: str | bytes) -> str:
    """The ``'sha256-…'`` source that allows an inline script whose text is ``code``."""
    data = code.encode("utf-8") if isinstance(code, str) else code
    return f"'sha256-{base64.b64encode(hashlib.sha256(data).digest()).decode()}'"


def inline_script_hashes(html: bytes) -> list[str]:
    """``'sha256-…'`` sources for every inline ``<script>`` of ``html`` (in order, without repeats)."""
    hashes: dict[str, None] = {}
    for match in _INLINE_SCRIPT.finditer(html):
        attributes, body = match.group(1), match.group(2)
        if _SRC.search(attributes):
            continue
        hashes[script_hash(body)] = None
    return list(hashes)


def content_security_policy(script_hashes: Iterable[str], host: str | None) -> str:
    """The policy of an HTML page whose inline scripts have ``script_hashes``."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    scripts = " ".join(["'self'", "'unsafe-eval'", *dict.fromkeys(script_hashes)])
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


def page_policy(scope: Scope, script_hashes: Iterable[str]) -> str:
    """The policy of a page answering the request ``scope`` (its websocket goes to the same host,
    as ``proxy.PublicOrigin`` has set it)."""
    return content_security_policy(script_hashes, Headers(scope=scope).get("host"))


def file_script_hashes(path: str, encoding: str = "") -> tuple[str, ...]:
    """The inline-script hashes of a page file of the build (``encoding``: how the file is
    compressed), worked out once per version of the file: the build's pages are served again
    and again, and reading, inflating and scanning them each time cost more than serving them."""
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
    return tuple(inline_script_hashes(decoded(body, encoding)))


def decoded(body: bytes, encoding: str) -> bytes:
    """``body`` inflated from its Content-Encoding (b"" when it cannot be)."""
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
