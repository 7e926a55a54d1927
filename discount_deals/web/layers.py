"""What the site's own ASGI layers share: each wraps the app and acts on HTTP requests only."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpLayer:
    """An ASGI layer over ``app`` that acts in :meth:`handle` on HTTP requests (of :attr:`methods`,
    when set); anything else (lifespan, websockets, other methods) passes straight through."""

    methods: tuple[str, ...] | None = None

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (self.methods is not None and scope.get("method") not in self.methods):
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
