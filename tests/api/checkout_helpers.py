"""Helpers for the checkout, payment and order-lifecycle tests."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services.payments import sign
from discount_deals.config.settings import get_settings

CHECKOUT = "/api/orders/checkout/"
WEBHOOK = "/api/payments/webhook/"
MOMO = {"payment_method": "mobile_money", "phone": "024 123 4567", "network": "mtn"}


def add_store(name: str = "Shoprite Accra Mall", *, is_active: bool = True, **fields) -> models.PickupStore:
    values = {"retailer": "shoprite", "address": "Accra Mall, Spintex Road", "city": "Accra",
              "opening_hours": "Mon-Sat 9:00-21:00", **fields}
    with session_scope() as session:
        store = models.PickupStore(name=name, is_active=is_active, **values)
        session.add(store)
    return store


def fill_cart(client, headers, *lines) -> None:
    for product, quantity in lines:
        response = client.post("/api/cart/cartitems/", json={"product": product.id, "quantity": quantity},
                               headers=headers)
        assert response.status_code == 201, response.text


def place(client, headers, body: dict | None = None, *, expect: int = 201, **kwargs) -> dict:
    response = client.post(CHECKOUT, json=body if body is not None else {}, headers=headers, **kwargs)
    assert response.status_code == expect, response.text
    return response.json()


def order_row(order_id: str) -> models.Order:
    with session_scope() as session:
        return session.get(models.Order, order_id)


def events(order_id: str, kind: str | None = None) -> list[models.OrderEvent]:
    with session_scope() as session:
        query = select(models.OrderEvent).where(models.OrderEvent.order_id == order_id)
        if kind:
            query = query.where(models.OrderEvent.kind == kind)
        return list(session.exec(query.order_by(models.OrderEvent.created_at, models.OrderEvent.id)).all())


def payments_of(order_id: str) -> list[models.Payment]:
    with session_scope() as session:
        return list(session.exec(select(models.Payment).where(models.Payment.order_id == order_id)).all())


def signed(event: str, reference: str, amount, secret: str | None = None) -> tuple[bytes, dict[str, str]]:
    raw = json.dumps({"event": event, "data": {"reference": reference, "amount": amount}}).encode()
    secret = secret or get_settings().checkout.webhook_secret
    return raw, {"X-Signature": sign(raw, secret), "Content-Type": "application/json"}


def post_webhook(client, event: str, reference: str, amount, *, secret: str | None = None, headers=None):
    raw, signed_headers = signed(event, reference, amount, secret)
    return client.post(WEBHOOK, content=raw, headers=headers if headers is not None else signed_headers)


def minor(total: str) -> int:
    whole, cents = total.split(".")
    return int(whole) * 100 + int(cents)


def after_deadline(order_id: str):
    return order_row(order_id).payment_due_at + timedelta(seconds=1)
