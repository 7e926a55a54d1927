"""Only the shop's own host names are answered: any other ``Host`` gets a 400 (a websocket, a refusal).

Absolute URLs (a payment's return address, pagination links, pictures, the websocket's own
origin check) are built from the request's host when ``DD_PUBLIC_URL`` is not set. Without this
check a request sent with ``Host: evil.example`` got links and redirects to evil.example, and a
page on a name the attacker rebinds to the shop's address (DNS rebinding: ``make run`` listens
on 0.0.0.0) could use the shop as its own origin. The hosts answered are loopback, the public
URL's host and ``DD_ALLOWED_HOSTS`` (``settings.parse_hosts``): a shop reached by its LAN address
lists that address there.

The check is Starlette's ``TrustedHostMiddleware`` (host names compared without the port,
``*.example.com`` wildcards), outermost, on the ``Host`` the client sent: before
``proxy.PublicOrigin`` replaces it with the public one. A refused websocket upgrade is closed
before it is accepted (the server answers 403), as ``security.SecurityHeaders`` refuses foreign
origins: not every server can send an HTTP answer to an upgrade.
"""

from __future__ import annotations

from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config.settings import get_settings


def allowed_hosts() -> tuple[str, ...]:
    return get_settings().security.allowed_hosts


class TrustedHosts:
    """ASGI middleware (outermost): a ``Host`` outside :func:`allowed_hosts` is refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._checks: dict[tuple[str, ...], TrustedHostMiddleware] = {}

    def _check(self) -> TrustedHostMiddleware:
        # The list follows the settings (tests change them); one middleware per list.
        hosts = allowed_hosts()
        check = self._checks.get(hosts)
        if check is None:
            check = TrustedHostMiddleware(self.app, allowed_hosts=list(hosts), www_redirect=False)
            self._checks = {hosts: check}
        return check

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._check()(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._check()(scope, receive, _refusing_upgrades(send))
        else:
            await self.app(scope, receive, send)


def _refusing_upgrades(send: Send) -> Send:
    """Turn the middleware's 400 to a websocket into a close before accepting (403)."""
    refused = False

    async def wrapped(message: Message) -> None:
        nonlocal refused
        if message["type"].startswith(("websocket.http.response", "http.response")):
            if not refused:
                refused = True
                await send({"type": "websocket.close", "code": 1008})
            return
        await send(message)

    return wrapped
