"""A router whose every path answers with and without its trailing slash, without redirects.

The existing client calls most paths with a slash and a few without; redirects would turn a
POST into a GET in some clients. The form written in the route is the one documented.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter
from starlette.convertors import Convertor, register_url_convertor
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..services.rows import canonical_id
from .bodies import BoundedJSONRoute


class ResourceId(Convertor[str]):
    """A path segment naming a resource, other than the fixed paths beside it: with
    ``{product_id:product_id}``, ``/products/bulk-upload/`` and ``/products/featured`` are never
    taken for product ids (GET on the upload answers 405 with its Allow, not "product not
    found"), while any other segment still reaches the endpoint (401 without a token, then 404)."""

    def __init__(self, *reserved: str) -> None:
        self.reserved = reserved
        words = "|".join(re.escape(word) for word in reserved)
        self.regex = f"(?!(?:{words})(?:/|$))[^/]+" if reserved else "[^/]+"

    def convert(self, value: str) -> str:
        # Any spelling of a UUID (capitals, no hyphens), as the original server's lookups took it.
        return canonical_id(value)

    def to_string(self, value: str) -> str:
        return value


# Ids are UUIDs (documented as such); these keep the fixed sibling paths out of them.
register_url_convertor("product_id", ResourceId("featured", "bulk-upload", "suggest", "facets"))
register_url_convertor("order_id", ResourceId("checkout"))
register_url_convertor("category_id", ResourceId("bulk-upload"))
register_url_convertor("row_id", ResourceId())  # every other {..._id} (ApiRouter.add_api_route)


class ApiRouter(APIRouter):
    """Also: every route reads JSON bodies through the bounded parser (see ``bodies``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("route_class", BoundedJSONRoute)
        super().__init__(*args, **kwargs)

    def add_api_route(self, path: str, endpoint: Any, **kwargs: Any) -> None:
        path = re.sub(r"\{(\w+_id)\}", r"{\1:row_id}", path)
        super().add_api_route(path, endpoint, **kwargs)
        twin = path[:-1] if path.endswith("/") else f"{path}/"
        if twin and twin != path:
            twin_kwargs = {**kwargs, "include_in_schema": False}
            if kwargs.get("operation_id"):
                twin_kwargs["operation_id"] = f"{kwargs['operation_id']}_alt"
            super().add_api_route(twin, endpoint, **twin_kwargs)


class HeadAsGet:
    """HEAD answered where GET is, with GET's headers and no body (RFC 9110 §9.1 and §9.3.2: an
    uptime monitor's HEAD /api/live/ was a 405), as the pages and Starlette's own routes do. The
    routes declare GET only, so HEAD stays out of the OpenAPI document and the 405s' Allow."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body"):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
