"""Rules of setting values that pydantic does not express: pure functions, no environment read.

The settings models validate with them; ``preflight.py`` and
``rxconfig.py`` use the same parsers, so a value means one thing everywhere.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

# Drivers we ship (psycopg 3); the schemes operators commonly write map onto it.
_POSTGRES_SCHEMES = ("postgres://", "postgresql://", "postgres+psycopg://")


def normalize_database_url(url: str) -> str:
    """``postgres://`` and ``postgresql://`` (Heroku, docker, libpq style) → ``postgresql+psycopg://``."""
    url = url.strip()
    for scheme in _POSTGRES_SCHEMES:
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***`` (safe to print and log)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.rsplit("@", 1)
        user = netloc[0].split(":", 1)[0]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))
    except ValueError:
        return "(unparseable URL)"


def parse_origins(raw: str) -> tuple[str, ...]:
    """``DD_CORS_ORIGINS`` as normalised origins; anything that is not an origin is an error."""
    origins: list[str] = []
    for part in raw.split(","):
        text = part.strip().rstrip("/")
        if not text:
            continue
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
            raise ValueError(f"DD_CORS_ORIGINS must list origins such as https://shop.example.com, got {part.strip()!r}")
        origins.append(f"{parts.scheme}://{parts.netloc.lower()}")
    return tuple(dict.fromkeys(origins))


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def parse_hosts(raw: str, public_url: str = "") -> tuple[str, ...]:
    """The hosts the site answers: loopback, the public URL's host and ``DD_ALLOWED_HOSTS``
    (comma-separated names or addresses, ``*.example.com`` for subdomains, ``*`` for any)."""
    hosts = list(LOOPBACK_HOSTS)
    public = urlsplit(public_url).hostname if public_url else None
    if public:
        hosts.append(f"[{public}]" if ":" in public else public)
    for part in raw.split(","):
        text = part.strip().lower()
        if not text:
            continue
        found = re.fullmatch(r"(\*|(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(:\d{1,5})?", text)
        if not found:
            raise ValueError(f"DD_ALLOWED_HOSTS must list host names or addresses such as shop.example.com, "
                             f"192.168.1.20 or *.example.com, got {part.strip()!r}")
        hosts.append(found.group(1))  # a port is not part of a host
    return tuple(dict.fromkeys(hosts))
