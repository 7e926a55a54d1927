"""Orders: checkout, explicit orders, list, detail, cancel, pay again, admin status changes
(CLIENT-CONTRACT §5).

``POST /orders/checkout/`` with ``{}`` still places a home-delivery, cash-on-delivery order to
the default address; the other choices (address, pickup store, mobile money) are optional keys.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from fastapi import Body, Header, Request
from pydantic import BaseModel, Field
from sqlmodel import Session

from ..db import session_scope
from ..models import Order
from ..services import ValidationFailed, payments
from ..services.orders import status as lifecycle
from ..services import orders as order_service
from ..services.checkout import DELIVERY_METHODS, PAYMENT_METHODS, CheckoutChoice
from ..services.phones import NETWORKS, display_phone
from ..services.orders.seen import SeenOrder
from ..services.orders.rules import allowed_statuses, can_cancel, is_payable, is_test_payment
from ..services.pricing import product_price
from ..services.money import money_str
from ..services.returns import returns_close_at, returns_open
from ..services.taxes import stored_tax_lines
from ..config.settings import get_settings
from ..services.moments import utc_text
from .deps import AdminUser, CurrentUser, SessionDep, WriteSessionDep
from .openapi import declares, documents, paginated
from .pagination import build_page, page_request
from .response_models import OrderOut, OrderPage
from .routing import ApiRouter
from .schemas import absolute_url, documented

router = ApiRouter(tags=["orders"])

ORDERS_PAGE_SIZE = 100

IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key")]


AMOUNT_TEXT = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")
MAX_AMOUNT_TEXT = 16  # more digits than any order's total may have


class CheckoutIn(BaseModel):
    coupon_code: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], maxLength=64))
    address_id: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], format="uuid"))
    delivery_method: str | None = Field(
        None, json_schema_extra=documented(enum=[*DELIVERY_METHODS, None], description="delivery (default) or pickup")
    )
    payment_method: str | None = Field(
        None, json_schema_extra=documented(enum=[*PAYMENT_METHODS, None], description="cash_on_delivery (default)")
    )
    phone: str | None = Field(
        None, json_schema_extra=documented(type=["string", "null"], maxLength=32, description="Mobile money number")
    )
    payment_network: str | None = Field(
        None, json_schema_extra=documented(enum=[*NETWORKS, None], description="Guessed from the number when left out")
    )
    network: str | None = Field(None, json_schema_extra=documented(enum=[*NETWORKS, None], description="payment_network's former name"))
    pickup_store: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], format="uuid"))
    contact_phone: str | None = Field(
        None, json_schema_extra=documented(
            type=["string", "null"], maxLength=32,
            description="A Ghanaian number the rider can call (default: the account's phone number)",
        ),
    )
    # The total the shopper reviewed: the order is refused (409) if it would cost anything else.
    expected_total: str | None = Field(
        None, json_schema_extra=documented(type=["string", "null"], pattern=AMOUNT_TEXT.pattern)
    )

    def choice(self) -> CheckoutChoice:
        defaults = CheckoutChoice()
        return CheckoutChoice(
            delivery_method=self.delivery_method or defaults.delivery_method,
            payment_method=self.payment_method or defaults.payment_method,
            address_id=self.address_id or None,
            pickup_store_id=self.pickup_store or None,
            phone=self.phone,
            network=self.payment_network or self.network,
            contact_phone=self.contact_phone,
        )

    def expected(self) -> Decimal | None:
        if self.expected_total in (None, ""):
            return None
        text = self.expected_total.strip()
        if len(text) > MAX_AMOUNT_TEXT or not AMOUNT_TEXT.fullmatch(text):  # the documented pattern, ASCII digits
            message = "Expected total must be an amount such as 36.77."
            raise ValidationFailed(message, fields={"expected_total": [message]})
        return Decimal(text)


class OrderItemsIn(BaseModel):
    items: list[Any]


class OrderIn(BaseModel):
    order: OrderItemsIn
    coupon_code: str | None = None


class SeenIn(BaseModel):
    """The order as the admin's page showed it: a status change is refused (409, ``code``
    ``changed``) when the order differs now (a payment came in, a flag was raised)."""

    status: str = Field(max_length=32)
    payment_status: str = Field(max_length=32)
    attention: str | None = Field(None, max_length=32)

    def seen(self) -> SeenOrder:
        return SeenOrder(self.status, self.payment_status, self.attention or None)


class StatusIn(BaseModel):
    status: str
    # Optional: the original client sends only ``status`` and is not checked against a page.
    seen: SeenIn | None = None


class OtpIn(BaseModel):
    otp: str = Field(json_schema_extra=documented(maxLength=16, description="The code or voucher from the phone"))


def _line_json(request: Request, line: order_service.OrderLine) -> dict:
    item, product = line
    product_ref = None
    if product is not None:
        product_ref = {
            "id": product.id,
            "name": product.name,
            "image_url": absolute_url(request, product.image_url) if product.image_url else "",
            "price": money_str(product.price),
            "discount_price": money_str(product_price(product).discount_price),
        }
    return {
        "id": item.id,
        "product": product_ref,
        "name": item.name,
        "quantity": item.quantity,
        "price": money_str(item.unit_price),
        "total": money_str(item.line_total),
    }


def event_json(event, *, with_actor: bool = False) -> dict:
    data = {
        "kind": event.kind,
        "from": event.from_value,
        "to": event.to_value,
        "note": event.note,
        "created_at": utc_text(event.created_at),
    }
    if with_actor:
        data["by"] = event.actor_label
        data["by_user"] = event.actor_id
    return data


def order_json(request: Request, order: Order, lines: list[order_service.OrderLine], *, history=None,
               admin: bool = False) -> dict:
    data = {
        "id": order.id,
        "user": order.user_id,
        "status": order.status,
        "items": [_line_json(request, line) for line in lines],
        "item_count": order.item_count,
        "subtotal": money_str(order.subtotal),
        "discount": money_str(order.discount),
        "shipping": money_str(order.shipping),
        "tax": money_str(order.tax),
        "tax_lines": [line.as_json() for line in stored_tax_lines(order.tax_lines, order.tax)],
        "total": money_str(order.total),
        "amount": money_str(order.total),
        "savings": money_str(order.savings),
        "coupon": order.coupon_code,
        "address": order.address,
        "delivery_method": order.delivery_method,
        "delivery_fee": money_str(order.shipping),
        "pickup_store": order.pickup_store,
        "payment_method": order.payment_method,
        "payment_status": order.payment_status,
        "payment_reference": order.payment_reference,
        "payment_network": order.payment_network,
        "payment_phone": display_phone(order.payment_phone) or None,
        "contact_phone": order.contact_phone,
        "phone": order.payment_phone,
        "payment_step": order.payment_step if is_payable(order) else None,
        "payment_prompt": order.payment_prompt,
        "payment_test": is_test_payment(order),
        "currency": get_settings().currency.code,
        # Where the shopper completes the payment, while one is awaited.
        "payment_url": absolute_url(request, order.payment_url) if order.payment_url and is_payable(order)
        else None,
        "payment_due_at": utc_text(order.payment_due_at),
        "can_cancel": can_cancel(order),
        "delivered_at": utc_text(order.delivered_at),
        "returns_open_until": utc_text(returns_close_at(order)) if returns_open(order) else None,
        "refunded_total": money_str(order.refunded_total),
        "receipt_number": order.receipt_number,
        "created_at": utc_text(order.created_at),
        "updated_at": utc_text(order.updated_at),
    }
    if admin:
        data["attention"] = order.attention
        data["attention_note"] = order.attention_note or None
        data["next_statuses"] = allowed_statuses(order)
    if history is not None:
        data["history"] = [event_json(event, with_actor=admin) for event in history]
    return data


def one_order_json(request: Request, session: Session, order: Order, *, admin: bool = False) -> dict:
    """One order's answer: its lines and its timeline (``admin``: with the back office's fields)."""
    history = lifecycle.timeline(session, order)
    return order_json(request, order, order_service.order_items(session, order), history=history, admin=admin)


def _placed_json(request: Request, order: Order) -> dict:
    # A fresh session: the order was committed by the service's own transaction.
    with session_scope() as session:
        return one_order_json(request, session, order)


def site_origin(request: Request) -> str:
    """Where the shopper's browser reached us (the payment provider sends them back there)."""
    return f"{request.url.scheme}://{request.url.netloc}"


@router.post("/orders/checkout/", status_code=201, **documents(OrderOut, 201))
@declares(404)
def checkout(
    request: Request,
    user: CurrentUser,
    idempotency_key: IdempotencyKey = None,
    body: Annotated[CheckoutIn | None, Body()] = None,
) -> dict:
    body = body or CheckoutIn()
    order = order_service.checkout(
        user,
        body.choice(),
        coupon_code=body.coupon_code,
        idempotency_key=idempotency_key,
        site_origin=site_origin(request),
        expected_total=body.expected(),
    )
    return _placed_json(request, order)


@router.post("/orders/", status_code=201, **documents(OrderOut, 201))
@declares(404)
def create_order(body: OrderIn, request: Request, user: CurrentUser, idempotency_key: IdempotencyKey = None) -> dict:
    order = order_service.create_order(
        user, body.order.items, coupon_code=body.coupon_code, idempotency_key=idempotency_key
    )
    return _placed_json(request, order)


@router.get("/orders/", **documents(OrderPage))
@paginated
def list_orders(request: Request, session: SessionDep, user: CurrentUser) -> dict:
    page = page_request(request, default_size=ORDERS_PAGE_SIZE)
    orders, count = order_service.list_orders(session, user, page.offset, page.page_size)
    lines = order_service.items_for_orders(session, orders)
    return build_page(request, page, count, [order_json(request, order, lines[order.id]) for order in orders])


@router.get("/orders/{order_id:order_id}/", **documents(OrderOut))
def get_order(order_id: str, request: Request, session: SessionDep, user: CurrentUser) -> dict:
    order = order_service.get_order(session, user, order_id)
    return one_order_json(request, session, order)


@router.patch("/orders/{order_id:order_id}/", **documents(OrderOut))
@declares(403)
def update_order_status(
    order_id: str, body: StatusIn, request: Request, session: WriteSessionDep, user: AdminUser
) -> dict:
    """Admins: move an order to one of its allowed next statuses (recorded in its history);
    with ``seen`` (the order as the admin's page showed it), 409 ``changed`` when it differs now."""
    order = order_service.update_status(session, user, order_id, body.status,
                                        body.seen.seen() if body.seen is not None else None)
    return one_order_json(request, session, order, admin=True)


@router.post("/orders/{order_id:order_id}/cancel/", **documents(OrderOut))
def cancel_order(order_id: str, request: Request, session: WriteSessionDep, user: CurrentUser) -> dict:
    """The owner cancels a pending order (stock goes back once); 409 when it can no longer be
    cancelled, 404 for anyone else's order."""
    order = lifecycle.cancel_order(session, user, order_id)
    return one_order_json(request, session, order)


@router.post("/orders/{order_id:order_id}/pay/", **documents(OrderOut))
@declares(429)
def pay_order(order_id: str, request: Request, user: CurrentUser) -> dict:
    """Start a new mobile-money charge for an unpaid order (after a decline or an abandoned
    payment); the answer's ``payment_step`` says what it waits for. 409 while the current
    charge still waits, 429 (``Retry-After``) after 3 charges in 30 minutes."""
    order = payments.begin_payment(user, order_id, site_origin=site_origin(request))
    return _placed_json(request, order)


@router.post("/orders/{order_id:order_id}/pay/otp/", **documents(OrderOut))
@declares(409)
def pay_with_code(order_id: str, body: OtpIn, request: Request, user: CurrentUser) -> dict:
    """The code (a Telecel Cash voucher) for a charge whose ``payment_step`` is ``send_otp``;
    the answer is the order as the provider's reply left it."""
    return _placed_json(request, payments.submit_otp(user, order_id, body.otp))


@router.post("/orders/{order_id:order_id}/pay/check/", **documents(OrderOut))
def check_payment(order_id: str, request: Request, user: CurrentUser) -> dict:
    """Ask the provider how the current charge stands (at most every 10 s per charge; sooner,
    the order as it stands)."""
    return _placed_json(request, payments.check_payment(user, order_id))
