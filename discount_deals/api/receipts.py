"""An order's receipt (issue 33): ``GET /api/orders/{id}/receipt/`` (JSON) and ``.../receipt.pdf``.

The owner and admins only (anyone else: 404, as a missing order); before the money is in: 409
``{"detail": ..., "code": "not_paid"}``. Numbering and contents: services/receipts.py.
"""

from __future__ import annotations

from typing import Any

from fastapi import Response
from pydantic import BaseModel, Field

from ..services import receipts
from ..services.receipt_pdf import receipt_pdf
from .deps import CurrentUser, SessionDep
from .openapi import declares, documents
from .response_models import Money, TaxLineOut
from .routing import ApiRouter

router = ApiRouter(tags=["orders"])


class ReceiptLineOut(BaseModel):
    name: str
    quantity: int
    unit_price: Money
    total: Money


class ReceiptOut(BaseModel):
    number: str = Field(description="{DD_RECEIPT_PREFIX}-{year}-{6-digit sequence}: gap-free, never reused")
    issued_at: str = Field(description="When the money was received (UTC, ISO 8601)")
    order: str = Field(description="The order's id")
    seller: dict[str, str] = Field(description="name, address, tin (DD_SELLER_NAME, DD_SELLER_ADDRESS, DD_SELLER_TIN)")
    buyer: dict[str, Any] = Field(description="name, email, phone, and the address or pickup store as at the order")
    lines: list[ReceiptLineOut]
    subtotal: Money
    discount: Money
    shipping: Money
    tax: Money
    tax_lines: list[TaxLineOut]
    total: Money
    currency: str = Field(description="ISO 4217 code of every amount")
    payment: dict[str, Any] = Field(description="method, network, reference, test (a fake provider's: no money moved)")


PDF_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
          "description": "The receipt as a one-page PDF"},
}


def pdf_answer(document: bytes, filename: str) -> Response:
    """A receipt's or credit note's PDF, shown in the browser and kept by no cache (it names the buyer)."""
    return Response(document, media_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{filename}"', "Cache-Control": "private, no-store"})


@router.get("/orders/{order_id:order_id}/receipt/", **documents(ReceiptOut))
@declares(409)
def order_receipt(order_id: str, session: SessionDep, user: CurrentUser) -> dict:
    """The order's receipt (409 ``not_paid`` before the money is received)."""
    return receipts.order_receipt(session, user, order_id).as_json()


@router.get("/orders/{order_id:order_id}/receipt.pdf", response_class=Response, responses=PDF_RESPONSES)
@declares(409)
def order_receipt_pdf(order_id: str, session: SessionDep, user: CurrentUser) -> Response:
    """The order's receipt as a PDF (409 ``not_paid`` before the money is received)."""
    receipt = receipts.order_receipt(session, user, order_id)
    return pdf_answer(receipt_pdf(receipt), f"receipt-{receipt.number}.pdf")
