"""Payment builders: the provider's webhook, signed as the provider signs it, and payment rows."""

from __future__ import annotations

import json

from sqlmodel import select

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.db import session_scope
from discount_deals.services.payments import sign

WEBHOOK = "/api/payments/webhook/"


def signed(event: str, reference: str, amount, secret: str | None = None) -> tuple[bytes, dict[str, str]]:
    raw = json.dumps({"event": event, "data": {"reference": reference, "amount": amount}}).encode()
    secret = secret or get_settings().checkout.webhook_secret
    return raw, {"X-Signature": sign(raw, secret), "Content-Type": "application/json"}


def post_webhook(client, event: str, reference: str, amount, *, secret: str | None = None, headers=None):
    raw, signed_headers = signed(event, reference, amount, secret)
    return client.post(WEBHOOK, content=raw, headers=headers if headers is not None else signed_headers)


def minor(total: str) -> int:
    """An API total ("12.50") in pesewas, as the provider reports amounts."""
    whole, cents = total.split(".")
    return int(whole) * 100 + int(cents)


def payments_of(order_id: str) -> list[models.Payment]:
    with session_scope() as session:
        return list(session.exec(select(models.Payment).where(models.Payment.order_id == order_id)).all())
