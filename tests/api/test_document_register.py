"""The register of receipts and credit notes (services/register.py): what an accountant files at
month end. Before, no list of document numbers existed, tax could not be netted of credit notes,
and the orders export dated money by the day an order was placed, so a closed month changed."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import exports
from discount_deals.services.register import COLUMNS

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.payments import minor, post_webhook
from ..builders.returns import ask_return, deliver, delivered_order, returned_and_received, step
from ..builders.shop import add_address
from .test_order_tax_lines import tax_settings

DOCUMENTS_CSV = "/api/admin/exports/documents.csv"
YEAR = datetime.now(UTC).year


def register(client, admin_headers, **params) -> list[dict[str, str]]:
    answer = client.get(DOCUMENTS_CSV, params=params, headers=admin_headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert not rows or list(rows[0]) == list(COLUMNS)
    return rows


def a_month(client, customer, make_product, admin_headers) -> dict:
    """A cash order delivered (receipt), one unit of it returned and refunded (credit note), and a
    mobile-money order paid then cancelled and refunded whole (receipt and credit note)."""
    milo, rice = make_product(price="9.99", stock=30), make_product(price="3.33", stock=30)
    cash = delivered_order(client, customer, admin_headers, (milo, 7), (rice, 3))
    ret = ask_return(client, customer, cash["id"], [(milo.id, 3)])
    returned_and_received(client, admin_headers, ret["id"])
    step(client, admin_headers, ret["id"], "refund")
    fill_cart(client, auth_headers(customer), (rice, 2))
    momo = place(client, auth_headers(customer), MOMO)
    post_webhook(client, "charge.success", momo["payment_reference"], minor(momo["total"]))
    assert client.post(f"/api/orders/{momo['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    assert client.post(f"/api/admin/orders/{momo['id']}/refunded/", headers=admin_headers).status_code == 200
    return {"cash": cash, "momo": momo, "return": ret}


def test_every_document_once_in_the_order_of_issue_and_the_sums_are_what_the_shop_kept(
        client, customer, make_product, admin_headers, monkeypatch):
    with tax_settings(monkeypatch, DD_TAX="ghana"):
        month = a_month(client, customer, make_product, admin_headers)
        rows = register(client, admin_headers)
        cash_receipt = client.get(f"/api/orders/{month['cash']['id']}/receipt/", headers=admin_headers).json()
        note = client.get(f"/api/returns/{month['return']['id']}/credit-note/", headers=admin_headers).json()
    assert [(row["kind"], row["number"]) for row in rows] == [
        ("receipt", f"DD-{YEAR}-000001"), ("credit_note", f"CN-{YEAR}-000001"),
        ("receipt", f"DD-{YEAR}-000002"), ("credit_note", f"CN-{YEAR}-000002")]
    first = rows[0]
    assert (first["order_id"], first["total"], first["tax"], first["goods"]) == (
        month["cash"]["id"], cash_receipt["total"], cash_receipt["tax"], cash_receipt["subtotal"])
    assert first["tax_lines"].startswith("VAT 15.00% ") and "NHIL 2.50% " in first["tax_lines"]
    returned = rows[1]  # a credit note: negative amounts, naming the receipt it corrects
    assert (returned["corrects"], returned["refund_method"]) == (cash_receipt["number"], "cash")
    assert Decimal(returned["total"]) == -Decimal(note["total"]) and Decimal(returned["goods"]) == -Decimal(note["goods"])
    assert Decimal(returned["tax"]) == -Decimal(note["tax"])
    assert all(Decimal(part.rsplit(" ", 1)[1]) <= 0 for part in returned["tax_lines"].split("; "))
    cancelled = rows[3]
    assert (cancelled["order_id"], cancelled["corrects"], cancelled["payment_test"]) == (
        month["momo"]["id"], rows[2]["number"], "yes")
    assert Decimal(cancelled["total"]) == -Decimal(rows[2]["total"])
    # Summed, each column is what the shop kept: the cancelled order nets to nothing.
    kept = sum(Decimal(row["total"]) for row in rows)
    assert kept == Decimal(cash_receipt["total"]) - Decimal(note["total"])
    assert sum(Decimal(row["tax"]) for row in rows) == Decimal(cash_receipt["tax"]) - Decimal(note["tax"])
    with session_scope() as session:  # and what the orders say they kept
        held = [session.get(models.Order, month[key]["id"]) for key in ("cash", "momo")]
        assert kept == sum((order.total - order.refunded_total for order in held), Decimal("0.00"))


def test_money_is_dated_by_the_day_its_document_was_issued(client, customer, make_product, admin_headers):
    """A cash order placed 40 days ago and delivered today: its receipt is today's, so last
    month's register is closed and stays as it was."""
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price="10.00", stock=5), 1))
    order = place(client, auth_headers(customer), {})
    with session_scope() as session:
        row = session.get(models.Order, order["id"])
        row.created_at = datetime.now(UTC) - timedelta(days=40)
        session.add(row)
    today = datetime.now(UTC).date()
    earlier = {"date_from": str(today - timedelta(days=45)), "date_to": str(today - timedelta(days=35))}
    assert register(client, admin_headers, **earlier) == []
    deliver(client, order["id"], admin_headers)
    assert register(client, admin_headers, **earlier) == []  # closed: nothing moves into it
    (receipt,) = register(client, admin_headers, date_from=str(today), date_to=str(today))
    assert (receipt["order_id"], receipt["number"]) == (order["id"], order_row(order["id"]).receipt_number)
    assert client.get(f"/api/orders/{order['id']}/", headers=admin_headers).json()["receipt_number"] == receipt[
        "number"]


def test_the_register_is_for_admins_only(client, customer_headers, admin):
    assert client.get(DOCUMENTS_CSV).status_code == 401
    assert client.get(DOCUMENTS_CSV, headers=customer_headers).status_code == 403
    orders_token = exports.download_token(admin, "orders")
    assert client.get(DOCUMENTS_CSV, params={"token": orders_token}).status_code == 401  # one export only
    token = exports.download_token(admin, "documents")
    assert client.get(DOCUMENTS_CSV, params={"token": token}).status_code == 200
    bad = client.get(DOCUMENTS_CSV, params={"token": token, "date_from": "2026-13-01"})
    assert bad.status_code == 400 and "date_from" in bad.text
