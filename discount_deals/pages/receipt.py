"""An order's receipt (/orders/{orderId}/receipt): printable (the controls disappear on paper),
with "Print" and "Download PDF". Guests are sent to /login. Its layout is the credit note's
(components/printable.py)."""

import reflex as rx

from ..components.printable import not_yet, printable_page
from ..state.account.receipt import ReceiptState

R = ReceiptState


def order_receipt() -> rx.Component:
    return printable_page(
        R, R.receipt, what="receipt", totals_label="Receipt total", missing=R.not_paid,
        instead=not_yet("No receipt yet", "This order gets its receipt when we receive your money.", R),
    )
