"""Issue 32 item 3: every body is bounded while it streams (413 at the limit, chunked or not),
and Reflex's ``/_upload`` answers only a tab with a live websocket.

The probe's reproductions: an anonymous 300 MB chunked ``/_upload`` was spooled whole (285 MB
temp file); a 60 MB chunked ``PATCH /api/users/profiles/{id}/`` was read whole before its 400.
Bodies here are generators (no Content-Length: chunked), counting what the server pulled.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import httpx
import pytest
from reflex.utils.token_manager import LocalTokenManager

from discount_deals.config.settings import get_settings
from discount_deals.web import body_limits

from ..builders.accounts import auth_headers
from ..support.loops import run_coroutine

MB = 1024 * 1024
CHUNK = 64 * 1024
BOUNDARY = "probe-boundary"
PROFILE_HANDLER = "reflex___state____state.discount_deals___state___account___profile____profile_state.upload_photo"
CSV_HANDLER = "reflex___state____state.discount_deals___state___admin___bulk____bulk_products_state.pick_csv_file"


class Body:
    """A multipart body of ``size`` bytes of file, sent in chunks; ``sent`` is what was pulled."""

    def __init__(self, field: str, size: int):
        self.field, self.size, self.sent = field, size, 0

    async def __aiter__(self):
        head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{self.field}\"; filename=\"big.png\"\r\n"
                "Content-Type: image/png\r\n\r\n").encode()
        for part in self._parts(head):
            self.sent += len(part)
            yield part

    def _parts(self, head: bytes):
        yield head
        left = self.size
        while left > 0:
            yield b"\0" * min(CHUNK, left)
            left -= CHUNK
        yield f"\r\n--{BOUNDARY}--\r\n".encode()


MULTIPART = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


async def _send(app, method: str, url: str, body: Body | bytes, headers: dict) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as client:
        return await client.request(method, url, content=body, headers={**MULTIPART, **headers})


@pytest.fixture
def shop():
    """The site around the API, with stand-ins for Reflex's endpoints behind it that read what they
    are sent as Reflex's do (its buffered upload parses the multipart form; engine.io's polling
    reads the body): so what the shell lets through is read."""
    from starlette.responses import JSONResponse

    from discount_deals.api import create_api
    from discount_deals.web.site import site

    async def upload(request):
        async with request.form() as form:
            return JSONResponse({"files": len(form.getlist("files"))})

    async def polling(request):
        return JSONResponse({"bytes": len(await request.body())})

    app = site(create_api())
    app.add_route("/_upload", upload, methods=["POST"])
    app.add_route("/_event/", polling, methods=["POST"])
    return app


@pytest.fixture
def live_tab():
    """A tab token with a live websocket, in Reflex's own token manager (what the app holds)."""
    manager = LocalTokenManager()
    token = uuid.uuid4().hex
    run_coroutine(manager.link_token_to_sid(token, "socket-1"))
    body_limits.install(SimpleNamespace(event_namespace=SimpleNamespace(_token_manager=manager)))
    yield token
    body_limits.install(None)


def _upload_headers(token: str, handler: str = PROFILE_HANDLER) -> dict:
    return {"reflex-client-token": token, "reflex-event-handler": handler}


def test_an_upload_without_a_live_tab_is_refused_before_its_body_is_read(shop):
    body = Body("files", 300 * MB)
    answer = run_coroutine(_send(shop, "POST", "/_upload", body, _upload_headers(uuid.uuid4().hex)))
    assert answer.status_code == 403
    assert answer.json() == {"detail": body_limits.NO_LIVE_TAB, "code": "no_live_tab"}
    assert body.sent < 2 * CHUNK
    no_token = Body("files", MB)
    assert run_coroutine(_send(shop, "POST", "/_upload", no_token, {})).status_code == 403


def test_a_300_mb_chunked_upload_from_a_live_tab_stops_at_the_picture_limit(shop, live_tab):
    body = Body("files", 300 * MB)
    answer = run_coroutine(_send(shop, "POST", "/_upload", body, _upload_headers(live_tab)))
    assert answer.status_code == 413
    assert answer.json()["detail"] == f"Request body too large: at most {get_settings().max_image_bytes // MB} MB."
    limit = get_settings().max_image_bytes + body_limits.MULTIPART_ENVELOPE
    assert limit < body.sent <= limit + 2 * CHUNK


def test_a_bulk_file_may_be_as_large_as_the_bulk_limit_and_no_larger(shop, live_tab):
    settings = get_settings()
    fits = Body("files", settings.bulk_max_bytes)
    answer = run_coroutine(_send(shop, "POST", "/_upload", fits, _upload_headers(live_tab, CSV_HANDLER)))
    assert answer.status_code == 200 and answer.json() == {"files": 1}
    assert fits.sent > settings.bulk_max_bytes
    over = Body("files", settings.bulk_max_bytes + 2 * body_limits.MULTIPART_ENVELOPE)
    answer = run_coroutine(_send(shop, "POST", "/_upload", over, _upload_headers(live_tab, CSV_HANDLER)))
    assert answer.status_code == 413


def test_a_declared_length_over_the_limit_is_refused_before_reading(shop, live_tab):
    declared = {"Content-Length": str(400 * MB), **_upload_headers(live_tab)}
    answer = run_coroutine(_send(shop, "POST", "/_upload", b"tiny", declared))
    assert answer.status_code == 413


def test_a_60_mb_chunked_profile_picture_is_refused_at_the_image_limit(api_app, clean_db, make_user):
    user = make_user()
    headers = auth_headers(user)

    async def scenario():
        transport = httpx.ASGITransport(app=api_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as client:
            profile_id = (await client.get("/api/users/me/", headers=headers)).json()["profile"]["id"]
            body = Body("profile_image", 60 * MB)
            answer = await client.patch(f"/api/users/profiles/{profile_id}/", content=body,
                                        headers={**MULTIPART, **headers})
            after = (await client.get(f"/api/users/profiles/{profile_id}/", headers=headers)).json()
            return answer, body.sent, after

    answer, sent, after = run_coroutine(scenario())
    assert answer.status_code == 413
    assert "too large" in answer.json()["detail"]
    limit = get_settings().max_image_bytes + 64 * 1024
    assert sent <= limit + 2 * CHUNK
    assert not after.get("profile_image")


def test_a_chunked_bulk_csv_over_the_limit_is_refused_while_it_streams(api_app, clean_db, make_user):
    headers = auth_headers(make_user(role="admin"))
    body = Body("file", 40 * MB)
    answer = run_coroutine(_send(api_app, "POST", "/api/products/bulk-upload/", body, headers))
    assert answer.status_code == 413
    assert body.sent <= get_settings().bulk_max_bytes + 64 * 1024 + 2 * CHUNK


def test_other_paths_take_no_more_than_engine_io_does(shop):
    body = Body("files", 20 * MB)
    answer = run_coroutine(_send(shop, "POST", "/_event/?transport=polling", body, {}))
    assert answer.status_code == 413
    assert body.sent <= 1_000_000 + 2 * CHUNK


def test_a_picture_from_a_live_tab_within_the_limit_goes_through(shop, live_tab):
    body = Body("files", MB)
    answer = run_coroutine(_send(shop, "POST", "/_upload", body, _upload_headers(live_tab)))
    assert answer.status_code == 200 and answer.json() == {"files": 1}
