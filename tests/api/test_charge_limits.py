"""How often an order may be charged (issue 32, item 5): one live charge at a time (409), at most
three per order per half hour (429 with Retry-After), the stock hold never extended, decided one
request at a time under concurrent presses (threads against the real app)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import Conflict, payments
from discount_deals.services.payments import charges

from ..support.paystack import paystack_unreachable
from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.payments import payments_of
from ..builders.shop import add_address

DECLINED_AT_ONCE = {**MOMO, "phone": "024 123 0000"}  # the fake provider declines this number at once


@pytest.fixture
def momo(client, customer, customer_headers, make_product):
    """Place a mobile-money order: ``momo(body)`` → order JSON."""
    add_address(customer, is_default=True)

    def order(body: dict) -> dict:
        fill_cart(client, customer_headers, (make_product(price="20.00", stock=5), 1))
        return place(client, customer_headers, body)

    return order


def pay(client, headers, order_id: str):
    return client.post(f"/api/orders/{order_id}/pay/", headers=headers)


def age_charges(order_id: str, by: timedelta) -> None:
    """Make the order's charges look ``by`` older (as if the shopper came back later)."""
    with session_scope() as session:
        for payment in session.exec(select(models.Payment).where(models.Payment.order_id == order_id)):
            payment.created_at = payment.created_at - by
            session.add(payment)


def test_a_new_charge_is_refused_while_the_current_one_waits(client, customer_headers, momo):
    order = momo(MOMO)  # the fake provider: approve the prompt on the phone
    assert order["payment_step"] == "pay_offline"
    refused = pay(client, customer_headers, order["id"])
    assert refused.status_code == 409
    assert refused.json()["detail"] == charges.CHARGE_IN_PROGRESS
    assert len(payments_of(order["id"])) == 1
    assert order_row(order["id"]).payment_reference == order["payment_reference"]


def test_a_charge_nobody_settled_for_ten_minutes_may_be_replaced(client, customer_headers, momo):
    order = momo(MOMO)
    age_charges(order["id"], charges.CHARGE_LIFETIME + timedelta(seconds=1))
    again = pay(client, customer_headers, order["id"])
    assert again.status_code == 200, again.text
    assert again.json()["payment_reference"] != order["payment_reference"]
    assert len(payments_of(order["id"])) == 2


def test_the_fourth_charge_in_half_an_hour_waits_and_the_hold_never_moves(client, customer_headers, momo):
    order = momo(DECLINED_AT_ONCE)
    due = order_row(order["id"]).payment_due_at
    assert order["payment_status"] == "failed"
    for _ in range(2):
        again = pay(client, customer_headers, order["id"])
        assert again.status_code == 200, again.text
        assert again.json()["payment_status"] == "failed"
    refused = pay(client, customer_headers, order["id"])
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many payment attempts for this order. Please try again in ")
    assert 1500 < int(refused.headers["Retry-After"]) <= 1800
    assert len(payments_of(order["id"])) == 3  # nothing written by the refusal
    assert order_row(order["id"]).payment_due_at == due


def test_the_limit_counts_only_the_last_half_hour(client, customer, customer_headers, momo):
    order = momo(DECLINED_AT_ONCE)
    for _ in range(2):
        pay(client, customer_headers, order["id"])
    with session_scope() as session:
        row = session.get(models.Order, order["id"])
        with pytest.raises(payments.TooManyCharges) as refused:
            charges.check_new_charge(session, row)
        assert refused.value.code == "too_many_charges" and refused.value.status == 429
        later = datetime.now(UTC) + charges.CHARGE_WINDOW + timedelta(seconds=1)
        charges.check_new_charge(session, row, now=later)  # the window has passed: allowed


def test_the_refusals_carry_codes(client, customer_headers, momo):
    order = momo(MOMO)
    with session_scope() as session:
        with pytest.raises(Conflict) as refused:
            charges.check_new_charge(session, session.get(models.Order, order["id"]))
    assert refused.value.code == "charge_in_progress"


def test_a_charge_the_provider_never_got_does_not_block_the_next(client, customer, customer_headers, make_product,
                                                                 monkeypatch):
    with paystack_unreachable(monkeypatch):
        add_address(customer, is_default=True)
        fill_cart(client, customer_headers, (make_product(stock=3), 1))
        order = place(client, customer_headers, MOMO)
        assert [p.provider_data.get(charges.UNSENT) is not None for p in payments_of(order["id"])] == [True]
        assert pay(client, customer_headers, order["id"]).status_code == 502
        assert pay(client, customer_headers, order["id"]).status_code == 502
        assert pay(client, customer_headers, order["id"]).status_code == 429


def _press_pay_at_once(api_app, headers, order_id: str, presses: int) -> Counter:
    start = threading.Barrier(presses)
    statuses: Counter = Counter()
    lock = threading.Lock()

    def press() -> None:
        # One client per thread: separate connections, as separate tabs would have.
        own_client = TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False)
        start.wait()
        response = pay(own_client, headers, order_id)
        with lock:
            statuses[response.status_code] += 1

    threads = [threading.Thread(target=press) for _ in range(presses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses


def test_presses_at_once_start_one_charge(api_app, client, customer_headers, momo):
    order = momo(MOMO)
    client.post(order["payment_url"] + "decline/", follow_redirects=False)  # the charge failed: pay again
    due = order_row(order["id"]).payment_due_at
    statuses = _press_pay_at_once(api_app, customer_headers, order["id"], 12)
    assert statuses == {200: 1, 409: 11}, statuses
    assert len(payments_of(order["id"])) == 2
    assert order_row(order["id"]).payment_due_at == due


def test_presses_at_once_make_at_most_three_charges(api_app, client, customer_headers, momo):
    order = momo(DECLINED_AT_ONCE)
    statuses = _press_pay_at_once(api_app, customer_headers, order["id"], 12)
    # Refused while another press's charge is on its way to the provider (409), or once three
    # were made (429): never a fourth charge, however the presses fall.
    charges_made = len(payments_of(order["id"]))
    assert charges_made <= 3 and statuses[200] == charges_made - 1, statuses
    assert statuses[200] + statuses[409] + statuses[429] == 12, statuses
    # Pressing on, one at a time, reaches the limit and stays there.
    answers = [pay(client, customer_headers, order["id"]).status_code for _ in range(4)]
    assert answers == [200] * (3 - charges_made) + [429] * (1 + charges_made), answers
    assert len(payments_of(order["id"])) == 3
