"""The shop's public address, for absolute links (share links, og:url, og:image, sitemap).

``DD_PUBLIC_URL`` (for example ``https://deals.example.com``, settings.public_url) wins when
set: behind a proxy or a CDN the address a request arrived on is not the one to publish, and a
Host header is the client's to write. Without it, the request's own origin is used, which
web/proxy.PublicOrigin has already set from trusted proxies' headers (or left as it came in
development and tests).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .settings import get_settings


def configured_public_url() -> str:
    """``DD_PUBLIC_URL`` without a trailing slash, or "" when unset or not an http(s) URL."""
    value = get_settings().public_url
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc:
        return value
    return ""


def public_base_url(request_origin: str) -> str:
    """The base of absolute links: ``DD_PUBLIC_URL`` or else ``request_origin``."""
    return configured_public_url() or (request_origin or "").rstrip("/")


def absolute_url(path_or_url: str, request_origin: str) -> str:
    """``path_or_url`` made absolute against :func:`public_base_url` (absolute URLs pass through)."""
    if urlsplit(path_or_url).scheme in ("http", "https"):
        return path_or_url
    path = path_or_url if path_or_url.startswith("/") else f"/{path_or_url}"
    return public_base_url(request_origin) + path
