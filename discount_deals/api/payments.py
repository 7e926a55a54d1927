"""Payments: the provider's webhook, and the fake provider's approve/decline page (development).

``POST /payments/webhook/`` takes the raw body and its signature (see ``services.payments``):
a bad signature answers 401 and changes nothing; a replayed event answers 200 and changes
nothing twice; an unknown reference answers 200 (the provider need not retry it).
"""

from __future__ import annotations

import html
from typing import Annotated
from urllib.parse import urlencode

import httpx
from fastapi import Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from ..db import write_session
from ..services import NotFound, ValidationFailed, payments, returns
from ..services.error_codes import ErrorCode
from .deps import SessionDep
from .openapi import declares, documents
from .response_models import WebhookOut
from .routing import ApiRouter

router = ApiRouter(tags=["payments"])

Reference = Annotated[str, Path(max_length=64)]
MAX_WEBHOOK_BYTES = 64 * 1024  # a charge event is a few kilobytes


@router.post("/payments/webhook/", **documents(WebhookOut))
@declares(400, 401, 413)
async def webhook(request: Request) -> dict:
    """A payment provider reports a charge, or a refund's final word (signed; see the module docstring)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_WEBHOOK_BYTES:
            raise ValidationFailed("Webhook body too large.", status=413, code=ErrorCode.WEBHOOK_TOO_LARGE)
    outcome = await run_in_threadpool(_apply, raw, dict(request.headers))
    return {"detail": "ok", "outcome": outcome}


def _apply(raw: bytes, headers: dict[str, str]) -> str:
    with write_session() as session:
        return payments.handle_webhook(session, raw, headers, on_refund=returns.refund_reported)


# --- the fake provider's page ---------------------------------------------------------------------


def _fake() -> payments.FakeProvider:
    provider = payments.get_provider()
    if not isinstance(provider, payments.FakeProvider):
        raise NotFound()
    return provider


def _with_reference(url: str, reference: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}{urlencode({'reference': reference})}"


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Test payment | Discount Deals</title>
<style>
body{{margin:0;font-family:system-ui,sans-serif;background:#f9fafb;color:#111827}}
main{{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #e5e7eb;border-radius:.5rem}}
h1{{font-size:1.25rem;margin:0 0 .25rem}} p{{color:#4b5563;margin:.25rem 0 1rem}}
dl{{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:0 0 1.5rem}} dt{{color:#4b5563}} dd{{margin:0;font-weight:600}}
form{{display:inline}} button{{font:inherit;font-weight:600;border:0;border-radius:.375rem;padding:.75rem 1.25rem;cursor:pointer}}
.ok{{background:#15803d;color:#fff}} .no{{background:#fff;color:#b91c1c;border:1px solid #d1d5db;margin-left:.5rem}}
</style></head><body><main>
<h1>Test payment</h1>
<p>This is the shop's test payment page: no money moves. Approve or decline the mobile money payment.</p>
<dl><dt>Amount</dt><dd>{amount}</dd><dt>Network</dt><dd>{network}</dd><dt>Phone</dt><dd>{phone}</dd>
<dt>Order</dt><dd>#{order}</dd><dt>Reference</dt><dd>{reference}</dd></dl>
<form method="post" action="approve/"><button class="ok" type="submit">Approve payment</button></form>
<form method="post" action="decline/"><button class="no" type="submit">Decline</button></form>
</main></body></html>"""


@router.get("/payments/fake/{reference}/", include_in_schema=False, response_class=HTMLResponse)
def fake_page(reference: Reference, session: SessionDep):
    fake = _fake()
    shown = fake.page(session, reference)
    if shown["decided"]:
        return RedirectResponse(_with_reference(shown["callback_url"], reference), status_code=303)
    values = {key: html.escape(str(value)) for key, value in shown.items()}
    return HTMLResponse(PAGE.format(**values))


def _record_decision(fake: payments.FakeProvider, reference: str, approve: bool) -> tuple[bytes, str, str]:
    # Committed before the webhook is sent: the provider's record comes first, as with a real one.
    with write_session() as session:
        return fake.decide(session, reference, approve)


async def _decide(request: Request, reference: str, approve: bool):
    fake = _fake()
    raw, signature, callback_url = await run_in_threadpool(_record_decision, fake, reference, approve)
    # The fake provider calls our webhook as a real one would: a signed POST to the endpoint.
    transport = httpx.ASGITransport(app=request.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://payments.internal") as client:
        response = await client.post(
            "/payments/webhook/", content=raw, headers={"X-Signature": signature, "Content-Type": "application/json"}
        )
    response.raise_for_status()
    return RedirectResponse(_with_reference(callback_url, reference), status_code=303)


@router.post("/payments/fake/{reference}/approve/", include_in_schema=False)
async def fake_approve(request: Request, reference: Reference):
    return await _decide(request, reference, True)


@router.post("/payments/fake/{reference}/decline/", include_in_schema=False)
async def fake_decline(request: Request, reference: Reference):
    return await _decide(request, reference, False)
