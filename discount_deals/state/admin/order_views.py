"""How the back office shows orders: the filters' choices, a row of the list, one order's page
(the customer, delivery, payment, the flag, the next statuses the rules allow)."""

from __future__ import annotations

import dataclasses
from datetime import date

from ...display import money_text
from ...models import Attention, DeliveryMethod, Order, OrderStatus, PaymentStatus, User
from ...services.orders import status as lifecycle
from ...services.orders.rules import allowed_statuses, is_test_payment
from ...services.returns import refunds_by_credit_note
from ...services.phones import display_phone, tel_href
from ...services.users import full_name
from ..order_views import DATE_TIME, address_text, is_pickup, payment_badge, payment_method_text, store_text

ALL = "all"
STATUS_FILTERS = [(ALL, "All statuses")] + [
    (s.value, lifecycle.STATUS_LABELS[s.value]) for s in OrderStatus if s != OrderStatus.COMPLETED
]
PAYMENT_FILTERS = [(ALL, "All payments")] + [(s.value, lifecycle.PAYMENT_LABELS[s.value]) for s in PaymentStatus]
DELIVERY_FILTERS = [(ALL, "Delivery and pickup"), (DeliveryMethod.DELIVERY.value, "Home delivery"),
                    (DeliveryMethod.PICKUP.value, "Pickup")]
ACTION_LABELS = {
    OrderStatus.PROCESSING.value: "Start processing",
    OrderStatus.SHIPPED.value: "Mark shipped",
    OrderStatus.READY_FOR_PICKUP.value: "Mark ready for pickup",
    OrderStatus.DELIVERED.value: "Mark delivered",
    OrderStatus.CANCELLED.value: "Cancel order",
}
STATUS_BADGES = {
    OrderStatus.DELIVERED.value: "success",
    OrderStatus.COMPLETED.value: "success",
    OrderStatus.CANCELLED.value: "destructive",
    OrderStatus.PENDING.value: "warning",
}


@dataclasses.dataclass
class AdminOrderHeading:
    """What the list's row and the order's page both say of an order, worked out once
    (:func:`_heading`): its number, customer, when it was placed, its status, the contact phone,
    and whether its payment was a test."""

    short_id: str = ""
    customer: str = ""
    email: str = ""
    created_text: str = ""
    status_text: str = ""
    status_badge: str = "secondary"
    phone_text: str = ""  # the contact phone, 024 123 4567
    phone_href: str = ""  # tel:+233241234567
    test_payment: bool = False  # charged through the fake provider: no money moved


def _heading(order: Order, customer: str, email: str) -> dict[str, object]:
    """The :class:`AdminOrderHeading` fields of ``order`` (its customer as the caller names them)."""
    return dict(
        short_id=order.id[:8],
        customer=customer,
        email=email,
        created_text=order.created_at.strftime(DATE_TIME),
        status_text=lifecycle.status_label(order.status),
        status_badge=STATUS_BADGES.get(order.status, "secondary"),
        phone_text=display_phone(order.contact_phone),
        phone_href=tel_href(order.contact_phone),
        test_payment=is_test_payment(order),
    )


@dataclasses.dataclass
class AdminOrderView(AdminOrderHeading):
    """A row of the orders list."""

    id: str = ""
    payment_text: str = ""  # the payment's state: "Paid", "Awaiting payment", ...
    payment_badge: str = "warning"
    delivery_text: str = ""
    total_text: str = ""
    attention: bool = False


@dataclasses.dataclass
class StatusAction:
    status: str = ""
    label: str = ""
    danger: bool = False


def order_row(row: lifecycle.AdminOrderRow) -> AdminOrderView:
    order = row.order
    return AdminOrderView(
        **_heading(order, row.name, row.email),
        id=order.id,
        payment_text=lifecycle.payment_label(order),
        payment_badge=payment_badge(order),
        delivery_text="Pickup" if is_pickup(order) else "Delivery",
        total_text=money_text(order.total),
        attention=bool(order.attention),
    )


@dataclasses.dataclass
class AdminOrderPage(AdminOrderHeading):
    """One order's page, but its lines, totals and timeline (lists of their own)."""

    payment_text: str = ""  # how it is paid: "Mobile money · MTN · 024 123 4567", "Cash on delivery"
    payment_status_text: str = ""
    payment_badge: str = "warning"
    payment_reference: str = ""
    pickup: bool = False
    delivery_title: str = ""
    delivery_detail: str = ""
    attention_text: str = ""
    attention: str = ""  # the flag's code, as the page shows it ("Mark resolved" sends it back)
    # The status and payment status as loaded: an action sends them back with the flag
    # (services.orders.seen), refused when the order moved since the page showed it.
    status: str = ""
    payment_status: str = ""
    refund_due: bool = False
    refund_label: str = "Mark refunded"  # "Refund GH₵…" when the press sends the money (services.returns)
    refunded_text: str = ""  # what its refunds gave back so far (Order.refunded_total), "" when none
    net_text: str = ""  # the total less those refunds


def order_page(order: Order, customer: User | None) -> AdminOrderPage:
    name = full_name(customer)
    pickup = is_pickup(order)
    store = order.pickup_store or {}
    return AdminOrderPage(
        **_heading(order, name or (customer.email if customer else "Deleted account"),
                   customer.email if customer else ""),
        payment_text=payment_method_text(order),
        payment_status_text=lifecycle.payment_label(order),
        payment_badge=payment_badge(order),
        payment_reference=order.payment_reference or "",
        pickup=pickup,
        delivery_title=f"Pickup at {store.get('name') or 'a store'}" if pickup else "Home delivery",
        delivery_detail=store_text(store) if pickup else (address_text(order.address) or "No address recorded"),
        attention_text=(
            f"{lifecycle.ATTENTION_LABELS.get(order.attention, order.attention)}: {order.attention_note}"
            if order.attention else ""
        ),
        attention=order.attention or "",
        status=order.status,
        payment_status=order.payment_status,
        refund_due=order.attention == Attention.REFUND_DUE.value,
        refund_label=f"Refund {money_text(order.total)}" if refunds_by_credit_note(order) else "Mark refunded",
        refunded_text=money_text(order.refunded_total) if order.refunded_total > 0 else "",
        net_text=money_text(order.total - order.refunded_total) if order.refunded_total > 0 else "",
    )


def status_actions(order: Order) -> list[StatusAction]:
    """The statuses the order may move to next (services.orders.rules), as buttons."""
    return [
        StatusAction(status=s, label=ACTION_LABELS.get(s, s), danger=s == OrderStatus.CANCELLED.value)
        for s in allowed_statuses(order)
    ]


def day(raw: str) -> date | None:
    """A date field's value (YYYY-MM-DD), None when blank or not a date."""
    try:
        return date.fromisoformat(raw) if raw else None
    except ValueError:
        return None
