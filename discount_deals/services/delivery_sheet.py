"""The riders' delivery sheet: one order, or a day's home deliveries grouped by region.

A day's sheet lists the home-delivery orders that can go out that day: placed on or before it,
not delivered or cancelled yet, and either paid or paid on delivery (a mobile-money order whose
money has not come in waits: ``services.orders.rules.SETTLED``). Ghana keeps GMT all year, so a
day in UTC is the shop's day. Stops are grouped by the address's region (the checkout's Region,
stored as ``state``), then ordered by city or town and by when they were placed, so a rider's
run reads in order. Admins only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func
from sqlmodel import Session, select

from ..models import DeliveryMethod, Order, OrderStatus, User
from . import NotFound
from .moments import after_day
from .orders.rules import SETTLED
from .orders import OrderLine, items_for_orders
from .permissions import require_admin
from .rows import by_id

# Orders still to be delivered (shipped ones are on their way: the rider has the sheet).
TO_DELIVER = (OrderStatus.PENDING.value, OrderStatus.PROCESSING.value, OrderStatus.SHIPPED.value)
NO_REGION = "Region not given"
MAX_STOPS = 500


@dataclass(frozen=True)
class Stop:
    """One order on the sheet, with its customer and its lines."""

    order: Order
    customer: User | None
    lines: list[OrderLine]

    @property
    def region(self) -> str:
        return str((self.order.address or {}).get("state") or "").strip() or NO_REGION

    @property
    def city(self) -> str:
        return str((self.order.address or {}).get("city") or "").strip()


@dataclass(frozen=True)
class RegionGroup:
    region: str
    stops: list[Stop]


def _stops(session: Session, orders: list[Order]) -> list[Stop]:
    lines = items_for_orders(session, orders)
    customers = {user.id: user for user in session.exec(select(User).where(User.id.in_({o.user_id for o in orders})))}
    return [Stop(order, customers.get(order.user_id), lines[order.id]) for order in orders]


def order_sheet(session: Session, actor: User | None, order_id: str) -> list[RegionGroup]:
    """One order's sheet (any order an admin can see, pickup ones too)."""
    require_admin(actor)
    order = by_id(session, Order, order_id)
    if order is None:
        raise NotFound("Order not found.")
    stop = _stops(session, [order])[0]
    return [RegionGroup(stop.region, [stop])]


def _to_deliver(day: date) -> tuple:
    """Which orders can go out on ``day``: open home deliveries placed by its end, paid or cash."""
    return (Order.delivery_method == DeliveryMethod.DELIVERY.value, Order.status.in_(TO_DELIVER),
            Order.payment_status.in_(sorted(SETTLED)), Order.created_at < after_day(day))


def day_sheet(session: Session, actor: User | None, day: date) -> list[RegionGroup]:
    """The home deliveries that can go out on ``day`` (see the module docstring), by region
    (alphabetical, "Region not given" last; "greater accra" and "Greater Accra" are one), the
    :data:`MAX_STOPS` placed first (:func:`day_sheet_size` says how many there are)."""
    require_admin(actor)
    orders = list(session.exec(
        select(Order).where(*_to_deliver(day)).order_by(Order.created_at, Order.id).limit(MAX_STOPS)
    ).all())
    groups: dict[str, list[Stop]] = {}
    for stop in _stops(session, orders):
        groups.setdefault(stop.region.casefold(), []).append(stop)
    ordered = sorted(groups.values(), key=lambda stops: (stops[0].region == NO_REGION, stops[0].region.casefold()))
    return [RegionGroup(stops[0].region, sorted(stops, key=lambda s: (s.city.lower(), s.order.created_at)))
            for stops in ordered]


def day_sheet_size(session: Session, actor: User | None, day: date) -> int:
    """How many orders can go out on ``day``: more than :data:`MAX_STOPS` is more than the sheet shows."""
    require_admin(actor)
    return session.exec(select(func.count()).select_from(Order).where(*_to_deliver(day))).one()
