"""Returns of a delivered order (issue 33): ``POST/GET /orders/{id}/returns/`` for its owner, and a
refunded return's credit note: ``GET /returns/{id}/credit-note/`` (JSON) and ``.../credit-note.pdf``.

Refusals are 400s with a code (``not_delivered``, ``return_window_closed``, ``quantity``,
``no_items``, ``items_invalid``, ``unknown_product``, ``duplicate_line``, ``reason_required``);
someone else's order or return answers 404. The rules: services/returns/.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from pydantic import BaseModel, Field

from ..services import permissions, returns
from ..services.money import money_str
from ..services.receipt_pdf import credit_note_pdf
from ..services.moments import utc_text
from ..services.users import full_name
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .openapi import declares, documents, paginated
from .pagination import Page, build_page, page_request
from .receipts import PDF_RESPONSES, ReceiptLineOut, pdf_answer
from .response_models import CustomerRef, Money, TaxLineOut
from .routing import ApiRouter
from .schemas import UUID_STRING, documented

router = ApiRouter(tags=["orders"])


RETURN_ITEM = {"type": "object", "required": ["quantity"],
               "description": "A product of the order by its product_id, or a line of the order by its item_id "
                              "(the order's items[].id: a line whose product has been deleted since)",
               "properties": {"product_id": UUID_STRING, "item_id": UUID_STRING,
                              "quantity": {"type": "integer", "minimum": 1}}}


class ReturnIn(BaseModel):
    items: Any = Field(default=None, json_schema_extra=documented(
        type="array", minItems=1, maxItems=200, items=RETURN_ITEM,
        description="Each product of the order at most once, with a quantity up to what was delivered less "
                    "what its other returns take back"))
    reason: Any = Field(default=None, json_schema_extra=documented(type="string", minLength=1, maxLength=500))


class ReturnLineOut(BaseModel):
    product_id: str | None
    name: str
    quantity: int
    unit_price: Money
    amount: Money = Field(description="unit_price × quantity")


class ReturnOut(BaseModel):
    id: str
    order: str = Field(description="The order's id")
    status: str = Field(description="requested, approved, rejected, received, refunded or withdrawn (by its customer)")
    status_label: str
    reason: str
    admin_note: str = Field(description="Why it was not approved (rejected returns)")
    items: list[ReturnLineOut]
    refund_amount: Money = Field(description="What the refund pays back: the items less their coupon share, plus "
                                 "their tax, plus shipping when the whole order has come back. Estimated until "
                                 "refunded")
    refund_discount: Money
    refund_tax: Money
    refund_shipping: Money
    refund_method: str | None = Field(description="mobile_money or cash: the way the order was paid, or cash when an "
                                                  "admin paid a failed mobile-money refund in cash")
    refund_state: str = Field(description="'' , sending, pending (the provider queued it: no credit note until it "
                              "confirms), failed (the provider refused: see refund_provider_status) or done")
    refund_provider_status: str
    credit_note_number: str | None = Field(description="CN-{year}-{6-digit sequence}, once refunded")
    received_at: str | None
    refunded_at: str | None
    refunded_by: str = Field(description="Admins only: who refunded it (an admin's email); blank for the customer")
    created_at: str
    updated_at: str
    customer: CustomerRef | None = None


class ReturnPage(Page[ReturnOut]):
    pass


ORDER_RETURNS_PAGE_SIZE = 20


def return_json(view: returns.ReturnView, *, staff: bool = False) -> dict[str, Any]:
    """A return as the API shows it; ``staff`` (the back office's endpoints): with who refunded it."""
    ret = view.ret
    data = {
        "id": ret.id, "order": ret.order_id, "status": ret.status,
        "status_label": returns.STATUS_LABELS.get(ret.status, ret.status), "reason": ret.reason,
        "admin_note": ret.admin_note,
        "items": [{"product_id": line.product_id, "name": line.name, "quantity": line.quantity,
                   "unit_price": money_str(line.unit_price), "amount": money_str(line.amount)} for line in view.lines],
        "refund_amount": money_str(ret.refund_amount), "refund_discount": money_str(ret.refund_discount),
        "refund_tax": money_str(ret.refund_tax), "refund_shipping": money_str(ret.refund_shipping),
        "refund_method": ret.refund_method, "refund_state": ret.refund_state,
        "refund_provider_status": ret.refund_provider_status, "credit_note_number": ret.credit_note_number,
        "received_at": utc_text(ret.received_at), "refunded_at": utc_text(ret.refunded_at),
        "refunded_by": ret.refunded_by_label if staff else "", "created_at": utc_text(ret.created_at), "updated_at": utc_text(ret.updated_at),
    }
    if view.customer is not None:
        customer = view.customer
        name = full_name(customer) or customer.email
        data["customer"] = {"id": customer.id, "email": customer.email, "name": name}
    return data


@router.post("/orders/{order_id:order_id}/returns/", status_code=201,
             **documents(ReturnOut, 201, "The return, requested"))
def request_return(order_id: str, body: ReturnIn, session: WriteSessionDep, user: CurrentUser) -> dict:
    """Ask to return items of a delivered order, within DD_RETURN_DAYS of delivery."""
    return return_json(returns.request_return(session, user, order_id, body.items, body.reason))


@router.get("/orders/{order_id:order_id}/returns/", **documents(ReturnPage))
@paginated
def list_returns(order_id: str, request: Request, session: SessionDep, user: CurrentUser) -> dict:
    """The order's returns, newest first, as every list: a page (``page``, ``page_size``)."""
    page = page_request(request, default_size=ORDER_RETURNS_PAGE_SIZE)
    views = returns.order_returns(session, user, order_id)
    chunk = views[page.offset : page.offset + page.page_size]
    return build_page(request, page, len(views), [return_json(view) for view in chunk])


@router.post("/returns/{return_id}/withdraw/", **documents(ReturnOut))
@declares(409)
def withdraw_return(return_id: str, session: WriteSessionDep, user: CurrentUser) -> dict:
    """Take back one's own return request before its items came back (requested or approved);
    409 ``return_status`` after, 404 for anyone else's return."""
    return return_json(returns.withdraw(session, user, return_id))


class CreditNoteOut(BaseModel):
    number: str = Field(description="CN-{year}-{6-digit sequence}: gap-free, never reused")
    issued_at: str = Field(description="When the refund was made (UTC, ISO 8601)")
    return_: str = Field(alias="return", description="The return's id")
    order: str
    receipt_number: str | None = Field(description="The order's receipt, which this credit note corrects")
    seller: dict[str, str]
    buyer: dict[str, Any]
    lines: list[ReceiptLineOut]
    goods: Money
    discount: Money = Field(description="The coupon's share of the items, taken off")
    shipping: Money
    tax: Money
    tax_lines: list[TaxLineOut]
    total: Money = Field(description="What was refunded")
    currency: str
    refund: dict[str, Any] = Field(description="method, reference, provider_status, by, test")


@router.get("/returns/{return_id}/credit-note/", **documents(CreditNoteOut))
@declares(409)
def credit_note(return_id: str, session: SessionDep, user: CurrentUser) -> dict:
    """A refunded return's credit note (409 ``not_refunded`` before the refund)."""
    return returns.return_credit_note(session, user, return_id).as_json(staff=permissions.is_admin(user))


@router.get("/returns/{return_id}/credit-note.pdf", response_class=Response, responses=PDF_RESPONSES)
@declares(409)
def credit_note_pdf_file(return_id: str, session: SessionDep, user: CurrentUser) -> Response:
    """A refunded return's credit note as a PDF (409 ``not_refunded`` before the refund)."""
    note = returns.return_credit_note(session, user, return_id)
    return pdf_answer(credit_note_pdf(note), f"credit-note-{note.number}.pdf")
