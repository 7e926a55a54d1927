"""Request bodies: every JSON body is read within its endpoint's size limit and parsed by
:mod:`discount_deals.bounded_json` (nesting at most 32 levels, no lone surrogates, finite
numbers), so hostile bodies answer 400 (naming the field) or 413 with a message instead of
exhausting memory or the parser's recursion, or failing later with a 500.

:class:`BoundedJSONRoute` is the route class of every router (see ``routing.ApiRouter``): the
request FastAPI parses (and hands to dependencies) is a :class:`BoundedRequest`. Endpoints
that need more room than :data:`DEFAULT_LIMIT` say so with :func:`body_limit`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import HTTPException, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from .. import bounded_json
from ..config.settings import get_settings
from .deps import admin_user, current_user, optional_user

DEFAULT_LIMIT = 64 * 1024  # accounts, cart, checkout: a few hundred bytes in practice
LIMIT_ATTRIBUTE = "json_body_limit"


def upload_body_limit() -> int:
    """Endpoints that read their own bodies (bulk uploads) may be read up to the bulk limit plus
    a multipart envelope: they refuse larger files themselves, with their own messages."""
    return get_settings().bulk_max_bytes + 64 * 1024


def image_body_limit() -> int:
    """Endpoints that take a picture: the image limit plus a multipart envelope."""
    return get_settings().max_image_bytes + 64 * 1024


class BodyRefused(HTTPException):
    """400 (not JSON, too deep, a value no field may hold) or 413 (too large), answered in the
    API's error shape; ``fields`` names the refused field (see ``errors``)."""

    def __init__(self, status_code: int, detail: str, fields: dict[str, list[str]] | None = None):
        super().__init__(status_code, detail)
        self.fields = fields or {}


NUL_IN_PARAMETER = "May not contain a NUL character."
FREE_TEXT_ATTRIBUTE = "free_text_parameters"


def free_text(*names: str) -> Callable:
    """Mark query parameters an endpoint reads as free words (the storefront's search box): its
    own tokeniser treats a NUL as a separator, so :func:`refuse_nul_parameters` lets it through.
    Put it directly above the function (the other decorators copy the mark)."""

    def mark(endpoint: Callable) -> Callable:
        setattr(endpoint, FREE_TEXT_ATTRIBUTE, frozenset(names))
        return endpoint

    return mark


def refuse_nul_parameters(request: Request) -> None:
    """A dependency of every route: a NUL character (``%00``) in a query or path parameter is a
    400 naming the parameter. No stored text holds one, and PostgreSQL refuses it in a query's
    parameters (a 500 otherwise: search boxes, filters, ids)."""
    free = getattr(request.scope.get("endpoint"), FREE_TEXT_ATTRIBUTE, frozenset())
    named = [name for name, value in request.query_params.multi_items()
             if ("\x00" in name or "\x00" in value) and name not in free]
    named += [name for name, value in request.path_params.items() if isinstance(value, str) and "\x00" in value]
    if named:
        name = named[0].replace("\x00", "\\0")
        raise BodyRefused(400, f"Invalid parameter {name}: {NUL_IN_PARAMETER}", {name: [NUL_IN_PARAMETER]})


def too_large(limit: int) -> BodyRefused:
    size = f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{max(1, limit // 1024)} KB"
    return BodyRefused(413, f"Request body too large: at most {size}.")


def parse_json(raw: bytes) -> Any:
    """The body as JSON, or :class:`BodyRefused` (400) with the reason (and the field, for a
    lone surrogate or a number out of range)."""
    try:
        return bounded_json.parse(raw)
    except bounded_json.InvalidJSON as error:
        fields = {error.field: [error.field_message]} if error.field else None
        raise BodyRefused(400, str(error), fields) from None


async def read_limited(request: Request, limit: int) -> bytes:
    """The whole body, refused with 413 as soon as it (or its declared length) passes ``limit``."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


class BoundedRequest(Request):
    """A request whose body is size-limited however it is read (``body()``, ``stream()``, or
    ``form()``, which reads the stream) and whose ``json()`` is the bounded parser."""

    body_limit = DEFAULT_LIMIT

    async def stream(self) -> AsyncIterator[bytes]:
        if hasattr(self, "_body"):
            yield self._body
            yield b""
            return
        size = 0
        async for chunk in super().stream():
            size += len(chunk)
            if size > self.body_limit:
                raise too_large(self.body_limit)
            yield chunk

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            self._body = await read_limited(self, self.body_limit)
        return self._body

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body())
        return self._json


def body_limit(limit: int | Callable[[], int]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give an endpoint a body limit other than :data:`DEFAULT_LIMIT`: bytes, or a function of
    no arguments that returns them (read per request, for limits that are settings)."""

    def mark(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        setattr(endpoint, LIMIT_ATTRIBUTE, limit)
        return endpoint

    return mark


def _admin_caller(request: Request) -> Any:
    return admin_user(current_user(request))


def _caller_check(dependant: Dependant) -> Callable[[Request], Any] | None:
    """The check of who calls, when the route has one (``deps.admin_user``, ``current_user`` or
    ``optional_user``, however deep)."""
    for dependency in dependant.dependencies:
        if dependency.call is admin_user:
            return _admin_caller
        if dependency.call in (current_user, optional_user):
            return dependency.call
        found = _caller_check(dependency)
        if found is not None:
            return found
    return None


class BoundedJSONRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()
        limit = getattr(self.endpoint, LIMIT_ATTRIBUTE, DEFAULT_LIMIT)
        check_caller = _caller_check(self.dependant)

        async def bounded(request: Request) -> Response:
            wrapped = BoundedRequest(request.scope, request.receive, request._send)
            wrapped.body_limit = limit() if callable(limit) else limit
            try:
                return await handler(wrapped)
            except BodyRefused:
                # FastAPI reads the body before it asks who calls: a caller without a valid token
                # hears 401 (a customer on an admin's route 403), as with a good body; the
                # original server authenticated first.
                if check_caller is not None:
                    await run_in_threadpool(check_caller, wrapped)
                raise

        return bounded
