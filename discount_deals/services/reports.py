"""Figures for the admin overview: orders and revenue per day, best sellers, low stock (admins only).

Every aggregate runs in SQL. Days are UTC calendar days (Ghana keeps GMT all year, so they are
also the shop's local days). Cancelled orders count neither as orders nor as revenue; revenue
(and the best sellers' units and revenue) counts only money received (:func:`revenue_condition`:
``orders.rules.counts_as_revenue`` in SQL): paid mobile money and cash orders once delivered, never
cash still to collect, a failed, awaited, expired or refunded payment, nor a test payment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy import case, false, or_
from sqlmodel import Session, func, select

from ..models import Order, OrderItem, OrderStatus, PaymentMethod, Product, User
from .catalog.listing import LOW_STOCK_THRESHOLD
from .orders.rules import REVENUE_PAYMENT_STATES
from .permissions import require_admin
from .money import round_amount


@dataclass(frozen=True)
class DaySales:
    day: date
    orders: int
    revenue: Decimal


@dataclass(frozen=True)
class SalesOverview:
    """Orders and revenue today and over the last ``days`` days (today included), with one
    entry per day of that window, oldest first (days without orders included as zeros)."""

    today_orders: int
    today_revenue: Decimal
    period_orders: int
    period_revenue: Decimal
    per_day: list[DaySales]


@dataclass(frozen=True)
class TopProduct:
    product_id: str | None
    name: str
    units: int
    revenue: Decimal


@dataclass(frozen=True)
class LowStockProduct:
    product_id: str
    name: str
    stock: int
    status: str


def _today(now: datetime | None) -> date:
    moment = now or datetime.now(UTC)
    return (moment.astimezone(UTC) if moment.tzinfo else moment).date()


def _start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _as_date(value) -> date:
    """SQLite's date() answers text, PostgreSQL's a date."""
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def _order_day(session: Session):
    """The UTC calendar day of an order, in SQL (PostgreSQL would otherwise use the session's zone)."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date(func.timezone("UTC", Order.created_at))
    return func.date(Order.created_at)


def _counted_orders():
    return Order.status != OrderStatus.CANCELLED.value


def revenue_condition():
    """SQL for ``orders.rules.counts_as_revenue``: the one definition of revenue, for every figure."""
    not_a_test = or_(Order.payment_test == false(), Order.payment_method != PaymentMethod.MOBILE_MONEY.value)
    return (Order.status != OrderStatus.CANCELLED.value) & Order.payment_status.in_(REVENUE_PAYMENT_STATES) & not_a_test


def _money_received():
    """What one counted order brought in: its total, less what was given back of it."""
    return Order.total - Order.refunded_total


def _revenue(amount):
    return func.coalesce(func.sum(case((revenue_condition(), amount), else_=0)), 0)


def sales_overview(session: Session, actor: User | None, *, days: int = 30, now: datetime | None = None) -> SalesOverview:
    """Orders and revenue per day over the last ``days`` days (admins only)."""
    require_admin(actor)
    days = max(1, days)
    today = _today(now)
    first = today - timedelta(days=days - 1)
    day = _order_day(session)
    rows = session.exec(
        select(day, func.count(Order.id), _revenue(_money_received()))
        .where(Order.created_at >= _start_of(first), Order.created_at < _start_of(today + timedelta(days=1)))
        .where(_counted_orders())
        .group_by(day)
    ).all()
    found = {_as_date(d): (int(count), round_amount(total)) for d, count, total in rows}
    per_day = []
    for offset in range(days):
        current = first + timedelta(days=offset)
        count, total = found.get(current, (0, round_amount(0)))
        per_day.append(DaySales(day=current, orders=count, revenue=total))
    return SalesOverview(
        today_orders=per_day[-1].orders,
        today_revenue=per_day[-1].revenue,
        period_orders=sum(d.orders for d in per_day),
        period_revenue=round_amount(sum((d.revenue for d in per_day), Decimal(0))),
        per_day=per_day,
    )


def top_products(
    session: Session, actor: User | None, *, days: int = 30, limit: int = 5, now: datetime | None = None
) -> list[TopProduct]:
    """The best sellers by units over the last ``days`` days (admins only), most units first;
    only orders whose money was received count (:func:`revenue_condition`; a line's revenue is
    its total as sold: refunds are per order, and the overview's revenue subtracts them).

    Lines of a product deleted since keep their snapshot name and are grouped by it."""
    require_admin(actor)
    today = _today(now)
    first = today - timedelta(days=max(1, days) - 1)
    key = func.coalesce(OrderItem.product_id, OrderItem.name)
    units = func.sum(OrderItem.quantity)
    rows = session.exec(
        select(key, func.max(OrderItem.product_id), func.max(OrderItem.name), units, func.sum(OrderItem.line_total))
        .join(Order, Order.id == OrderItem.order_id)
        .where(Order.created_at >= _start_of(first), Order.created_at < _start_of(today + timedelta(days=1)))
        .where(revenue_condition())
        .group_by(key)
        .order_by(units.desc(), func.max(OrderItem.name))
        .limit(max(0, limit))
    ).all()
    ids = [product_id for _k, product_id, _n, _u, _r in rows if product_id]
    current = dict(session.exec(select(Product.id, Product.name).where(Product.id.in_(ids))).all()) if ids else {}
    return [
        TopProduct(product_id=product_id, name=current.get(product_id, name), units=int(count),
                   revenue=round_amount(total))
        for _key, product_id, name, count, total in rows
    ]


def low_stock_products(
    session: Session, actor: User | None, *, threshold: int = LOW_STOCK_THRESHOLD, limit: int = 10
) -> tuple[list[LowStockProduct], int]:
    """Products with at most ``threshold`` units left, fewest first, and how many there are (admins only)."""
    require_admin(actor)
    condition = Product.stock <= threshold
    count = session.exec(select(func.count()).select_from(Product).where(condition)).one()
    rows = session.exec(
        select(Product.id, Product.name, Product.stock, Product.status)
        .where(condition)
        .order_by(Product.stock.asc(), Product.name_sort.asc(), Product.name_key.asc())
        .limit(max(0, limit))
    ).all()
    return [LowStockProduct(product_id=i, name=n, stock=s, status=st) for i, n, s, st in rows], int(count)
