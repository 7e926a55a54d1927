"""Django REST framework style pages: ``{count, next, previous, results}`` with absolute links."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

from fastapi import Request
from pydantic import BaseModel

from ..services import NotFound, ValidationFailed
from ..config.settings import get_settings

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    count: int
    next: str | None
    previous: str | None
    total_pages: int
    results: list[T]


@dataclass(frozen=True)
class PageRequest:
    page: int
    page_size: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size


def _positive_int(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    # ASCII digits only, as every number of the API: int() would take " 2", "+2" and "２".
    value = int(raw) if raw.isascii() and raw.isdigit() else 0
    if value < 1:
        message = f"A positive whole number is required for {name}."
        raise ValidationFailed("Invalid page." if name == "page" else message, fields={name: [message]})
    return value


# No list has this many pages: a page beyond is past the end without asking the database (whose
# OFFSET would overflow).
MAX_PAGE = 1_000_000_000


def page_request(request: Request, default_size: int | None = None, max_size: int | None = None) -> PageRequest:
    """Read ``page`` and ``page_size`` from the query string (bad values → 400)."""
    settings = get_settings()
    default_size = default_size or settings.page_size
    max_size = max_size or settings.max_page_size
    page = _positive_int(request.query_params.get("page"), "page") or 1
    if page > MAX_PAGE:
        raise NotFound("Invalid page.")
    size = _positive_int(request.query_params.get("page_size"), "page_size") or default_size
    return PageRequest(page=page, page_size=min(size, max_size))


def build_page(request: Request, page: PageRequest, count: int, results: list) -> dict:
    """The page body; a page past the end answers 404 like DRF."""
    total_pages = max(1, math.ceil(count / page.page_size)) if count else 1
    if page.page > total_pages:
        raise NotFound("Invalid page.")
    next_url = previous_url = None
    if page.page < total_pages:
        next_url = str(request.url.include_query_params(page=page.page + 1))
    if page.page > 1:
        previous = request.url.include_query_params(page=page.page - 1)
        previous_url = str(previous.remove_query_params("page") if page.page == 2 else previous)
    return {
        "count": count,
        "next": next_url,
        "previous": previous_url,
        "total_pages": total_pages if count else 0,
        "results": results,
    }
