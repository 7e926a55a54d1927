"""Orders: checkout, explicit orders, list, detail, admin status changes (CLIENT-CONTRACT §5)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Header, Request
from pydantic import BaseModel

from ..db import session_scope
from ..models import Order
from ..services import orders as order_service
from ..services.pricing import money_str
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .pagination import build_page, page_request
from .routing import ApiRouter
from .schemas import absolute_url

router = ApiRouter(tags=["orders"])

ORDERS_PAGE_SIZE = 100

IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key")]


class CheckoutIn(BaseModel):
    coupon_code: str | None = None


class OrderItemsIn(BaseModel):
    items: list[Any]


class OrderIn(BaseModel):
    order: OrderItemsIn
    coupon_code: str | None = None


class StatusIn(BaseModel):
    status: str


def _line_json(request: Request, line: order_service.OrderLine) -> dict:
    item, product = line
    product_ref = None
    if product is not None:
        product_ref = {
            "id": product.id,
            "name": product.name,
            "image_url": absolute_url(request, product.image_url) if product.image_url else "",
            "price": money_str(product.price),
            "discount_price": money_str(product.discount_price),
        }
    return {
        "id": item.id,
        "product": product_ref,
        "name": item.name,
        "quantity": item.quantity,
        "price": money_str(item.unit_price),
        "total": money_str(item.line_total),
    }


def order_json(request: Request, order: Order, lines: list[order_service.OrderLine]) -> dict:
    return {
        "id": order.id,
        "user": order.user_id,
        "status": order.status,
        "items": [_line_json(request, line) for line in lines],
        "item_count": order.item_count,
        "subtotal": money_str(order.subtotal),
        "discount": money_str(order.discount),
        "shipping": money_str(order.shipping),
        "tax": money_str(order.tax),
        "total": money_str(order.total),
        "amount": money_str(order.total),
        "savings": money_str(order.savings),
        "coupon": order.coupon_code,
        "address": order.address,
        "created_at": order.created_at.isoformat(),
        "updated_at": order.updated_at.isoformat(),
    }


def _placed_json(request: Request, order: Order) -> dict:
    # A fresh session: the order was committed by the service's own transaction.
    with session_scope() as session:
        return order_json(request, order, order_service.order_items(session, order))


@router.post("/orders/checkout/", status_code=201)
def checkout(
    request: Request,
    user: CurrentUser,
    idempotency_key: IdempotencyKey = None,
    body: Annotated[CheckoutIn | None, Body()] = None,
) -> dict:
    order = order_service.checkout(
        user, coupon_code=body.coupon_code if body else None, idempotency_key=idempotency_key
    )
    return _placed_json(request, order)


@router.post("/orders/", status_code=201)
def create_order(body: OrderIn, request: Request, user: CurrentUser, idempotency_key: IdempotencyKey = None) -> dict:
    order = order_service.create_order(
        user, body.order.items, coupon_code=body.coupon_code, idempotency_key=idempotency_key
    )
    return _placed_json(request, order)


@router.get("/orders/")
def list_orders(request: Request, session: SessionDep, user: CurrentUser) -> dict:
    page = page_request(request, default_size=ORDERS_PAGE_SIZE)
    orders, count = order_service.list_orders(session, user, page.offset, page.page_size)
    lines = order_service.items_for_orders(session, orders)
    return build_page(request, page, count, [order_json(request, order, lines[order.id]) for order in orders])


@router.get("/orders/{order_id}/")
def get_order(order_id: str, request: Request, session: SessionDep, user: CurrentUser) -> dict:
    order = order_service.get_order(session, user, order_id)
    return order_json(request, order, order_service.order_items(session, order))


@router.patch("/orders/{order_id}/")
def update_order_status(
    order_id: str, body: StatusIn, request: Request, session: WriteSessionDep, user: CurrentUser
) -> dict:
    order = order_service.update_status(session, user, order_id, body.status)
    return order_json(request, order, order_service.order_items(session, order))
