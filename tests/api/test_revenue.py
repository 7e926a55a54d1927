"""Revenue counts only money that is or will be received (services.order_rules.counts_as_revenue,
summed in SQL by services.reports): paid mobile money and cash orders not cancelled; never an
awaited, failed, expired or cancelled payment. The overview and the orders export agree."""

from __future__ import annotations

from decimal import Decimal

from discount_deals.db import session_scope
from discount_deals.services import reports
from discount_deals.services.order_rules import counts_as_revenue
from discount_deals.services.order_status import release_expired_payments

from .checkout_helpers import after_deadline, fill_cart, order_row, place
from .shop_helpers import add_address
from .test_exports import ORDERS_CSV, rows_of


def test_only_money_received_or_due_is_revenue(client, customer, customer_headers, admin, admin_headers,
                                               make_product):
    add_address(customer, is_default=True)
    product = make_product(price="10.00", stock=50)

    def order(body: dict) -> dict:
        fill_cart(client, customer_headers, (product, 1))
        return place(client, customer_headers, body)

    def momo(phone: str) -> dict:
        return order({"payment_method": "mobile_money", "phone": phone})

    cash = order({})
    cash_cancelled = order({})
    client.post(f"/api/orders/{cash_cancelled['id']}/cancel/", headers=customer_headers)
    expired = momo("024 765 4321")
    assert release_expired_payments(after_deadline(expired["id"])) == 1
    paid = momo("024 123 2222")  # the fake provider's number that pays at once
    failed = momo("024 123 0000")  # declined at once
    awaiting = momo("024 123 4567")
    assert order_row(paid["id"]).payment_status == "paid" and order_row(failed["id"]).payment_status == "failed"

    counted = {cash["id"], paid["id"]}
    every = [cash, cash_cancelled, paid, failed, awaiting, expired]
    assert {o["id"] for o in every if counts_as_revenue(order_row(o["id"]))} == counted
    total = sum(Decimal(o["total"]) for o in every if o["id"] in counted)
    with session_scope() as session:
        sales = reports.sales_overview(session, admin, days=7)
        (best,) = reports.top_products(session, admin, days=7)
    assert sales.today_revenue == total == sales.period_revenue
    assert sales.today_orders == 4  # placed and not cancelled: cash, paid, failed (still payable), awaiting
    assert (best.units, best.revenue) == (2, Decimal("20.00"))

    rows = {row["order_id"]: row for row in rows_of(client.get(ORDERS_CSV, headers=admin_headers))}
    assert {order_id for order_id, row in rows.items() if row["counts_as_revenue"] == "yes"} == counted
    assert {order_id for order_id, row in rows.items() if row["payment_test"] == "yes"} == {
        paid["id"], failed["id"], awaiting["id"], expired["id"]}
