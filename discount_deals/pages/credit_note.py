"""A refunded return's credit note (/returns/{returnId}/credit-note): printable like the receipt
(components/printable.py). Guests are sent to /login; a return that is not the shopper's (nor
an admin's to see) shows the not-found page."""

import reflex as rx

from ..components.printable import not_yet, printable_page
from ..state.account.credit_note import CreditNoteState
from .not_found import not_found_content

C = CreditNoteState


def credit_note_page() -> rx.Component:
    return printable_page(
        C, C.note, what="credit note", totals_label="Credit note total", missing=C.not_refunded,
        instead=not_yet("No credit note yet", "A return gets its credit note when its refund is made.", C),
        gone=C.not_found, gone_face=not_found_content(),
    )
