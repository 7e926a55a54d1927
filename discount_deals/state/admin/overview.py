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
    # One point per day for the chart: {"day": "Nov 22", "orders": 3}.
    per_day: list[dict[str, str | int]] = []
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
        self.per_day = [{"day": d.day.strftime("%b %d"), "orders": d.orders} for d in sales.per_day]
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
