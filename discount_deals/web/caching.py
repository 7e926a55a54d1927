"""How long a browser may keep what the shop sends without asking again (issue 31).

On a phone network every question costs a round trip of 100-800 ms, so a file that cannot
change is never asked for twice:

* ``/assets/*``: the build's files, named by their content's hash: a year, ``immutable``.
* ``/api/media/*``: product pictures and avatars, stored under generated names (uploads) or
  names that always give the same picture (the demo's): a week, then asked again with their
  ETag.
* The app's own scripts at the root (``/shop.js``, ``/sw.js``) keep their names from one
  version to the next: ``no-cache`` (asked again each time, answered 304 while unchanged; the
  service worker keeps a copy for offline use).
* Pictures at the root and under ``/icons/`` (the favicon, the placeholder, the app icons) and
  the web app manifest (a browser asks for it again at every navigation): a day. ``/workbox-<version>/``: the service worker's library, named by its version: a year.

Pages are the first-HTML renderer's business (``no-cache``). Errors are never cached.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from .layers import HttpLayer

IMMUTABLE = "public, max-age=31536000, immutable"
MEDIA = "public, max-age=604800"
DAY = "public, max-age=86400"
REVALIDATE = "no-cache"
APP_FILES = ("/shop.js", "/sw.js")
KEPT_A_DAY = (".png", ".svg", ".ico", ".webp", ".webmanifest")


def cache_policy(path: str) -> str | None:
    """The Cache-Control of a successful GET of ``path``, or None to leave it as it is."""
    if path.startswith(("/assets/", "/workbox-")):
        return IMMUTABLE
    if path.startswith("/api/media/"):
        return MEDIA
    if path in APP_FILES:
        return REVALIDATE
    if (path.count("/") == 1 or path.startswith("/icons/")) and path.endswith(KEPT_A_DAY):
        return DAY
    return None


class StaticCaching(HttpLayer):
    methods = ("GET", "HEAD")

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        policy = cache_policy(scope.get("path", ""))
        if policy is None:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                headers = MutableHeaders(scope=message)
                if "cache-control" not in headers:
                    headers["Cache-Control"] = policy
                if "vary" in headers:
                    # The same file for every origin (no page elsewhere reads these with CORS):
                    # varying on Origin made the browser ask again for what it had (a module's
                    # load sends an Origin, the service worker's copy does not).
                    kept = [v.strip() for v in headers["vary"].split(",") if v.strip().lower() != "origin"]
                    if kept:
                        headers["Vary"] = ", ".join(dict.fromkeys(kept))
                    else:
                        del headers["Vary"]
            await send(message)

        await self.app(scope, receive, sending)
