"""Returns builders for the returns and refunds tests: delivered orders, returns, the admin's steps."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from .accounts import auth_headers
from .checkout import MOMO, fill_cart, place
from .payments import minor, post_webhook
from .shop import add_address


def deliver(client, order_id: str, admin_headers, *, pickup: bool = False) -> None:
    for status in ("processing", "ready_for_pickup" if pickup else "shipped", "delivered"):
        response = client.patch(f"/api/orders/{order_id}/", json={"status": status}, headers=admin_headers)
        assert response.status_code == 200, response.text


def delivered_order(client, user, admin_headers, *lines, body: dict | None = None) -> dict:
    """Place an order of ``lines`` ((product, quantity), ...), pay it if it is mobile money, deliver it."""
    with session_scope() as session:
        has_address = session.exec(select(models.Address).where(models.Address.user_id == user.id)).first()
    if not has_address:
        add_address(user, is_default=True)
    fill_cart(client, auth_headers(user), *lines)
    order = place(client, auth_headers(user), body if body is not None else {})
    if order["payment_method"] == "mobile_money":
        paid = post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
        assert paid.json()["outcome"] == "paid", paid.text
    deliver(client, order["id"], admin_headers)
    return order


def momo_order(client, user, admin_headers, *lines, phone: str = "024 123 4567", **body) -> dict:
    """A delivered order paid by mobile money (``body``: more of the checkout's fields, e.g. coupon_code)."""
    return delivered_order(client, user, admin_headers, *lines, body={**MOMO, "phone": phone, **body})


def ask_return(client, user, order_id: str, items: list[tuple[str, int]], reason: str = "Too small", *,
               expect: int = 201) -> dict:
    body = {"items": [{"product_id": product_id, "quantity": quantity} for product_id, quantity in items],
            "reason": reason}
    response = client.post(f"/api/orders/{order_id}/returns/", json=body, headers=auth_headers(user))
    assert response.status_code == expect, response.text
    return response.json()


def step(client, admin_headers, return_id: str, name: str, *, expect: int = 200, **body) -> dict:
    response = client.post(f"/api/admin/returns/{return_id}/{name}/", json=body or None, headers=admin_headers)
    assert response.status_code == expect, response.text
    return response.json()


def returned_and_received(client, admin_headers, return_id: str) -> None:
    step(client, admin_headers, return_id, "approve")
    step(client, admin_headers, return_id, "receive")


def return_row(return_id: str) -> models.ReturnRequest:
    with session_scope() as session:
        return session.get(models.ReturnRequest, return_id)


def delivered_days_ago(order_id: str, days: float) -> None:
    with session_scope() as session:
        order = session.get(models.Order, order_id)
        order.delivered_at = order.delivered_at - timedelta(days=days)
        session.add(order)


def messages_of(kind: str, order_id: str) -> list[models.OutboxMessage]:
    with session_scope() as session:
        return list(session.exec(select(models.OutboxMessage).where(
            models.OutboxMessage.kind == kind, models.OutboxMessage.subject_id == order_id)).all())


def audit_actions(target_id: str) -> list[models.AuditEvent]:
    with session_scope() as session:
        return list(session.exec(select(models.AuditEvent).where(models.AuditEvent.target_id == target_id)
                                 .order_by(models.AuditEvent.created_at)).all())
