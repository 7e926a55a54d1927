"""Checkout builders: pickup stores, a cart filled and an order placed over the API, and the
order's row and history read back."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

CHECKOUT = "/api/orders/checkout/"
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


def after_deadline(order_id: str):
    return order_row(order_id).payment_due_at + timedelta(seconds=1)
