"""How an order reads on screen, for the customer's pages and the back office alike: its badge
text, its card in a list, its lines and totals, delivery and payment in words, its timeline.
Plain functions of the stored order; the rules (payable, cancellable, ...) are
services.orders.rules'."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..display import TaxLineView, money_text, tax_line_views
from ..models import DeliveryMethod, Order, OrderEvent, OrderStatus, PaymentMethod, PaymentStatus
from ..services.orders import status as lifecycle
from ..services import users as user_service
from ..services.orders.rules import is_test_payment
from ..services.phones import NETWORKS, display_phone
from ..services.orders import OrderLine
from ..services.money import money_str
from ..services.taxes import stored_tax_lines
from ..config.settings import get_settings

DATE = "%d %b %Y"
DATE_TIME = "%d %b %Y, %H:%M"
# The mark of a payment through the fake provider, wherever an order's payment is shown.
TEST_PAYMENT = "Test payment"
TEST_PAYMENT_NOTE = "Test payment: no money moved"
PAYMENT_BADGES = {
    PaymentStatus.PAID.value: "success",
    PaymentStatus.FAILED.value: "destructive",
    PaymentStatus.REFUNDED.value: "secondary",
}


def status_label(status: str | None) -> str:
    """The badge text ("Ready for pickup"), 'Pending' when there is none."""
    return lifecycle.status_label((status or "").strip())


def is_completed(status: str | None) -> bool:
    """The 'Completed' filter: finished orders (delivered, or completed before deliveries were tracked)."""
    return (status or "").strip().lower() in lifecycle.FINISHED


def is_cancelled(status: str | None) -> bool:
    return (status or "").lower() == OrderStatus.CANCELLED.value


def payment_badge(order: Order) -> str:
    """The badge of the payment state (``lifecycle.payment_label``): a cancelled order that took
    no money is done with, like a refund; money still awaited (or due in cash) is a warning."""
    if is_cancelled(order.status) and order.payment_status in lifecycle.NEVER_CHARGED:
        return "secondary"
    return PAYMENT_BADGES.get(order.payment_status, "warning")


def items_text(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


@dataclasses.dataclass
class OrderCard:
    id: str = ""
    short_id: str = ""
    status: str = ""
    status_text: str = "Pending"
    completed: bool = False
    cancelled: bool = False
    item_count: int = 0
    items_text: str = ""
    total: str = ""  # 2-decimal text, as the API sends it
    total_text: str = ""
    date_text: str = ""
    payment_text: str = ""  # "Paid", "Awaiting payment", ... (lifecycle.payment_label)
    payment_badge: str = "warning"
    test_payment: bool = False  # shown as TEST_PAYMENT beside it


def order_card(order: Order) -> OrderCard:
    return OrderCard(
        id=order.id,
        short_id=order.id[:8],
        status=order.status,
        status_text=status_label(order.status),
        completed=is_completed(order.status),
        cancelled=is_cancelled(order.status),
        item_count=order.item_count,
        items_text=items_text(order.item_count),
        total=money_str(order.total),
        total_text=money_text(order.total),
        date_text=order.created_at.strftime(DATE) if order.created_at else "",
        payment_text=lifecycle.payment_label(order),
        payment_badge=payment_badge(order),
        test_payment=is_test_payment(order),
    )


@dataclasses.dataclass
class OrderLineView:
    name: str = ""
    quantity: int = 0
    unit_text: str = ""
    line_text: str = ""
    image_url: str = ""


def line_views(lines: Sequence[OrderLine], *, current_names: bool = False) -> list[OrderLineView]:
    """The order's lines as bought; ``current_names``: a product renamed since shows its new name."""
    placeholder = get_settings().placeholder_image_url
    return [
        OrderLineView(
            name=((line.product.name if current_names and line.product is not None else "") or line.item.name),
            quantity=line.item.quantity,
            unit_text=money_text(line.item.unit_price),
            line_text=money_text(line.item.line_total),
            image_url=line.item.image_url or placeholder,
        )
        for line in lines
    ]


@dataclasses.dataclass
class OrderTotals:
    item_count_text: str = ""
    subtotal_text: str = ""
    has_discount: bool = False
    discount_text: str = ""  # the amount taken off, unsigned
    shipping_text: str = ""
    tax_text: str = ""
    # The taxes the order was placed with (Order.tax_lines), one a row.
    tax_lines: list[TaxLineView] = dataclasses.field(default_factory=list)
    total_text: str = ""


def order_totals(order: Order) -> OrderTotals:
    return OrderTotals(
        item_count_text=items_text(order.item_count),
        subtotal_text=money_text(order.subtotal),
        has_discount=order.discount > 0,
        discount_text=money_text(order.discount),
        shipping_text="Free" if order.shipping == 0 else money_text(order.shipping),
        tax_text=money_text(order.tax),
        tax_lines=tax_line_views(stored_tax_lines(order.tax_lines, order.tax)),
        total_text=money_text(order.total),
    )


def payment_method_text(order: Order) -> str:
    if order.payment_method == PaymentMethod.MOBILE_MONEY.value:
        network = NETWORKS.get(order.payment_network or "", ("Mobile money",))[0]
        phone = display_phone(order.payment_phone)
        return f"Mobile money · {network}" + (f" · {phone}" if phone else "")
    return "Cash on delivery" if order.delivery_method != DeliveryMethod.PICKUP.value else "Cash at pickup"


def is_pickup(order: Order) -> bool:
    return order.delivery_method == DeliveryMethod.PICKUP.value


def address_text(address: dict | None) -> str:
    address = {**(address or {})}
    address["city"] = user_service.place_name(address.get("city") or "")
    keys = ("line1", "line2", "city", "state", "postal_code", "country")
    return ", ".join(str(address.get(key)) for key in keys if address.get(key))


def store_text(store: dict | None) -> str:
    store = store or {}
    return ", ".join(str(store.get(key)) for key in ("address", "city") if store.get(key))


# --- the timeline ------------------------------------------------------------------------------


@dataclasses.dataclass
class TimelineEntry:
    title: str = ""
    note: str = ""
    when: str = ""
    tone: str = "neutral"  # "good" | "bad" | "neutral"


PAYMENT_EVENT_TITLES = {
    PaymentStatus.PAID.value: "Payment received",
    PaymentStatus.FAILED.value: "Payment not completed",
    PaymentStatus.AWAITING_PAYMENT.value: "Waiting for payment",
    PaymentStatus.REFUNDED.value: "Refunded",
}
STATUS_EVENT_TITLES = {
    OrderStatus.PENDING.value: "Order placed",
    OrderStatus.PROCESSING.value: "Being prepared",
    OrderStatus.SHIPPED.value: "Shipped",
    OrderStatus.READY_FOR_PICKUP.value: "Ready for pickup",
    OrderStatus.DELIVERED.value: "Delivered",
    OrderStatus.CANCELLED.value: "Cancelled",
}


def timeline_entry(event: OrderEvent, owner_id: str, *, admin: bool = False) -> TimelineEntry | None:
    """One line of the timeline; customers do not see the back office's flags."""
    when = event.created_at.strftime(DATE_TIME) if event.created_at else ""
    if event.kind == "status":
        title = STATUS_EVENT_TITLES.get(event.to_value, status_label(event.to_value))
        tone = "bad" if event.to_value == OrderStatus.CANCELLED.value else "good"
    elif event.kind == "payment":
        title = PAYMENT_EVENT_TITLES.get(event.to_value, event.to_value)
        tone = "good" if event.to_value in (PaymentStatus.PAID.value, PaymentStatus.REFUNDED.value) else "bad"
    elif admin:
        title = lifecycle.ATTENTION_LABELS.get(event.to_value, "Flag cleared")
        tone = "bad" if event.to_value in lifecycle.ATTENTION_LABELS else "neutral"
    else:
        return None
    if admin:
        who = event.actor_label or lifecycle.SHOP
    else:
        who = "you" if event.actor_id == owner_id else (event.actor_label if not event.actor_id else lifecycle.SHOP)
    if who == "you" and event.kind == "status" and event.to_value == OrderStatus.CANCELLED.value:
        return TimelineEntry(title=title, note="Cancelled by you", when=when, tone=tone)
    note = event.note if event.note and event.note != title else ""
    if who:
        note = f"{note} (by {who})" if note else f"By {who}"
    return TimelineEntry(title=title, note=note, when=when, tone=tone)


def customer_timeline(order: Order, events: list[OrderEvent], *, admin: bool = False) -> list[TimelineEntry]:
    """The order's timeline; an order from before timelines were kept still shows when it was placed."""
    entries = [e for e in (timeline_entry(event, order.user_id, admin=admin) for event in events) if e is not None]
    if not any(event.kind == "status" and event.from_value is None for event in events) and order.created_at:
        entries.insert(0, TimelineEntry(title="Order placed", when=order.created_at.strftime(DATE_TIME), tone="good"))
    return entries
