"""The delivery sheet (/admin/delivery-sheet): one order, or a day's home deliveries, to print."""

import reflex as rx

from ..components.admin_delivery_sheet import delivery_sheet
from ..components.ui import spinner
from ..state.account.session import SessionState
from ..state.admin.delivery_sheet import DeliverySheetState


def delivery_sheet_page() -> rx.Component:
    return rx.cond(
        SessionState.is_admin & DeliverySheetState.ready,
        rx.el.div(delivery_sheet(), class_name="min-h-screen bg-gray-50 print:bg-white"),
        rx.el.div(spinner("Checking your session..."), class_name="flex min-h-screen items-center justify-center"),
    )
