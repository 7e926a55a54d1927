"""Admin Overview tab: headline figures, orders per day, best sellers and low stock."""

from __future__ import annotations

import reflex as rx

from ..services.reports import LOW_STOCK_THRESHOLD
from ..state.admin.overview import PERIOD_DAYS, AdminOverviewState
from .admin_catalog import restock_form
from .admin_ui import PANEL
from .ui import badge, badge_class

OV = AdminOverviewState


def _figure(label_text: str, value, tag: str) -> rx.Component:
    return rx.el.div(
        rx.el.dt(
            rx.icon(tag, size=16, aria_hidden="true"),
            label_text,
            class_name="flex items-center gap-2 text-sm font-medium text-gray-600",
        ),
        rx.el.dd(value, class_name="mt-1 text-2xl font-bold text-gray-900"),
        class_name=PANEL,
    )


def _bar(bar) -> rx.Component:
    """A day's bar, its count on hover or a long press (``title``), its date below when it is a tick."""
    return rx.el.div(
        rx.el.div(
            rx.el.div(class_name="w-full rounded-t-sm bg-orange-700", style={"height": bar.height},
                      title=bar.words, custom_attrs={"data-day": bar.day}),
            class_name="flex h-48 items-end border-b border-gray-300",
        ),
        rx.el.span(bar.tick, class_name="mt-1 block h-4 whitespace-nowrap text-center text-[10px] text-gray-600"),
        class_name="min-w-0 flex-1",
    )


def _chart() -> rx.Component:
    """Orders per day as plain boxes (a chart library was most of the back office's code, some
    80 KB on a phone's first visit, for thirty bars)."""
    return rx.el.section(
        rx.el.h2(f"Orders per day (last {PERIOD_DAYS} days)", class_name="mb-3 text-lg font-semibold text-gray-900"),
        rx.el.div(
            rx.el.div(
                rx.el.span(OV.busiest_day, class_name="text-xs text-gray-600"),
                rx.el.span("0", class_name="text-xs text-gray-600"),
                class_name="mb-5 flex h-48 flex-col justify-between pr-1 text-right",
            ),
            rx.el.div(
                rx.foreach(OV.per_day, _bar),
                class_name="flex flex-1 items-end gap-px sm:gap-1",
            ),
            role="img",
            aria_label=f"Bar chart of orders per day over the last {PERIOD_DAYS} days",
            class_name="flex",
        ),
        class_name=PANEL,
    )


def _top_products() -> rx.Component:
    cell = "py-2 pr-3 text-sm"
    return rx.el.section(
        rx.el.h2(f"Top products (last {PERIOD_DAYS} days)", class_name="mb-3 text-lg font-semibold text-gray-900"),
        rx.cond(
            OV.top.length() > 0,
            rx.el.table(
                rx.el.thead(
                    rx.el.tr(
                        rx.el.th("Product", scope="col", class_name=cell + " text-left font-medium text-gray-600"),
                        rx.el.th("Units sold", scope="col", class_name=cell + " text-right font-medium text-gray-600"),
                        # The lines as sold: before the order's coupon and tax and its refunds, which
                        # the overview's revenue takes into account; so not called revenue beside it.
                        rx.el.th("Sold for", scope="col", class_name=cell + " text-right font-medium text-gray-600",
                                 title="The lines' totals as sold, before coupons, tax and refunds"),
                    )
                ),
                rx.el.tbody(
                    rx.foreach(
                        OV.top,
                        lambda row: rx.el.tr(
                            rx.el.td(row.name, class_name=cell + " text-gray-900"),
                            rx.el.td(row.units, class_name=cell + " text-right text-gray-900"),
                            rx.el.td(row.revenue_text, class_name=cell + " text-right text-gray-900"),
                            class_name="border-t border-gray-200",
                        ),
                    )
                ),
                aria_label="Top products",
                class_name="w-full table-fixed break-words",
            ),
            rx.el.p(f"No sales in the last {PERIOD_DAYS} days.", class_name="text-sm text-gray-600"),
        ),
        class_name=PANEL,
    )


def _low_stock() -> rx.Component:
    return rx.el.section(
        rx.el.h2(
            f"Low stock ({LOW_STOCK_THRESHOLD} or fewer)",
            class_name="mb-1 text-lg font-semibold text-gray-900",
        ),
        rx.el.p(OV.low_stock_count, " products need restocking", class_name="mb-3 text-sm text-gray-600"),
        rx.cond(
            OV.low_stock.length() > 0,
            rx.el.ul(
                rx.foreach(
                    OV.low_stock,
                    lambda row: rx.el.li(
                        rx.el.div(
                            rx.el.span(row.name, class_name="min-w-0 flex-1 break-words text-sm text-gray-900"),
                            rx.cond(row.status != "active", badge("inactive", variant="secondary")),
                            rx.el.span(
                                row.stock, " left",
                                class_name=rx.cond(row.stock == 0, badge_class("destructive"),
                                                   badge_class("warning")),
                            ),
                            class_name="flex items-center gap-2",
                        ),
                        restock_form(row.id, row.name, OV.restock, id_prefix="overview_restock_"),
                        class_name="border-t border-gray-200 py-2",
                    ),
                ),
                aria_label="Low stock products",
            ),
            rx.el.p("No products are low on stock.", class_name="text-sm text-gray-600"),
        ),
        class_name=PANEL,
    )


def overview_tab() -> rx.Component:
    return rx.el.div(
        rx.cond(OV.failed, rx.el.p("The figures could not be loaded.", role="alert", class_name="text-red-700")),
        rx.el.dl(
            _figure("Orders today", OV.today_orders, "shopping-bag"),
            _figure("Revenue today", OV.today_revenue, "banknote"),
            _figure(f"Orders (last {PERIOD_DAYS} days)", OV.period_orders, "calendar"),
            _figure(f"Revenue (last {PERIOD_DAYS} days)", OV.period_revenue, "trending-up"),
            class_name="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4",
        ),
        _chart(),
        # grid-cols-1 (minmax(0, 1fr)) rather than an implicit column: a long product name or the
        # table must not widen the page past a 320 px screen.
        rx.el.div(_top_products(), _low_stock(), class_name="grid grid-cols-1 items-start gap-6 lg:grid-cols-2"),
        class_name="min-w-0 space-y-6",
    )
