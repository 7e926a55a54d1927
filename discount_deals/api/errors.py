"""One error shape for the whole API: ``{"detail": "..."}`` plus a field map for invalid fields.

Invalid input answers 400 (never FastAPI's default 422), and nothing answers a stack trace.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request, routing
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm.exc import StaleDataError
from starlette._utils import get_route_path
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..services import ServiceError
from ..services.form_rules import NOT_AN_OBJECT, field_summary

log = logging.getLogger("discount_deals.api")

_LOCATIONS = {"body", "query", "path", "header", "cookie"}


def error_response(status: int, detail: str, fields: dict[str, list[str]] | None = None, headers=None,
                   code: str = "", also: dict[str, str] | None = None) -> JSONResponse:
    body: dict = {"detail": detail, **(also or {})}
    if code:  # only for a ServiceError raised with expose_code (every other body is {"detail"} as before)
        body["code"] = code
    for name, messages in (fields or {}).items():
        if name != "detail":
            body[name] = messages
    return JSONResponse(body, status_code=status, headers=headers)


def _field_name(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in _LOCATIONS or not isinstance(p, str)]
    parts = [p for p in parts if p not in _LOCATIONS]
    return ".".join(parts) or "non_field_errors"


def _message(error: dict) -> str:
    kind = error.get("type", "")
    if kind == "missing":
        return "This field is required."
    if kind == "json_invalid":
        return "Invalid JSON body."
    message = str(error.get("msg", "Invalid value."))
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    return message[:1].upper() + message[1:]


def _validation_handler(_request: Request, exc: RequestValidationError) -> JSONResponse:
    fields: dict[str, list[str]] = {}
    for error in exc.errors():
        if error.get("type") == "json_invalid":
            return error_response(400, "Invalid JSON body.")
        fields.setdefault(_field_name(tuple(error.get("loc", ()))), []).append(_message(error))
    if set(fields) == {"non_field_errors"}:
        return error_response(400, NOT_AN_OBJECT, fields)
    return error_response(400, f"Invalid input. {field_summary(fields)}", fields)


def service_error_response(exc: ServiceError, also: dict[str, str] | None = None) -> JSONResponse:
    """The answer to a refusal (``also``: more keys beside ``detail``)."""
    headers = getattr(exc, "headers", None)
    return error_response(exc.status, exc.detail, exc.fields, headers=headers,
                          code=exc.code if getattr(exc, "expose_code", False) else "", also=also)


def _service_handler(_request: Request, exc: ServiceError) -> JSONResponse:
    return service_error_response(exc)


def allowed_methods(request: Request) -> str:
    """Every method some route of this path answers (Starlette names only the first route's)."""
    path = get_route_path(request.scope)
    methods: set[str] = set()
    for route in routing.iter_route_contexts(request.app.routes):
        regex = getattr(route, "path_regex", None)
        if regex is not None and getattr(route, "methods", None) and regex.match(path):
            methods |= set(route.methods)
    return ", ".join(sorted(methods))


def _http_handler(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    detail = exc.detail if isinstance(exc.detail, str) else "Error."
    headers = dict(getattr(exc, "headers", None) or {})
    if exc.status_code == 405:
        headers["Allow"] = allowed_methods(request) or headers.get("Allow", "")
    # Refused bodies (api.bodies.BodyRefused) name the field, like validation errors do.
    fields = getattr(exc, "fields", None)
    return error_response(exc.status_code, detail, fields, headers=headers or None)


def _integrity_handler(request: Request, exc: IntegrityError) -> JSONResponse:
    log.warning("integrity error on %s %s: %s", request.method, request.url.path, exc.orig)
    return error_response(409, "This change conflicts with existing data.")


CHANGED_MEANWHILE = "This was changed or deleted meanwhile. Please reload and try again."


def _stale_handler(request: Request, exc: StaleDataError) -> JSONResponse:
    # A row read, then gone or changed before its write (PostgreSQL: another request deleted it
    # in between). The writes that race so lock what they read (rows.by_id's for_update); this is
    # the answer for one that does not yet, logged to be mended, never a 500.
    log.warning("stale row on %s %s: %s", request.method, request.url.path, exc)
    return error_response(409, CHANGED_MEANWHILE)


INVALID_VALUE = "A value sent is not allowed here: too long, out of range, or holding a NUL character."


def _data_handler(request: Request, exc: DataError) -> JSONResponse:
    # The database refused a value (SQLSTATE class 22, or psycopg refusing a NUL in text): bad
    # input that a service's own check let through. A 400 that wrote nothing, logged to be mended.
    log.warning("data refused by the database on %s %s: %s", request.method, request.url.path, exc.orig)
    return error_response(400, INVALID_VALUE)


def _operational_handler(request: Request, exc: OperationalError) -> JSONResponse:
    log.error("database error on %s %s: %s", request.method, request.url.path, exc.orig)
    return error_response(503, "The service is busy. Please try again.", headers={"Retry-After": "2"})


def _pool_timeout_handler(request: Request, exc: PoolTimeout) -> JSONResponse:
    # Every database connection of this worker stayed busy for DD_DB_POOL_TIMEOUT: overload, not a bug.
    log.error("no database connection free for %s %s: %s", request.method, request.url.path, exc)
    return error_response(503, "The service is busy. Please try again.", headers={"Retry-After": "2"})


def _unexpected_handler(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "Internal server error.")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation_handler)
    app.add_exception_handler(ServiceError, _service_handler)
    app.add_exception_handler(StarletteHTTPException, _http_handler)
    app.add_exception_handler(IntegrityError, _integrity_handler)
    app.add_exception_handler(DataError, _data_handler)
    app.add_exception_handler(StaleDataError, _stale_handler)
    app.add_exception_handler(OperationalError, _operational_handler)
    app.add_exception_handler(PoolTimeout, _pool_timeout_handler)
    app.add_exception_handler(Exception, _unexpected_handler)
