"""services.reports: the admin overview's aggregates, computed in SQL, admins only."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import NotAuthenticated, PermissionDenied
from discount_deals.services import reports
from discount_deals.services.orders.rules import counts_as_revenue

NOW = datetime(2026, 11, 22, 15, 30, tzinfo=UTC)


@pytest.fixture
def make_order(customer):
    """An order placed at ``when`` with ``lines`` of (product or name, quantity, line total), paid
    unless ``fields`` say otherwise (revenue is money received)."""

    def factory(when: datetime, lines: list[tuple], status: str = "pending", **fields) -> models.Order:
        total = sum((Decimal(t) for _p, _q, t in lines), Decimal(0))
        with session_scope() as session:
            order = models.Order(
                user_id=customer.id,
                status=status,
                item_count=sum(q for _p, q, _t in lines),
                subtotal=total,
                total=total,
                created_at=when,
                **{"payment_status": "paid", **fields},
            )
            session.add(order)
            session.flush()
            for product, quantity, line_total in lines:
                is_product = isinstance(product, models.Product)
                session.add(
                    models.OrderItem(
                        order_id=order.id,
                        product_id=product.id if is_product else None,
                        name=product.name if is_product else product,
                        unit_price=Decimal(line_total) / quantity,
                        original_price=Decimal(line_total) / quantity,
                        quantity=quantity,
                        line_total=Decimal(line_total),
                    )
                )
        return order

    return factory


def test_every_report_is_for_admins_only(customer):
    with session_scope() as session:
        for call in (reports.sales_overview, reports.top_products, reports.low_stock_products):
            with pytest.raises(NotAuthenticated):
                call(session, None)
            with pytest.raises(PermissionDenied):
                call(session, customer)


def test_sales_overview_counts_today_and_the_last_30_days(admin, make_product, make_order):
    item = make_product(price="10.00")
    make_order(NOW.replace(hour=0, minute=0), [(item, 1, "10.00")])  # today, at midnight
    make_order(NOW - timedelta(minutes=5), [(item, 2, "20.50")])  # today
    make_order(NOW - timedelta(days=1), [(item, 1, "5.25")])  # yesterday
    make_order(NOW - timedelta(days=29), [(item, 1, "7.00")], status="completed")  # first day of the window
    make_order(NOW - timedelta(days=30), [(item, 9, "99.00")])  # one day too old
    make_order(NOW - timedelta(hours=1), [(item, 4, "40.00")], status="cancelled")  # never counted
    make_order(NOW + timedelta(days=1), [(item, 1, "1.00")])  # tomorrow (clock skew) is outside
    # Orders, but no money received: cash still with the rider, and a test payment.
    make_order(NOW - timedelta(minutes=9), [(item, 1, "3.00")], payment_status="pay_on_delivery")
    make_order(NOW - timedelta(minutes=8), [(item, 1, "4.00")], payment_method="mobile_money", payment_test=True)

    with session_scope() as session:
        overview = reports.sales_overview(session, admin, now=NOW)
    assert (overview.today_orders, overview.today_revenue) == (4, Decimal("30.50"))
    assert (overview.period_orders, overview.period_revenue) == (6, Decimal("42.75"))
    assert len(overview.per_day) == 30
    assert overview.per_day[0] == reports.DaySales(date(2026, 10, 24), 1, Decimal("7.00"))
    assert overview.per_day[-2] == reports.DaySales(date(2026, 11, 21), 1, Decimal("5.25"))
    assert overview.per_day[-1].day == date(2026, 11, 22)
    assert sum(d.orders for d in overview.per_day[1:-2]) == 0  # empty days are zeros, not gaps


STATES = [
    {"status": status, "payment_status": payment, "payment_method": method, "payment_test": test}
    for status in ("pending", "processing", "delivered", "completed", "cancelled")
    for payment in ("pay_on_delivery", "awaiting_payment", "paid", "failed", "refunded")
    for method in ("cash_on_delivery", "mobile_money")
    for test in (False, True)
]


def test_revenue_in_sql_is_counts_as_revenue(customer):
    """services.reports sums the rule of order_rules.counts_as_revenue: the same orders, every
    combination of status, payment state, method and test mark."""
    with session_scope() as session:
        made = [models.Order(user_id=customer.id, total=Decimal("1.00"), **fields) for fields in STATES]
        session.add_all(made)
        session.flush()
        in_sql = set(session.exec(select(models.Order.id).where(reports.revenue_condition())).all())
        in_python = {order.id for order in made if counts_as_revenue(order)}
    assert in_sql == in_python
    expected = {i for i, f in enumerate(STATES) if f["payment_status"] == "paid" and f["status"] != "cancelled"
                and not (f["payment_test"] and f["payment_method"] == "mobile_money")}
    assert {i for i, order in enumerate(made) if order.id in in_sql} == expected
    # A cash order whose earlier mobile-money try was a test is real money once delivered.
    assert counts_as_revenue(models.Order(status="delivered", payment_status="paid", payment_method="cash_on_delivery",
                                          payment_test=True))


def test_sales_overview_without_orders(admin):
    with session_scope() as session:
        overview = reports.sales_overview(session, admin, days=7, now=NOW)
    assert (overview.today_orders, overview.period_orders) == (0, 0)
    assert overview.period_revenue == Decimal("0.00")
    assert [d.day for d in overview.per_day] == [date(2026, 11, 16) + timedelta(days=i) for i in range(7)]


def test_top_products_by_units_with_deleted_products_by_name(admin, make_product, make_order):
    rice = make_product(name="Rice 5kg", price="10.00")
    milo = make_product(name="Milo 400g", price="4.00")
    oil = make_product(name="Cooking Oil", price="8.00")
    make_order(NOW - timedelta(days=2), [(rice, 2, "20.00"), (milo, 1, "4.00")])
    make_order(NOW - timedelta(hours=3), [(milo, 5, "20.00"), ("Old Kettle", 3, "30.00")])
    make_order(NOW - timedelta(hours=2), [(oil, 50, "400.00")], status="cancelled")
    make_order(NOW - timedelta(days=40), [(oil, 60, "480.00")])
    make_order(NOW - timedelta(hours=1), [(oil, 7, "56.00")], payment_status="pay_on_delivery")  # cash to collect
    make_order(NOW - timedelta(hours=1), [(oil, 8, "64.00")], payment_method="mobile_money", payment_test=True)

    with session_scope() as session:
        top = reports.top_products(session, admin, now=NOW)
    assert [(t.name, t.units, t.revenue) for t in top] == [
        ("Milo 400g", 6, Decimal("24.00")),
        ("Old Kettle", 3, Decimal("30.00")),
        ("Rice 5kg", 2, Decimal("20.00")),
    ]
    assert top[0].product_id == milo.id and top[1].product_id is None

    # A renamed product is shown under its current name.
    with session_scope() as session:
        session.get(models.Product, milo.id).name = "Milo 450g"
    with session_scope() as session:
        assert reports.top_products(session, admin, limit=1, now=NOW)[0].name == "Milo 450g"


def test_low_stock_products_fewest_first_with_the_total(admin, make_product):
    make_product(name="Plenty", stock=6)
    make_product(name="Five left", stock=5)
    make_product(name="Sold out", stock=0)
    make_product(name="Another five", stock=5, status="inactive")
    make_product(name="Two left", stock=2)

    with session_scope() as session:
        rows, count = reports.low_stock_products(session, admin)
        few, same = reports.low_stock_products(session, admin, limit=2)
        strict, strict_count = reports.low_stock_products(session, admin, threshold=0)
    assert count == 4
    assert [(r.name, r.stock) for r in rows] == [("Sold out", 0), ("Two left", 2), ("Another five", 5), ("Five left", 5)]
    assert rows[2].status == "inactive"
    assert ([r.name for r in few], same) == (["Sold out", "Two left"], 4)
    assert ([r.name for r in strict], strict_count) == (["Sold out"], 1)
