"""Payment builders: a mobile-money order placed and paid, the provider's webhook signed as the
provider signs it, and payment rows."""

from __future__ import annotations

import json

from sqlmodel import select

from discount_deals import models
from discount_deals.config.settings import get_settings
from discount_deals.db import session_scope
from discount_deals.services.payments import sign

from .accounts import auth_headers
from .checkout import MOMO, fill_cart, place
from .shop import add_address

WEBHOOK = "/api/payments/webhook/"


def signed(event: str, reference: str, amount, secret: str | None = None, **data) -> tuple[bytes, dict[str, str]]:
    """A webhook body and its signature headers (``data``: more fields of the event's data, e.g. currency)."""
    raw = json.dumps({"event": event, "data": {"reference": reference, "amount": amount, **data}}).encode()
    secret = secret or get_settings().checkout.webhook_secret
    return raw, {"X-Signature": sign(raw, secret), "Content-Type": "application/json"}


def post_webhook(client, event: str, reference: str, amount, *, secret: str | None = None, headers=None, **data):
    raw, signed_headers = signed(event, reference, amount, secret, **data)
    return client.post(WEBHOOK, content=raw, headers=headers if headers is not None else signed_headers)


def post_refund_webhook(client, event: str, reference: str, refund_id, amount: int, *, secret: str | None = None):
    """A provider's signed ``refund.processed`` / ``refund.failed`` event, shaped as Paystack's."""
    raw = json.dumps({"event": event, "data": {
        "transaction_reference": reference, "id": refund_id, "amount": amount, "currency": "GHS",
        "status": event.split(".", 1)[1]}}).encode()
    headers = {"X-Signature": sign(raw, secret or get_settings().checkout.webhook_secret),
               "Content-Type": "application/json"}
    return client.post(WEBHOOK, content=raw, headers=headers)


def minor(total: str) -> int:
    """An API total ("12.50") in pesewas, as the provider reports amounts."""
    whole, cents = total.split(".")
    return int(whole) * 100 + int(cents)


def payments_of(order_id: str) -> list[models.Payment]:
    with session_scope() as session:
        return list(session.exec(select(models.Payment).where(models.Payment.order_id == order_id)).all())


def place_order(client, user, make_product, body=None, price: str = "12.00", quantity: int = 2) -> dict:
    with session_scope() as session:
        has_address = session.exec(select(models.Address).where(models.Address.user_id == user.id)).first()
    if not has_address:
        add_address(user, is_default=True)
    fill_cart(client, auth_headers(user), (make_product(price=price, stock=50), quantity))
    return place(client, auth_headers(user), body if body is not None else MOMO)


def pay(client, order: dict) -> None:
    response = post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert response.status_code == 200 and response.json()["outcome"] == "paid", response.text


def declined_and_started_again(client, user, product, quantity: int = 1) -> tuple[dict, str, str]:
    """A mobile-money order whose first charge was declined and started again: (the order as
    placed, the first charge's reference, the second's)."""
    add_address(user, is_default=True)
    fill_cart(client, auth_headers(user), (product, quantity))
    order = place(client, auth_headers(user), MOMO)
    first = order["payment_reference"]
    post_webhook(client, "charge.failed", first, minor(order["total"]))
    again = client.post(f"/api/orders/{order['id']}/pay/", json={}, headers=auth_headers(user))
    assert again.status_code == 200, again.text
    return order, first, again.json()["payment_reference"]


def paid_by_a_second_charge(client, user, product, quantity: int = 1) -> tuple[dict, str]:
    """A pending mobile-money order whose first charge failed and whose second was paid: (the
    order as placed, the first charge's reference, which may still come through late)."""
    order, first, second = declined_and_started_again(client, user, product, quantity)
    post_webhook(client, "charge.success", second, minor(order["total"]))
    return order, first


def paid_by_the_first_after_a_second(client, user, product, quantity: int = 1) -> tuple[dict, str, str]:
    """A mobile-money order whose first charge was declined and started again, after which the
    first came through after all and paid the order: (the order as placed, the charge that paid
    it, the second one, still waiting: approved too, it is paid twice and owed back)."""
    order, first, second = declined_and_started_again(client, user, product, quantity)
    assert post_webhook(client, "charge.success", first, minor(order["total"])).json()["outcome"] == "paid"
    return order, first, second
