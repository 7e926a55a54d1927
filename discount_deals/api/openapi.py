"""An OpenAPI document that tells the truth about every operation.

FastAPI documents the success answer and its own 422, which this API never sends. The errors
the API does send come from a few places that apply to whole classes of operations, so they
are declared here from what each route is, rather than by hand on each:

* 400: the operation takes input (parameters, a body, a page) — invalid input, with a field map;
* 401: it reads the bearer token (a missing, expired or revoked token; an invalid one even
  where a guest is welcome, so that clients refresh);
* 403: it needs the admin role;
* 404: it names a resource in its path, or is paged (a page past the end);
* 409: it writes (a change that conflicts with existing data);
* 413: it takes a body (each endpoint has a size limit: see ``bodies``);
* 503: always (the database is busy or unreachable; ``Retry-After`` says when to retry).

Operations add what is particular to them with :func:`declares` (e.g. 429 for login).
Paged operations (:func:`paginated`) get their ``page`` and ``page_size`` parameters.
Every error answers the ``Message`` shape: ``{"detail": "..."}`` plus, for invalid fields,
``{"field": ["message"]}``, and for a few refusals a ``code`` (services.ServiceError's expose_code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI, routing
from fastapi.routing import APIRoute

from .deps import admin_user, current_user, optional_user

DESCRIPTIONS = {
    400: "Invalid input: `detail` says why, invalid fields map to their messages",
    401: "Missing, expired, revoked or invalid access token",
    403: "The access token is valid but the role does not allow this",
    404: "Not found (or not yours), or a page past the end",
    405: "A fixed path beside the id (e.g. `bulk-upload`) that takes another method",
    409: "Conflicts with the current state or with existing data",
    413: "Request body too large",
    429: "Too many attempts; see the Retry-After header",
    502: "The payment provider refused the request or could not be reached",
    503: "The service is busy or the database unreachable; see the Retry-After header",
}
DECLARED = "declared_statuses"
PAGINATED = "paginated"
BEARER_READ = "reads_bearer"
WRITES = {"POST", "PUT", "PATCH", "DELETE"}
PAGE_PARAMETERS = [
    {
        "name": "page",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1},
        "description": "Page number, from 1 (a page past the end answers 404)",
    },
    {
        "name": "page_size",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1},
        "description": "Items per page (capped by the server)",
    },
]
MESSAGE_SCHEMA = {
    "type": "object",
    # Some refusals add a "code" string (not_paid), but "code" is also a field of some bodies
    # (a coupon's, a reset code's): its field errors are lists, so it is not typed here.
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
    "additionalProperties": True,
}


def declares(*statuses: int, bearer: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare statuses an endpoint answers beyond those of its kind; ``bearer=True`` for
    endpoints that read the token themselves (the product reads, for speed)."""

    def mark(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        declared = set(getattr(endpoint, DECLARED, set()))
        setattr(endpoint, DECLARED, declared | set(statuses))
        if bearer:
            setattr(endpoint, BEARER_READ, True)
        return endpoint

    return mark


def documents(model: Any, status: int = 200, description: str = "Successful Response") -> dict[str, Any]:
    """Route keywords that document ``model`` as the success answer without re-validating what
    the endpoint sends (the conformance suite checks the answers against the document)."""
    return {"response_model": None, "responses": {status: {"model": model, "description": description}}}


def paginated(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an endpoint that answers a DRF page (it reads ``page`` and ``page_size``)."""
    setattr(endpoint, PAGINATED, True)
    return endpoint


def _calls(route: APIRoute) -> set[Any]:
    found, stack = set(), [route.dependant]
    while stack:
        dependant = stack.pop()
        if dependant.call is not None:
            found.add(dependant.call)
        stack.extend(dependant.dependencies)
    return found


def _has_body(route: APIRoute) -> bool:
    extra = route.openapi_extra or {}
    return bool(route.dependant.body_params) or "requestBody" in extra


def statuses(route: APIRoute, method: str) -> set[int]:
    """The error statuses ``method`` on ``route`` may answer (see the module docstring)."""
    endpoint = route.endpoint
    calls = _calls(route)
    dependant = route.dependant
    paged = getattr(endpoint, PAGINATED, False)
    found = {503} | set(getattr(endpoint, DECLARED, set()))
    takes_input = any(
        (dependant.query_params, dependant.path_params, dependant.header_params, dependant.cookie_params)
    )
    if takes_input or _has_body(route) or paged:
        found.add(400)
    if calls & {current_user, optional_user, admin_user} or getattr(endpoint, BEARER_READ, False):
        found.add(401)
    if admin_user in calls:
        found.add(403)
    if dependant.path_params or paged:
        found.add(404)
    if method in WRITES:
        found.add(409)
    if _has_body(route):
        found.add(413)
    return found


def api_routes(api: FastAPI) -> Iterable[Any]:
    """Every API route as included (FastAPI wraps included routers: their contexts carry the
    effective path, methods and dependencies)."""
    for context in routing.iter_route_contexts(api.routes):
        if isinstance(context.original_route, APIRoute):
            yield context


def _api_routes(api: FastAPI) -> Iterable[Any]:
    return (route for route in api_routes(api) if route.include_in_schema)


def install(api: FastAPI) -> None:
    """Post-process ``api``'s OpenAPI document once, when first asked for."""
    build = api.openapi

    def openapi() -> dict:
        if api.openapi_schema is None:
            schema = build()
            for route in _api_routes(api):
                for method in route.methods:
                    operation = schema["paths"].get(route.path_format, {}).get(method.lower())
                    if operation is None:
                        continue
                    _complete(operation, route, method)
            schemas = schema.setdefault("components", {}).setdefault("schemas", {})
            schemas.pop("HTTPValidationError", None)
            schemas.pop("ValidationError", None)
            schemas["Message"] = MESSAGE_SCHEMA
            api.openapi_schema = schema
        return api.openapi_schema

    api.openapi = openapi


def _complete(operation: dict, route: APIRoute, method: str) -> None:
    responses = operation.setdefault("responses", {})
    responses.pop("422", None)
    for status in sorted(statuses(route, method)):
        entry = responses.setdefault(str(status), {"description": DESCRIPTIONS.get(status, "Error")})
        entry.setdefault("content", {"application/json": {"schema": {"$ref": "#/components/schemas/Message"}}})
        if status in (429, 503):
            entry.setdefault("headers", {"Retry-After": {"schema": {"type": "integer"}, "required": status == 429}})
    for parameter in operation.get("parameters", []):
        convertor = route.param_convertors.get(parameter.get("name"))
        if parameter.get("in") == "path" and type(convertor).__name__ == "ResourceId":
            parameter.setdefault("schema", {})["format"] = "uuid"
            if convertor.reserved:  # /products/bulk-upload met by a GET: the upload's 405, not a product's 404
                responses.setdefault("405", {"description": DESCRIPTIONS[405], "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Message"}}}})
    if getattr(route.endpoint, PAGINATED, False):
        names = {parameter.get("name") for parameter in operation.get("parameters", [])}
        operation.setdefault("parameters", []).extend(p for p in PAGE_PARAMETERS if p["name"] not in names)
