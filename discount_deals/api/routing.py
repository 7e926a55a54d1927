"""A router whose every path answers with and without its trailing slash, without redirects.

The existing client calls most paths with a slash and a few without; redirects would turn a
POST into a GET in some clients. The form written in the route is the one documented.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from .bodies import BoundedJSONRoute


class ApiRouter(APIRouter):
    """Also: every route reads JSON bodies through the bounded parser (see ``bodies``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("route_class", BoundedJSONRoute)
        super().__init__(*args, **kwargs)

    def add_api_route(self, path: str, endpoint: Any, **kwargs: Any) -> None:
        super().add_api_route(path, endpoint, **kwargs)
        twin = path[:-1] if path.endswith("/") else f"{path}/"
        if twin and twin != path:
            twin_kwargs = {**kwargs, "include_in_schema": False}
            if kwargs.get("operation_id"):
                twin_kwargs["operation_id"] = f"{kwargs['operation_id']}_alt"
            super().add_api_route(twin, endpoint, **twin_kwargs)
