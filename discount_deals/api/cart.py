"""Cart of the logged-in user: items and clear (CLIENT-CONTRACT §4)."""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from pydantic import BaseModel, Field

from ..services import cart as cart_service
from ..services.money import money_str
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .pagination import build_page, page_request
from .openapi import declares, documents, paginated
from .response_models import CartLineOut, CartPage
from .routing import ApiRouter
from .schemas import UUID_STRING, documented, product_json

router = ApiRouter(tags=["cart"])

CART_PAGE_SIZE = cart_service.MAX_LINES  # 100 (issue 3): the whole cart on the page the original client reads


QUANTITY = {"type": "integer", "minimum": 1, "maximum": 1000}


class CartItemIn(BaseModel):
    product: str = Field(json_schema_extra=documented(**UUID_STRING))
    # Validated by the service so that the API and the UI give the same messages.
    quantity: Any = Field(1, json_schema_extra=documented(**QUANTITY, default=1))


class CartItemUpdate(BaseModel):
    product: str | None = Field(None, json_schema_extra=documented(**UUID_STRING, description="Ignored"))
    quantity: Any = Field(json_schema_extra=documented(type="integer", minimum=0, maximum=1000,
                                                       description="0 removes the line"))


def _line_json(request: Request, line: cart_service.CartLine) -> dict:
    return {
        "id": line.id,
        "cart": line.cart_id,
        "product": product_json(request, line.product, line.category),
        "quantity": line.quantity,
        "price": money_str(line.unit_price),
    }


@router.get("/cart/cartitems/", **documents(CartPage))
@paginated
def list_cart_items(request: Request, session: SessionDep, user: CurrentUser) -> dict:
    page = page_request(request, default_size=CART_PAGE_SIZE)
    lines = cart_service.cart_lines(session, user)
    chunk = lines[page.offset : page.offset + page.page_size]
    return build_page(request, page, len(lines), [_line_json(request, line) for line in chunk])


@router.post("/cart/cartitems/", status_code=201, **documents(CartLineOut, 201))
@declares(404)
def add_cart_item(body: CartItemIn, request: Request, session: WriteSessionDep, user: CurrentUser) -> dict:
    item = cart_service.add_item(session, user, body.product, body.quantity)
    return _line_json(request, cart_service.cart_line(session, user, item.id))


@router.patch(
    "/cart/cartitems/{item_id}/",
    response_model=None,
    responses={200: {"model": CartLineOut}, 204: {"description": "Quantity 0: the line was removed"}},
)
def update_cart_item(
    item_id: str, body: CartItemUpdate, request: Request, session: WriteSessionDep, user: CurrentUser
) -> dict | Response:
    item = cart_service.set_quantity(session, user, item_id, body.quantity)
    if item is None:
        return Response(status_code=204)
    return _line_json(request, cart_service.cart_line(session, user, item.id))


@router.delete("/cart/cartitems/{item_id}/", status_code=204)
def delete_cart_item(item_id: str, session: WriteSessionDep, user: CurrentUser) -> Response:
    cart_service.remove_item(session, user, item_id)
    return Response(status_code=204)


@router.delete("/cart/{cart_id}/clear/", status_code=204)
@router.post("/cart/{cart_id}/clear/", status_code=204)
def clear_cart(cart_id: str, session: WriteSessionDep, user: CurrentUser) -> Response:
    cart_service.clear_cart(session, user, cart_id)
    return Response(status_code=204)
