"""A way out of a failed mobile-money payment (issue 32): ``POST /orders/{id}/payment-method/``
switches the order to cash on delivery, or to another mobile-money number or network and starts
a new charge to it."""

from __future__ import annotations

from typing import Literal

from fastapi import Request
from pydantic import BaseModel, Field

from ..models import PaymentMethod
from ..services import payments
from ..services.payments import changes
from .deps import CurrentUser, WriteSessionDep
from .openapi import declares, documents
from .orders import _placed_json, site_origin
from .response_models import OrderOut
from .routing import ApiRouter
from .schemas import documented

router = ApiRouter(tags=["orders"])


class PaymentChangeIn(BaseModel):
    payment_method: Literal["cash_on_delivery", "mobile_money"]
    phone: str | None = Field(default=None, json_schema_extra=documented(
        maxLength=32, description="Mobile money: the number to charge now"))
    network: str | None = Field(default=None, json_schema_extra=documented(
        maxLength=16, description="Mobile money: mtn, telecel or airteltigo (guessed from the number when absent)"))


@router.post("/orders/{order_id:order_id}/payment-method/", **documents(OrderOut))
@declares(400, 409, 429)
def change_payment(order_id: str, body: PaymentChangeIn, request: Request, session: WriteSessionDep,
                   user: CurrentUser) -> dict:
    """After a failed (or never started) mobile-money charge: pay in cash on delivery (at pickup)
    instead, or from another number or network (a new charge starts at once). 409 ``charge_in_progress``
    while a charge waits for the shopper, ``not_payable`` when nothing is owed; 404 for others'
    orders."""
    if body.payment_method == PaymentMethod.CASH_ON_DELIVERY.value:
        order = changes.switch_to_cash(session, user, order_id)
        session.commit()
        return _placed_json(request, order)
    changes.change_payment_number(session, user, order_id, body.phone, body.network)
    session.commit()  # the new number is kept before the provider is called (begin_payment owns its own)
    return _placed_json(request, payments.begin_payment(user, order_id, site_origin=site_origin(request)))
