"""/robots.txt and /sitemap.xml at the site's root (outside /api)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from ..db import session_scope
from ..config.public_url import public_base_url
from . import sitemap

router = APIRouter(include_in_schema=False)

# Pages that are a shopper's own or need a login: nothing for a search engine there.
DISALLOWED = ("/api/", "/cart", "/checkout", "/favorites", "/profile", "/orders", "/returns", "/admin")


def base_url(request: Request) -> str:
    return public_base_url(str(request.base_url))


@router.api_route("/robots.txt", methods=["GET", "HEAD"])
def robots(request: Request) -> PlainTextResponse:
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in DISALLOWED), "", f"Sitemap: {base_url(request)}/sitemap.xml"]
    return PlainTextResponse("\n".join(lines) + "\n", headers={"Cache-Control": "public, max-age=3600"})


async def _sitemap(request: Request, part: int) -> Response:
    def build() -> str | None:
        with session_scope() as session:
            return sitemap.sitemap_xml(session, base_url(request), part)

    document = await run_in_threadpool(build)
    if document is None:
        return Response(status_code=404)
    return Response(document, media_type="application/xml", headers={"Cache-Control": "public, max-age=300"})


@router.api_route("/sitemap.xml", methods=["GET", "HEAD"])
async def sitemap_index(request: Request) -> Response:
    return await _sitemap(request, 0)


@router.api_route("/sitemap-{part}.xml", methods=["GET", "HEAD"])
async def sitemap_part(request: Request, part: int) -> Response:
    return await _sitemap(request, part) if part >= 1 else Response(status_code=404)
