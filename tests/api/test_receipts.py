"""Numbered receipts (issue 33, item 3): given when the money is in, gap-free per prefix and year,
read as JSON and PDF by the owner and admins only."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import receipts
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..builders.checkout import order_row
from ..builders.payments import minor, pay, place_order, post_webhook

NUMBER = re.compile(r"^DD-(\d{4})-(\d{6})$")


def receipt_url(order_id: str, pdf: bool = False) -> str:
    return f"/api/orders/{order_id}/receipt.pdf" if pdf else f"/api/orders/{order_id}/receipt/"


def test_before_the_money_is_in_the_receipt_is_409_not_paid(client, customer, make_product):
    order = place_order(client, customer, make_product)
    for pdf in (False, True):
        response = client.get(receipt_url(order["id"], pdf), headers=auth_headers(customer))
        assert response.status_code == 409
        assert response.json() == {"detail": receipts.NOT_PAID_TEXT, "code": "not_paid"}
    assert order_row(order["id"]).receipt_number is None


def test_a_paid_mobile_money_order_gets_the_next_number(client, customer, make_product):
    first, second = place_order(client, customer, make_product), place_order(client, customer, make_product)
    pay(client, second)
    pay(client, first)
    year = datetime.now(UTC).year
    assert order_row(second["id"]).receipt_number == f"DD-{year}-000001"
    assert order_row(first["id"]).receipt_number == f"DD-{year}-000002"
    body = client.get(receipt_url(first["id"]), headers=auth_headers(customer)).json()
    assert body["number"] == f"DD-{year}-000002" and body["issued_at"].startswith(str(year))
    assert body["order"] == first["id"]
    assert body["buyer"]["email"] == customer.email
    assert body["lines"] == [{"name": body["lines"][0]["name"], "quantity": 2, "unit_price": "12.00", "total": "24.00"}]
    assert (body["subtotal"], body["tax"], body["total"], body["currency"]) == ("24.00", "1.92", "31.91", "USD")
    assert body["tax_lines"] == [{"code": "tax", "label": "Tax", "rate": "8.00", "amount": "1.92", "included": False}]
    assert body["payment"] == {"method": "mobile_money", "network": "mtn", "reference": first["payment_reference"],
                               "test": True}
    assert body["seller"] == {"name": "Discount Deals", "address": "", "tin": ""}


def test_a_repeated_payment_report_keeps_the_number(client, customer, make_product):
    order = place_order(client, customer, make_product)
    pay(client, order)
    number = order_row(order["id"]).receipt_number
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert order_row(order["id"]).receipt_number == number
    with session_scope() as session:
        assert session.exec(select(models.ReceiptCounter.last_number)).all() == [1]


def test_a_cash_order_gets_its_receipt_when_delivered_and_the_email_links_it(
    client, customer, make_product, admin_headers
):
    order = place_order(client, customer, make_product, body={})
    for status in ("processing", "shipped"):
        client.patch(f"/api/orders/{order['id']}/", json={"status": status}, headers=admin_headers)
        assert order_row(order["id"]).receipt_number is None
    client.patch(f"/api/orders/{order['id']}/", json={"status": "delivered"}, headers=admin_headers)
    row = order_row(order["id"])
    assert NUMBER.match(row.receipt_number) and row.payment_status == "paid"
    body = client.get(receipt_url(order["id"]), headers=auth_headers(customer)).json()
    assert body["payment"]["method"] == "cash_on_delivery" and body["number"] == row.receipt_number
    with session_scope() as session:
        email = session.exec(select(models.OutboxMessage).where(
            models.OutboxMessage.kind == "order_delivered", models.OutboxMessage.channel == "email",
            models.OutboxMessage.subject_id == order["id"])).one()
    assert f"/orders/{order['id']}/receipt" in email.body_text and row.receipt_number in email.body_text
    assert f"/orders/{order['id']}/receipt" in email.body_html


def test_only_the_owner_and_admins_see_a_receipt(client, customer, make_user, make_product, admin_headers):
    order = place_order(client, customer, make_product)
    pay(client, order)
    stranger = auth_headers(make_user())
    for pdf in (False, True):
        response = client.get(receipt_url(order["id"], pdf), headers=stranger)
        assert response.status_code == 404 and response.json() == {"detail": "Order not found."}
        assert client.get(receipt_url(order["id"], pdf), headers=admin_headers).status_code == 200
        assert client.get(receipt_url(order["id"], pdf)).status_code == 401
    assert client.get(receipt_url("no-such-order"), headers=auth_headers(customer)).status_code == 404


def test_the_pdf_is_one_page_with_the_receipt(client, customer, make_product):
    order = place_order(client, customer, make_product)
    pay(client, order)
    response = client.get(receipt_url(order["id"], pdf=True), headers=auth_headers(customer))
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    number = order_row(order["id"]).receipt_number
    assert f'filename="receipt-{number}.pdf"' in response.headers["content-disposition"]
    pdf = response.content
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1  # page objects are never compressed
    assert re.search(rb"/Count\s+1\b", pdf)
    assert f"Receipt {number}".encode() in pdf  # the document's title (its /Info dictionary)


def test_the_seller_comes_from_settings(client, customer, make_product, monkeypatch):
    monkeypatch.setenv("DD_RECEIPT_PREFIX", "acc1")
    monkeypatch.setenv("DD_SELLER_TIN", "C0012345678")
    monkeypatch.setenv("DD_SELLER_ADDRESS", "12 Ring Road, Accra")
    get_settings.cache_clear()
    try:
        order = place_order(client, customer, make_product)
        pay(client, order)
        body = client.get(receipt_url(order["id"]), headers=auth_headers(customer)).json()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert re.match(r"^ACC1-\d{4}-000001$", body["number"])
    assert body["seller"] == {"name": "Discount Deals", "address": "12 Ring Road, Accra", "tin": "C0012345678"}


PAYERS = 8


def test_concurrent_payments_get_distinct_consecutive_numbers(api_app, client, make_user, make_product):
    orders = [place_order(client, make_user(), make_product) for _ in range(PAYERS)]
    start = threading.Barrier(PAYERS)
    statuses: list[int] = []
    lock = threading.Lock()

    def report(order: dict) -> None:
        own_client = TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False)
        start.wait()
        response = post_webhook(own_client, "charge.success", order["payment_reference"], minor(order["total"]))
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=report, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert statuses == [200] * PAYERS
    numbers = sorted(order_row(order["id"]).receipt_number for order in orders)
    year = datetime.now(UTC).year
    assert numbers == [f"DD-{year}-{n:06d}" for n in range(1, PAYERS + 1)]


def test_a_rolled_back_payment_leaves_no_gap(client, customer, make_product):
    order = place_order(client, customer, make_product)
    with pytest.raises(RuntimeError):
        with session_scope() as session:
            receipts.issue_receipt(session, session.get(models.Order, order["id"]))
            session.flush()
            raise RuntimeError("the payment's transaction fails after the number was counted")
    assert order_row(order["id"]).receipt_number is None
    with session_scope() as session:
        number = receipts.issue_receipt(session, session.get(models.Order, order["id"]))
    assert NUMBER.match(number).group(2) == "000001"


def test_each_year_counts_from_one(client, customer, make_product):
    late, early = place_order(client, customer, make_product), place_order(client, customer, make_product)
    with session_scope() as session:
        assert receipts.issue_receipt(session, session.get(models.Order, late["id"]),
                                      datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == "DD-2026-000001"
        assert receipts.issue_receipt(session, session.get(models.Order, early["id"]),
                                      datetime(2027, 1, 1, 0, 1, tzinfo=UTC)) == "DD-2027-000001"


def test_the_receipt_page_reads_the_owners_own_receipt(client, customer, admin, make_product):
    from discount_deals.services import NotFound, ServiceError
    from discount_deals.state.account.receipt import read_receipt

    order = place_order(client, customer, make_product)
    with pytest.raises(ServiceError) as refused:
        read_receipt(customer, order["id"])
    assert refused.value.code == "not_paid"
    pay(client, order)
    assert read_receipt(customer, order["id"]).number == order_row(order["id"]).receipt_number
    with pytest.raises(NotFound):
        read_receipt(admin, order["id"])  # admins read other people's orders in /admin


def test_the_order_page_links_the_receipt_once_there_is_one(client, customer, make_product):
    from discount_deals.state.account.order_detail import read_order

    order = place_order(client, customer, make_product)
    assert read_order(customer, order["id"])[0].receipt_number is None
    pay(client, order)
    assert NUMBER.match(read_order(customer, order["id"])[0].receipt_number)
