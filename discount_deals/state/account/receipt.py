"""An order's printable receipt (/orders/{id}/receipt): what services.receipts gives, as the page
shows it, with "Print" (the browser's print dialog) and "Download PDF" (services.receipt_pdf).

The owner's page: an admin reads other people's orders in /admin only, as on the order page.
An order whose money is not in yet has no receipt: the page says so (``not_paid``)."""

from __future__ import annotations

import dataclasses

import reflex as rx

from ... import routes
from ...db import session_scope
from ...display import ghana_time, money_text
from ...models import DeliveryMethod, User
from ...services import NotFound, ServiceError
from ...services import receipts as receipt_service
from ...services.order_rules import is_test_payment
from ...services.receipt_pdf import receipt_pdf
from ...settings import get_settings
from ..actions import load_list, toast
from ..guards import user_event
from .order_views import OrderLineView, OrderTotals, address_text, order_totals, payment_method_text, store_text
from .session import per_user

PRINT = rx.call_script("window.print()")


@dataclasses.dataclass
class ReceiptView:
    """A receipt as the page shows it: already formatted."""

    number: str = ""
    issued_text: str = ""
    short_id: str = ""
    seller_name: str = ""
    seller_address: str = ""
    seller_tin: str = ""
    buyer_name: str = ""
    buyer_email: str = ""
    buyer_phone: str = ""
    where_label: str = ""  # "Delivered to" | "Collected at"
    where_text: str = ""
    lines: list[OrderLineView] = dataclasses.field(default_factory=list)
    totals: OrderTotals = dataclasses.field(default_factory=OrderTotals)
    payment_text: str = ""
    test_payment: bool = False


def receipt_view(receipt: receipt_service.Receipt) -> ReceiptView:
    order, seller = receipt.order, get_settings().receipts
    pickup = order.delivery_method == DeliveryMethod.PICKUP
    return ReceiptView(
        number=receipt.number,
        issued_text=ghana_time(order.receipt_issued_at) if order.receipt_issued_at else "",
        short_id=order.id[:8],
        seller_name=seller.seller_name,
        seller_address=seller.seller_address,
        seller_tin=seller.seller_tin,
        buyer_name=receipt.buyer_name,
        buyer_email=receipt.buyer_email,
        buyer_phone=order.contact_phone or "",
        where_label="Collected at" if pickup else "Delivered to",
        where_text=(", ".join(part for part in ((order.pickup_store or {}).get("name", ""), store_text(order.pickup_store))
                              if part) if pickup else address_text(order.address)),
        lines=[OrderLineView(line.name, line.quantity, money_text(line.unit_price), money_text(line.total))
               for line in receipt.lines],
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


@per_user
class ReceiptState(rx.State):
    order_id: str = ""
    receipt: ReceiptView = ReceiptView()
    not_paid: bool = False  # the order exists but its money is not in yet
    loading: bool = True
    failed: bool = False

    def _forget(self) -> None:
        self.order_id = ""
        self.receipt = ReceiptView()
        self.not_paid = False
        self.loading = True
        self.failed = False

    def _requested_id(self) -> str:
        parts = (self.router.url.path or "").strip("/").split("/")
        return parts[1][:64] if len(parts) == 3 and "/" + parts[0] == routes.ORDERS else ""

    def _fill(self, user: User) -> None:
        try:
            self.receipt = receipt_view(read_receipt(user, self.order_id))
        except ServiceError as exc:
            self.not_paid = exc.code == receipt_service.NOT_PAID
            if not self.not_paid:
                raise

    @user_event
    def load(self, user: User):
        self._forget()
        self.order_id = self._requested_id()
        return load_list(self, lambda: self._fill(user), f"receipt of order {self.order_id}")

    @user_event
    def print_receipt(self, user: User):
        return PRINT

    @user_event
    def download_pdf(self, user: User):
        """The receipt's PDF, made for this user now (no link with a token to leak)."""
        try:
            receipt = read_receipt(user, self.order_id)
        except ServiceError:
            return toast(("This receipt cannot be downloaded.", None, "error"))
        return rx.download(data=receipt_pdf(receipt), filename=f"receipt-{receipt.number}.pdf")
