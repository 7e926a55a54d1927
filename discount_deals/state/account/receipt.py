"""An order's printable receipt (/orders/{id}/receipt): what services.receipts gives, as the page
shows it, with "Print" (the browser's print dialog) and "Download PDF" (services.receipt_pdf).

The owner's page: an admin reads other people's orders in /admin only, as on the order page.
An order whose money is not in yet has no receipt: the page says so (``not_paid``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime
from typing import Any, ClassVar

import reflex as rx

from ...db import session_scope
from ...display import ghana_time, money_text
from ...models import DeliveryMethod, Order, User
from ...services import NotFound, ServiceError
from ...services import receipts as receipt_service
from ...services.orders.rules import is_test_payment
from ...services.receipt_pdf import receipt_pdf
from ...config.settings import get_settings
from ..actions import load_list, toast
from ..guards import user_event
from ..order_views import OrderLineView, OrderTotals, address_text, order_totals, payment_method_text, store_text
from .session import per_user

PRINT = rx.call_script("window.print()")  # every printable page's "Print" (receipt, credit note, delivery sheet)


@dataclasses.dataclass
class ReceiptView:
    """A receipt (or a credit note: components/printable.py) as the page shows it: already formatted."""

    title: str = "Receipt"
    number: str = ""
    issued_text: str = ""
    short_id: str = ""
    reference_text: str = ""  # a credit note: the receipt it corrects
    seller_name: str = ""
    seller_address: str = ""
    seller_tin: str = ""
    buyer_name: str = ""
    buyer_email: str = ""
    buyer_phone: str = ""
    where_label: str = ""  # "Delivery address" | "Pickup store" (a receipt may come before either)
    where_text: str = ""
    lines: list[OrderLineView] = dataclasses.field(default_factory=list)
    totals: OrderTotals = dataclasses.field(default_factory=OrderTotals)
    payment_label: str = "Paid"
    payment_text: str = ""
    test_payment: bool = False


def document_parts(number: str, issued_at: datetime | None, order: Order, buyer_name: str, buyer_email: str,
                   lines: Iterable[Any]) -> dict[str, Any]:
    """What a receipt and a credit note both show, filled the same way: the number and when it
    was issued, the order, the seller (the settings), the buyer and the lines."""
    seller = get_settings().receipts
    return dict(
        number=number,
        issued_text=ghana_time(issued_at) if issued_at else "",
        short_id=order.id[:8],
        seller_name=seller.seller_name,
        seller_address=seller.seller_address,
        seller_tin=seller.seller_tin,
        buyer_name=buyer_name,
        buyer_email=buyer_email,
        buyer_phone=order.contact_phone or "",
        lines=[OrderLineView(line.name, line.quantity, money_text(line.unit_price), money_text(line.total))
               for line in lines],
    )


def receipt_view(receipt: receipt_service.Receipt) -> ReceiptView:
    order = receipt.order
    pickup = order.delivery_method == DeliveryMethod.PICKUP
    return ReceiptView(
        **document_parts(receipt.number, order.receipt_issued_at, order, receipt.buyer_name, receipt.buyer_email,
                         receipt.lines),
        where_label="Pickup store" if pickup else "Delivery address",
        where_text=(", ".join(part for part in ((order.pickup_store or {}).get("name", ""), store_text(order.pickup_store))
                              if part) if pickup else address_text(order.address)),
        totals=order_totals(order),
        payment_text=payment_method_text(order),
        test_payment=is_test_payment(order),
    )


def read_receipt(user: User, order_id: str) -> receipt_service.Receipt:
    """The receipt of the user's own order (404 for anyone else's; 409 ``not_paid`` before the money)."""
    with session_scope() as session:
        receipt = receipt_service.order_receipt(session, user, order_id)
        if receipt.order.user_id != user.id:
            raise NotFound("Order not found.")
        return receipt


class PrintableState(rx.State, mixin=True):
    """What a printable document's page does (the receipt's, a credit note's): load the document
    its address names, "Print", and "Download PDF" made for this user now (no link with a token to
    leak). Each page says where its id stands in its address and how its PDF is made."""

    PATH: ClassVar[tuple[str, str]] = ("", "")  # /{PATH[0]}/{id}/{PATH[1]}
    CANNOT_DOWNLOAD: ClassVar[str] = "This document cannot be downloaded."
    order_id: str = ""  # "Back to order"
    loading: bool = True
    failed: bool = False

    def _requested_id(self) -> str:
        parts = (self.router.url.path or "").strip("/").split("/")
        return parts[1][:64] if len(parts) == 3 and (parts[0], parts[2]) == self.PATH else ""

    def _forget(self) -> None:
        raise NotImplementedError

    def _fill(self, user: User) -> None:
        """Show the document (or say why there is none) for the id the address names."""
        raise NotImplementedError

    def _pdf(self, user: User) -> tuple[bytes, str]:
        """The document's PDF and its file name (a service refusal when it cannot be had)."""
        raise NotImplementedError

    def _take_id(self, document_id: str) -> None:
        raise NotImplementedError

    @user_event
    def load(self, user: User):
        self._forget()
        document_id = self._requested_id()
        self._take_id(document_id)
        return load_list(self, lambda: self._fill(user), f"{self.PATH[1]} {document_id}")

    @user_event
    def print_document(self, user: User):
        return PRINT

    @user_event
    def download_pdf(self, user: User):
        try:
            data, filename = self._pdf(user)
        except ServiceError:
            return toast((self.CANNOT_DOWNLOAD, None, "error"))
        return rx.download(data=data, filename=filename)


@per_user
class ReceiptState(PrintableState, rx.State):
    PATH: ClassVar[tuple[str, str]] = ("orders", "receipt")
    CANNOT_DOWNLOAD: ClassVar[str] = "This receipt cannot be downloaded."
    receipt: ReceiptView = ReceiptView()
    not_paid: bool = False  # the order exists but its money is not in yet

    def _forget(self) -> None:
        self.order_id = ""
        self.receipt = ReceiptView()
        self.not_paid = False
        self.loading = True
        self.failed = False

    def _take_id(self, document_id: str) -> None:
        self.order_id = document_id

    def _fill(self, user: User) -> None:
        try:
            self.receipt = receipt_view(read_receipt(user, self.order_id))
        except ServiceError as exc:
            self.not_paid = exc.code == receipt_service.NOT_PAID
            if not self.not_paid:
                raise

    def _pdf(self, user: User) -> tuple[bytes, str]:
        receipt = read_receipt(user, self.order_id)
        return receipt_pdf(receipt), f"receipt-{receipt.number}.pdf"
