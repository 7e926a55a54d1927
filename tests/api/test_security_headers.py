"""Issue 13 item 6: security headers on every response, a hash-based CSP for HTML, HSTS over
HTTPS (directly or behind a trusted proxy), websocket upgrades only from allowed origins.
The browser suite (tests/e2e/test_security.py) checks the same against the real server."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from discount_deals.web import csp, security
from discount_deals.config.settings import get_settings

COMMON = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    "permissions-policy": security.PERMISSIONS_POLICY,
}


def _has_common(response) -> None:
    for name, value in COMMON.items():
        assert response.headers[name] == value, name


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/api/health/"), ("get", "/api/products/"), ("get", "/api/nope/"), ("post", "/api/auth/token/")],
)
def test_every_response_carries_the_headers(client, method, path):
    response = getattr(client, method)(path)
    _has_common(response)
    assert response.headers["content-security-policy"] == security.NON_HTML_POLICY
    assert "strict-transport-security" not in response.headers


def test_html_gets_a_policy_with_the_hash_of_each_inline_script(client):
    response = client.get("/api/docs", headers={"Accept": "text/html"})
    assert response.status_code == 200
    _has_common(response)
    policy = response.headers["content-security-policy"]
    script_src = next(part for part in policy.split("; ") if part.startswith("script-src "))
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.DOTALL)
    assert inline, "Swagger UI's page starts itself with an inline script"
    for expected in csp.inline_script_hashes(response.content):
        assert expected in script_src
    assert "'unsafe-inline'" not in script_src
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert "connect-src 'self' ws://testserver wss://testserver" in policy


def test_hashes_are_those_a_browser_computes():
    html = b"<html><script>alert(1)</script><script src='/x.js'></script><script type=module>\nimport 'a';</script>"
    # echo -n "alert(1)" | openssl dgst -sha256 -binary | base64
    assert csp.inline_script_hashes(html) == [
        "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='",
        csp.inline_script_hashes(b"<script>\nimport 'a';</script>")[0],
    ]


def test_hsts_over_https_and_behind_a_trusted_proxy(api_app, clean_db, monkeypatch):
    with TestClient(api_app, base_url="https://testserver") as secure:
        assert secure.get("/api/health/").headers["strict-transport-security"] == security.HSTS
    with TestClient(api_app) as plain:
        forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "1.2.3.4"}
        # An untrusted client cannot claim HTTPS ...
        assert "strict-transport-security" not in plain.get("/api/health/", headers=forwarded).headers
        monkeypatch.setenv("DD_TRUSTED_PROXY_HOPS", "1")
        get_settings.cache_clear()
        try:
            # ... but the trusted proxy in front of the app can.
            assert plain.get("/api/health/", headers=forwarded).headers["strict-transport-security"] == security.HSTS
        finally:
            monkeypatch.delenv("DD_TRUSTED_PROXY_HOPS")
            get_settings.cache_clear()


@pytest.mark.parametrize(
    ("origin", "host", "same"),
    [
        ("http://127.0.0.1:3000", "127.0.0.1:3000", True),
        ("https://shop.example", "shop.example", True),  # TLS ended by a proxy
        ("https://shop.example", "shop.example:443", True),
        ("http://shop.example:8080", "shop.example", False),
        ("http://evil.example", "shop.example", False),
        ("null", "shop.example", False),
        ("http://shop.example.evil.example", "shop.example", False),
    ],
)
def test_same_origin(origin, host, same):
    assert security.is_same_origin(origin, host) is same


def test_websocket_upgrades_from_other_origins_are_refused(api_app, clean_db, monkeypatch):
    with TestClient(api_app) as client:
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect("/_event/", headers={"Origin": "http://evil.example"}):
                pass
        assert refused.value.code == 1008
        monkeypatch.setenv("DD_CORS_ORIGINS", "http://evil.example")
        get_settings.cache_clear()
        try:
            # Allowed now: the upgrade reaches the app (which has no websocket here: 403 from routing).
            with pytest.raises(WebSocketDisconnect) as passed:
                with client.websocket_connect("/_event/", headers={"Origin": "http://evil.example"}):
                    pass
            assert passed.value.code != 1008
        finally:
            monkeypatch.delenv("DD_CORS_ORIGINS")
            get_settings.cache_clear()


def test_cors_origins_must_be_origins(monkeypatch):
    from discount_deals.config.settings import parse_origins

    assert parse_origins(" https://Client.Example/ ,http://localhost:5173") == (
        "https://client.example",
        "http://localhost:5173",
    )
    for bad in ("*", "client.example", "https://client.example/app", "ftp://x.example"):
        with pytest.raises(ValueError):
            parse_origins(bad)


def _through_security_headers(app, scope: dict, sent: list[dict]) -> None:
    """Run one request through SecurityHeaders around the ASGI ``app``; messages sent go to ``sent``."""
    import asyncio

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    asyncio.run(security.SecurityHeaders(app)(scope, receive, send))


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_a_page_sent_by_path_gets_the_hashes_of_its_file(tmp_path, encoding):
    """Granian serves static pages with the ASGI pathsend extension: no body messages at all."""
    import gzip

    import brotli

    page = tmp_path / f"index.html.{encoding}"
    source = b"<html><script>boot()</script></html>"
    page.write_bytes(gzip.compress(source) if encoding == "gzip" else brotli.compress(source))
    sent: list[dict] = []

    async def app(scope, receive, send):
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"content-encoding", encoding.encode())],
            }
        )
        await send({"type": "http.response.pathsend", "path": str(page)})

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "scheme": "http",
        "headers": [(b"host", b"shop.example"), (b"accept", b"text/html"), (b"accept-encoding", b"br, gzip")],
    }
    _through_security_headers(app, scope, sent)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.pathsend"]
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert csp.inline_script_hashes(b"<script>boot()</script>")[0] in headers["content-security-policy"]


def test_a_304_carries_no_policy(tmp_path):
    """A browser merges a 304's headers into its cached page: a policy there (even the strict
    one for non-pages, as a 304 has no Content-Type) would replace the page's own."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 304, "headers": [(b"etag", b'"abc"')]})
        await send({"type": "http.response.body", "body": b""})

    scope = {"type": "http", "method": "GET", "path": "/products", "scheme": "http",
             "headers": [(b"host", b"shop.example"), (b"accept", b"text/html"), (b"if-none-match", b'"abc"')]}
    _through_security_headers(app, scope, sent)
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert "content-security-policy" not in headers
    assert headers["x-content-type-options"] == "nosniff"


def test_pictures_and_scripts_carry_only_the_headers_that_apply_to_them(client):
    """A phone loads ~20 scripts, styles and pictures per page: they keep nosniff, the referrer
    policy and a policy that forbids framing, without the document-only headers; an SVG (which
    can run script when opened) keeps them all."""
    import io

    from PIL import Image

    media = get_settings().media_dir
    media.mkdir(parents=True, exist_ok=True)
    picture = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(picture, "WEBP")
    (media / "header-test.webp").write_bytes(picture.getvalue())
    (media / "header-test.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')

    response = client.get("/api/media/header-test.webp")
    assert response.status_code == 200 and response.headers["content-type"] == "image/webp"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert response.headers["content-security-policy"] == security.NON_HTML_POLICY
    assert "frame-ancestors 'none'" in security.NON_HTML_POLICY
    for name in ("x-frame-options", "permissions-policy", "cross-origin-opener-policy"):
        assert name not in response.headers, name

    _has_common(client.get("/api/media/header-test.svg"))


@pytest.mark.parametrize(
    ("content_type", "subresource"),
    [("text/javascript; charset=utf-8", True), ("application/javascript", True), ("text/css", True),
     ("font/woff2", True), ("image/webp", True), ("image/svg+xml", False), ("text/html; charset=utf-8", False),
     ("application/json", False), ("", False)],
)
def test_what_counts_as_a_subresource(content_type, subresource):
    assert security.is_subresource(content_type) is subresource


def test_a_rebuilt_page_file_gets_the_hashes_of_its_new_scripts(tmp_path):
    """Hashes of static page files are remembered per version of the file: a rebuild that changes
    a page's scripts changes its policy at once."""
    page = tmp_path / "cart.html"
    page.write_bytes(b"<html><script>one()</script></html>")
    first = csp.file_script_hashes(str(page), "")
    assert first == tuple(csp.inline_script_hashes(b"<script>one()</script>"))
    assert csp.file_script_hashes(str(page), "") == first
    page.write_bytes(b"<html><script>second()</script></html>")
    assert csp.file_script_hashes(str(page), "") == tuple(csp.inline_script_hashes(b"<script>second()</script>"))
    assert csp.file_script_hashes(str(tmp_path / "gone.html"), "") == ()


def test_a_page_that_brings_its_policy_is_not_read():
    """A page the server filled knows its scripts and sets its policy (web/first_html): the
    middleware adds the other headers and sends the body on as it comes, unread."""
    policy = csp.content_security_policy(["'sha256-known'"], "shop.example")
    sent: list[dict] = []

    async def app(scope, receive, send):
        headers = [(b"content-type", b"text/html; charset=utf-8"), (b"content-security-policy", policy.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"<html><script>unlisted()</script>", "more_body": True})
        assert len(sent) == 2, "the first part of the page went on before the rest was written"
        await send({"type": "http.response.body", "body": b"</html>"})

    scope = {"type": "http", "method": "GET", "path": "/", "scheme": "http",
             "headers": [(b"host", b"shop.example"), (b"accept", b"text/html")]}
    _through_security_headers(app, scope, sent)
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert headers["content-security-policy"] == policy
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert [m.get("body") for m in sent[1:]] == [b"<html><script>unlisted()</script>", b"</html>"]
