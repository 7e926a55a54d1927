"""Admin Overview tab: orders and revenue today and over 30 days, orders per day, best sellers and
low stock (services.reports, aggregated in SQL), each low-stock product restocked in one step."""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from ...db import session_scope
from ...display import money_text
from ...models import User
from ...services import reports
from ..actions import load_list
from ..guards import admin_event
from .gate import admin_tab
from .products import restock_product

PERIOD_DAYS = 30


@dataclasses.dataclass
class TopRow:
    name: str = ""
    units: int = 0
    revenue_text: str = ""


@dataclasses.dataclass
class DayBar:
    """One day of the orders-per-day chart: its bar's height (a share of the busiest day's) and
    its words ("Nov 22: 3 orders"); ``tick`` labels every seventh day and the last under the axis."""

    day: str = ""
    orders: int = 0
    height: str = "0%"
    words: str = ""
    tick: str = ""


def day_bars(per_day: list[reports.DaySales]) -> list[DayBar]:
    busiest = max((d.orders for d in per_day), default=0)
    return [
        DayBar(day=d.day.strftime("%b %d"), orders=d.orders,
               height=f"{(100 * d.orders / busiest) if busiest else 0:.1f}%",
               words=f"{d.day.strftime('%b %d')}: {d.orders} order{'' if d.orders == 1 else 's'}",
               tick=d.day.strftime("%b %d") if (len(per_day) - 1 - index) % 7 == 0 else "")
        for index, d in enumerate(per_day)
    ]


@dataclasses.dataclass
class LowStockRow:
    id: str = ""
    name: str = ""
    stock: int = 0
    status: str = ""


@admin_tab("overview")
class AdminOverviewState(rx.State):
    today_orders: int = 0
    today_revenue: str = ""  # the shop's money text once loaded (no currency is assumed before)
    period_orders: int = 0
    period_revenue: str = ""
    per_day: list[DayBar] = []  # one bar per day for the chart
    busiest_day: int = 0  # the chart's scale
    top: list[TopRow] = []
    low_stock: list[LowStockRow] = []
    low_stock_count: int = 0
    loaded: bool = False
    failed: bool = False

    def _load(self, admin: User) -> None:
        with session_scope() as session:
            sales = reports.sales_overview(session, admin, days=PERIOD_DAYS)
            best = reports.top_products(session, admin, days=PERIOD_DAYS, limit=5)
            low, low_count = reports.low_stock_products(session, admin, limit=10)
        self.today_orders = sales.today_orders
        self.today_revenue = money_text(sales.today_revenue)
        self.period_orders = sales.period_orders
        self.period_revenue = money_text(sales.period_revenue)
        self.per_day = day_bars(sales.per_day)
        self.busiest_day = max((d.orders for d in sales.per_day), default=0)
        self.top = [TopRow(name=t.name, units=t.units, revenue_text=money_text(t.revenue)) for t in best]
        self.low_stock = [LowStockRow(id=p.product_id, name=p.name, stock=p.stock, status=p.status) for p in low]
        self.low_stock_count = low_count
        self.loaded = True

    def _refresh(self, admin: User):
        return load_list(self, lambda: self._load(admin), "admin overview", loading=None)

    @admin_event
    def load(self, admin: User):
        return self._refresh(admin)

    @admin_event
    def restock(self, admin: User, form: dict[str, Any]):
        """Add the units typed beside a low-stock product to its stock, then refresh the figures."""
        return restock_product(self, admin, form, lambda: [*self._refresh(admin)])
