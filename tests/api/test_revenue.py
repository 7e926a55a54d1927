"""Revenue is money received (services.orders.rules.counts_as_revenue, summed in SQL by
services.reports): paid mobile money and cash orders once delivered, not cancelled; never cash
still to collect, an awaited, failed, expired or cancelled payment, nor a test payment (the fake
provider: no money moved). The overview, the best sellers and the orders export agree."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from discount_deals.db import session_scope
from discount_deals.services import payments, reports
from discount_deals.services.orders.rules import counts_as_revenue
from discount_deals.services.orders.expiry import release_expired_payments

from ..builders.checkout import after_deadline, fill_cart, order_row, place
from ..support.paystack import serve
from ..builders.shop import add_address
from .test_exports import ORDERS_CSV, rows_of


def _deliver(client, admin_headers, order_id: str) -> None:
    for status in ("processing", "shipped", "delivered"):
        moved = client.patch(f"/api/orders/{order_id}/", json={"status": status}, headers=admin_headers)
        assert moved.status_code == 200, moved.text


def test_only_money_received_is_revenue(client, customer, customer_headers, admin, admin_headers, make_product,
                                        monkeypatch):
    add_address(customer, is_default=True)
    product = make_product(price="10.00", stock=50)

    def order(body: dict) -> dict:
        fill_cart(client, customer_headers, (product, 1))
        return place(client, customer_headers, body)

    def momo(phone: str) -> dict:
        return order({"payment_method": "mobile_money", "phone": phone})

    cash_due = order({})  # the rider has not collected it yet
    cash_delivered = order({})
    _deliver(client, admin_headers, cash_delivered["id"])
    cash_cancelled = order({})
    client.post(f"/api/orders/{cash_cancelled['id']}/cancel/", headers=customer_headers)
    expired = momo("024 765 4321")
    assert release_expired_payments(after_deadline(expired["id"])) == 1
    test_paid = momo("024 123 2222")  # the fake provider's number that pays at once: no money moved
    failed = momo("024 123 0000")  # declined at once
    awaiting = momo("024 123 4567")
    switched = momo("024 123 0000")  # a test charge declined, then paid in cash on delivery: real money
    changed = client.post(f"/api/orders/{switched['id']}/payment-method/", json={"payment_method": "cash_on_delivery"},
                          headers=customer_headers)
    assert changed.status_code == 200, changed.text
    _deliver(client, admin_headers, switched["id"])
    with contextmanager(serve)(monkeypatch) as paystack:  # a real provider's payment
        real_paid = momo("055 123 4987")
        paystack.status[real_paid["payment_reference"]] = "success"
        later = datetime.now(UTC) + timedelta(seconds=11)
        assert payments.check_payment(customer, real_paid["id"], now=later).payment_status == "paid"
    paid = {o["id"]: order_row(o["id"]) for o in (test_paid, real_paid, cash_delivered, switched)}
    assert {row.payment_status for row in paid.values()} == {"paid"}
    assert (paid[test_paid["id"]].payment_test, paid[real_paid["id"]].payment_test) == (True, False)
    assert order_row(cash_due["id"]).payment_status == "pay_on_delivery"

    counted = {cash_delivered["id"], switched["id"], real_paid["id"]}
    every = [cash_due, cash_delivered, cash_cancelled, expired, test_paid, failed, awaiting, switched, real_paid]
    assert {o["id"] for o in every if counts_as_revenue(order_row(o["id"]))} == counted
    total = sum(Decimal(o["total"]) for o in every if o["id"] in counted)
    with session_scope() as session:
        sales = reports.sales_overview(session, admin, days=7)
        (best,) = reports.top_products(session, admin, days=7)
    assert sales.today_revenue == total == sales.period_revenue
    assert sales.today_orders == 7  # placed and not cancelled, whatever their money
    assert (best.units, best.revenue) == (3, Decimal("30.00"))

    rows = {row["order_id"]: row for row in rows_of(client.get(ORDERS_CSV, headers=admin_headers))}
    assert {order_id for order_id, row in rows.items() if row["counts_as_revenue"] == "yes"} == counted
    assert {order_id for order_id, row in rows.items() if row["payment_test"] == "yes"} == {
        test_paid["id"], failed["id"], awaiting["id"], expired["id"]}  # not the order paid in cash


def test_a_refunded_order_is_no_longer_revenue(client, customer, customer_headers, admin, admin_headers,
                                               make_product, monkeypatch):
    """Money given back is not revenue: a paid order cancelled is a refund due, then refunded."""
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(price="10.00", stock=5), 1))
    with contextmanager(serve)(monkeypatch) as paystack:
        order = place(client, customer_headers, {"payment_method": "mobile_money", "phone": "055 123 4987"})
        paystack.status[order["payment_reference"]] = "success"
        later = datetime.now(UTC) + timedelta(seconds=11)
        assert payments.check_payment(customer, order["id"], now=later).payment_status == "paid"

    def revenue() -> Decimal:
        with session_scope() as session:
            return reports.sales_overview(session, admin, days=1).today_revenue

    assert revenue() == Decimal(order["total"])
    cancelled = client.patch(f"/api/orders/{order['id']}/", json={"status": "cancelled"}, headers=admin_headers)
    assert cancelled.status_code == 200, cancelled.text
    assert revenue() == Decimal("0.00")  # its money is owed back
    refunded = client.post(f"/api/admin/orders/{order['id']}/refunded/", headers=admin_headers)
    assert refunded.status_code == 200, refunded.text
    assert order_row(order["id"]).payment_status == "refunded" and revenue() == Decimal("0.00")


def test_a_returned_part_refunded_is_taken_off_the_revenue(client, customer, admin, admin_headers, make_product):
    """Issue 33 item 5: revenue is money received less refunds. A cash order delivered (paid) of
    two products; one comes back and is refunded: revenue falls by exactly the refund."""
    from ..builders.returns import ask_return, delivered_order, returned_and_received, step

    kept, returned = make_product(price="20.00", stock=5), make_product(price="10.00", stock=5)
    order = delivered_order(client, customer, admin_headers, (kept, 1), (returned, 1))

    def revenue() -> Decimal:
        with session_scope() as session:
            return reports.sales_overview(session, admin, days=1).today_revenue

    assert revenue() == Decimal(order["total"])
    ret = ask_return(client, customer, order["id"], [(returned.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    refund = step(client, admin_headers, ret["id"], "refund")
    assert order_row(order["id"]).refunded_total == Decimal(refund["refund_amount"]) > 0
    assert revenue() == Decimal(order["total"]) - Decimal(refund["refund_amount"])
    csv_rows = rows_of(client.get(ORDERS_CSV, headers=admin_headers))
    assert {(row["counts_as_revenue"], row["order_refunded"]) for row in csv_rows} == {("yes", refund["refund_amount"])}
