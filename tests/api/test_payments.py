"""Mobile-money payments over HTTP: the fake provider's page, the signed webhook (signature,
replay, amount mismatch), paying again, the unpaid-order timeout, and a Paystack-compatible
provider that cannot be reached (Paystack's charge states: test_payment_steps.py)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from discount_deals.services import NotFound, payments
from discount_deals.services.orders.expiry import release_expired_payments
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..support.paystack import paystack_unreachable
from ..builders.checkout import MOMO, after_deadline, events, fill_cart, order_row, place
from ..builders.payments import WEBHOOK, minor, payments_of, post_webhook, signed
from ..builders.shop import add_address
from ..builders.catalog import stock_of


@pytest.fixture
def momo_order(client, customer, customer_headers, make_product):
    """A mobile-money order for 2 of a product with 5 in stock (3 left while it awaits payment)."""
    add_address(customer, is_default=True)
    product = make_product(price="12.00", stock=5)
    fill_cart(client, customer_headers, (product, 2))
    order = place(client, customer_headers, MOMO)
    order["product"] = product
    return order


def payment_events(order_id: str) -> list[str]:
    return [event.to_value for event in events(order_id, "payment")]


# --- the fake provider -----------------------------------------------------------------------------


def test_approving_on_the_fake_page_pays_the_order(client, customer_headers, momo_order):
    url = momo_order["payment_url"]
    page = client.get(url)
    assert page.status_code == 200
    assert momo_order["total"] == "31.91"  # 24.00 + 5.99 delivery + 1.92 tax
    assert "$31.91" in page.text and "024 123 4567" in page.text
    response = client.post(url + "approve/", follow_redirects=False)
    assert response.status_code == 303
    reference = momo_order["payment_reference"]
    assert response.headers["location"] == f"http://testserver/orders/{momo_order['id']}?reference={reference}"
    order = client.get(f"/api/orders/{momo_order['id']}/", headers=customer_headers).json()
    assert order["payment_status"] == "paid"
    assert order["payment_url"] is None
    assert order["history"][-1]["to"] == "paid"
    assert events(momo_order["id"], "payment")[-1].actor_label == "payment provider"
    assert payments_of(momo_order["id"])[0].status == "success"
    # Back on the page after deciding: straight back to the order, nothing sent twice.
    again = client.get(url, follow_redirects=False)
    assert again.status_code == 303
    assert payment_events(momo_order["id"]) == ["paid"]


def test_declining_keeps_the_stock_and_paying_again_works(client, customer_headers, momo_order):
    client.post(momo_order["payment_url"] + "decline/", follow_redirects=False)
    order = client.get(f"/api/orders/{momo_order['id']}/", headers=customer_headers).json()
    assert (order["status"], order["payment_status"]) == ("pending", "failed")
    assert stock_of(momo_order["product"].id) == 3  # still held for the shopper

    retry = client.post(f"/api/orders/{momo_order['id']}/pay/", headers=customer_headers)
    assert retry.status_code == 200, retry.text
    body = retry.json()
    assert body["payment_status"] == "awaiting_payment"
    assert body["payment_reference"] != momo_order["payment_reference"]
    client.post(body["payment_url"] + "approve/", follow_redirects=False)
    assert order_row(momo_order["id"]).payment_status == "paid"
    assert payment_events(momo_order["id"]) == ["failed", "awaiting_payment", "paid"]
    # Nothing is owed any more.
    assert client.post(f"/api/orders/{momo_order['id']}/pay/", headers=customer_headers).status_code == 409


def test_paying_is_only_for_unpaid_mobile_money_orders(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(), 1))
    cash = place(client, customer_headers, {})
    assert client.post(f"/api/orders/{cash['id']}/pay/", headers=customer_headers).status_code == 409
    assert client.post("/api/orders/no-such-order/pay/", headers=customer_headers).status_code == 404


def test_the_fake_page_is_not_found_for_unknown_references(client):
    assert client.get("/api/payments/fake/DD-nothing/").status_code == 404
    assert client.post("/api/payments/fake/DD-nothing/approve/").status_code == 404


# --- the webhook -------------------------------------------------------------------------------------


def test_a_signed_success_pays_the_order(client, momo_order):
    response = post_webhook(client, "charge.success", momo_order["payment_reference"], minor(momo_order["total"]))
    assert response.status_code == 200
    assert response.json()["outcome"] == "paid"
    assert order_row(momo_order["id"]).payment_status == "paid"


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no signature
        {"X-Signature": "0" * 128},
        {"X-Signature": "not hex at all"},
    ],
)
def test_a_bad_signature_is_a_401_and_changes_nothing(client, momo_order, headers):
    before = events(momo_order["id"])
    response = post_webhook(client, "charge.success", momo_order["payment_reference"], minor(momo_order["total"]),
                            headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 401
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"
    assert payments_of(momo_order["id"])[0].status == "pending"
    assert len(events(momo_order["id"])) == len(before)


def test_a_signature_made_with_another_secret_or_over_another_body_is_refused(client, momo_order):
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    assert post_webhook(client, "charge.success", reference, amount, secret="guessed").status_code == 401
    raw, headers = signed("charge.success", reference, amount)
    tampered = raw.replace(b"charge.success", b"charge.failed")
    assert client.post(WEBHOOK, content=tampered, headers=headers).status_code == 401
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"


def test_a_replayed_event_changes_nothing_twice(client, momo_order):
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    first = post_webhook(client, "charge.success", reference, amount)
    replay = post_webhook(client, "charge.success", reference, amount)
    late_failure = post_webhook(client, "charge.failed", reference, amount)
    assert [r.status_code for r in (first, replay, late_failure)] == [200, 200, 200]
    assert [r.json()["outcome"] for r in (first, replay, late_failure)] == ["paid", "duplicate", "duplicate"]
    assert payment_events(momo_order["id"]) == ["paid"]
    assert order_row(momo_order["id"]).payment_status == "paid"


def test_a_replayed_failure_is_recorded_once(client, momo_order):
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    assert post_webhook(client, "charge.failed", reference, amount).json()["outcome"] == "failed"
    assert post_webhook(client, "charge.failed", reference, amount).json()["outcome"] == "duplicate"
    assert payment_events(momo_order["id"]) == ["failed"]


def test_a_payment_in_another_currency_flags_the_order_instead_of_paying_it(client, momo_order):
    """The right number of minor units in another currency is not the order's total: a webhook
    that names a currency other than the payment's is flagged like another amount."""
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    response = post_webhook(client, "charge.success", reference, amount, currency="NGN")
    assert (response.status_code, response.json()["outcome"]) == (200, "mismatch")
    row = order_row(momo_order["id"])
    assert (row.payment_status, row.attention) == ("awaiting_payment", "amount_mismatch")
    assert row.attention_note.startswith(f"Payment {reference} reported NGN 31.91;")
    assert payments_of(momo_order["id"])[0].provider_data["reported_currency"] == "NGN"


@pytest.mark.parametrize("currency", ["usd", "USD", None])
def test_a_payment_in_the_orders_currency_pays_it_whether_or_not_it_is_named(client, momo_order, currency):
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    named = {} if currency is None else {"currency": currency}
    assert post_webhook(client, "charge.success", reference, amount, **named).json()["outcome"] == "paid"
    assert order_row(momo_order["id"]).payment_status == "paid"


@pytest.mark.parametrize("currency", ["US$", 840, "dollars"])
def test_a_currency_that_is_no_code_flags_the_order(client, momo_order, currency):
    reference, amount = momo_order["payment_reference"], minor(momo_order["total"])
    assert post_webhook(client, "charge.success", reference, amount, currency=currency).json()["outcome"] == "mismatch"
    row = order_row(momo_order["id"])
    assert (row.payment_status, row.attention) == ("awaiting_payment", "amount_mismatch")
    assert row.attention_note.startswith(f"Payment {reference} reported 31.91 in a currency it named by no code;")


def test_another_amount_flags_the_order_instead_of_paying_it(client, admin_headers, customer_headers, momo_order):
    reference = momo_order["payment_reference"]
    response = post_webhook(client, "charge.success", reference, minor(momo_order["total"]) - 100)
    assert response.status_code == 200
    assert response.json()["outcome"] == "mismatch"
    row = order_row(momo_order["id"])
    assert row.payment_status == "awaiting_payment"
    assert row.attention == "amount_mismatch"
    assert "the order total is USD" in row.attention_note
    # A replay does not flag it twice, and a correct amount afterwards does not override the check.
    assert post_webhook(client, "charge.success", reference, minor(momo_order["total"])).json()["outcome"] == "duplicate"
    assert [e.to_value for e in events(momo_order["id"], "attention")] == ["amount_mismatch"]
    # The shopper is not offered to pay it again while our team checks it (services/orders/rules.py),
    # and the API refuses a new charge for the same reason.
    seen = client.get(f"/api/orders/{momo_order['id']}/", headers=customer_headers).json()
    assert (seen["payment_url"], seen["can_cancel"]) == (None, True)
    again = client.post(f"/api/orders/{momo_order['id']}/pay/", headers=customer_headers)
    assert again.status_code == 409
    # The back office finds it; it cannot be processed until an admin acts.
    flagged = client.get("/api/admin/orders/", params={"attention": "1"}, headers=admin_headers).json()
    assert [o["id"] for o in flagged["results"]] == [momo_order["id"]]
    refused = client.patch(f"/api/orders/{momo_order['id']}/", json={"status": "processing"}, headers=admin_headers)
    assert refused.status_code == 400
    # The timer leaves a flagged order alone.
    assert release_expired_payments(after_deadline(momo_order["id"])) == 0
    assert order_row(momo_order["id"]).status == "pending"


def test_a_decimal_amount_is_read_as_cedis(client, momo_order):
    response = post_webhook(client, "charge.success", momo_order["payment_reference"], momo_order["total"])
    assert response.json()["outcome"] == "paid"


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[]", b'{"event": "charge.success"}', b'{"event": "charge.success", "data": {"amount": 1}}',
     b'{"event": "charge.success", "data": {"reference": "x", "amount": true}}'],
)
def test_a_malformed_body_is_a_400(client, body):
    from discount_deals.services.payments import sign

    headers = {"X-Signature": sign(body, get_settings().checkout.webhook_secret)}
    assert client.post(WEBHOOK, content=body, headers=headers).status_code == 400


def test_an_oversized_body_is_refused(client, momo_order):
    raw = b'{"event": "charge.success", "data": {"reference": "x", "amount": 1, "pad": "' + b"x" * 70_000 + b'"}}'
    assert client.post(WEBHOOK, content=raw, headers={"X-Signature": "0"}).status_code == 413
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"


def test_unknown_events_and_references_are_acknowledged(client, momo_order):
    raw = json.dumps({"event": "transfer.success", "data": {"reference": "x"}}).encode()
    from discount_deals.services.payments import sign

    headers = {"X-Signature": sign(raw, get_settings().checkout.webhook_secret)}
    assert client.post(WEBHOOK, content=raw, headers=headers).json()["outcome"] == "ignored"
    assert post_webhook(client, "charge.success", "DD-unknown", 100).json()["outcome"] == "unknown"
    assert order_row(momo_order["id"]).payment_status == "awaiting_payment"


# --- the timeout -------------------------------------------------------------------------------------


def test_unpaid_orders_give_their_stock_back_once_after_the_timeout(client, customer_headers, momo_order):
    product = momo_order["product"]
    due = order_row(momo_order["id"]).payment_due_at
    created = order_row(momo_order["id"]).created_at
    assert round((due - created).total_seconds() / 60) == get_settings().checkout.payment_timeout_minutes
    assert release_expired_payments(datetime.now(UTC)) == 0
    assert stock_of(product.id) == 3

    assert release_expired_payments(after_deadline(momo_order["id"])) == 1
    order = client.get(f"/api/orders/{momo_order['id']}/", headers=customer_headers).json()
    assert (order["status"], order["payment_status"]) == ("cancelled", "failed")
    assert order["payment_url"] is None
    assert stock_of(product.id) == 5
    assert release_expired_payments(after_deadline(momo_order["id"])) == 0
    assert stock_of(product.id) == 5
    # The shopper cannot pay for it any more, nor cancel it again.
    assert client.post(f"/api/orders/{momo_order['id']}/pay/", headers=customer_headers).status_code == 409
    assert client.post(f"/api/orders/{momo_order['id']}/cancel/", headers=customer_headers).status_code == 409
    assert stock_of(product.id) == 5


def test_a_payment_after_the_release_is_flagged_as_a_refund(client, admin_headers, momo_order):
    release_expired_payments(after_deadline(momo_order["id"]))
    response = post_webhook(client, "charge.success", momo_order["payment_reference"], minor(momo_order["total"]))
    assert response.json()["outcome"] == "paid"
    row = order_row(momo_order["id"])
    assert (row.status, row.payment_status, row.attention) == ("cancelled", "paid", "refund_due")
    assert stock_of(momo_order["product"].id) == 5  # the order stays cancelled: nothing taken twice
    refunded = client.post(f"/api/admin/orders/{momo_order['id']}/refunded/", headers=admin_headers)
    assert refunded.status_code == 200
    assert (refunded.json()["payment_status"], refunded.json()["attention"]) == ("refunded", None)
    # what was paid went back: the order, its row and the orders CSV say so (they said 0.00)
    assert refunded.json()["refunded_total"] == momo_order["total"]
    assert order_row(momo_order["id"]).refunded_total == Decimal(momo_order["total"])
    exported = client.get("/api/admin/exports/orders.csv", headers=admin_headers).text
    (row,) = [line for line in csv.DictReader(io.StringIO(exported)) if line["order_id"] == momo_order["id"]]
    assert (row["payment_status"], row["order_refunded"]) == ("refunded", momo_order["total"])
    assert client.post(f"/api/admin/orders/{momo_order['id']}/refunded/", headers=admin_headers).status_code == 409


def test_cash_orders_never_expire(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    product = make_product(stock=2)
    fill_cart(client, customer_headers, (product, 1))
    order = place(client, customer_headers, {})
    assert order_row(order["id"]).payment_due_at is None
    assert release_expired_payments(datetime(2100, 1, 1, tzinfo=UTC)) == 0
    assert stock_of(product.id) == 1


def test_the_timer_loop_releases_orders(momo_order, monkeypatch):
    import asyncio

    from discount_deals.server import timers

    calls = []
    monkeypatch.setattr(timers, "release_expired_payments", lambda: calls.append(1) or 0)

    async def run_until_it_ran_twice():
        task = asyncio.create_task(timers.release_unpaid_orders(interval=0.01))
        # Until the loop has run twice (or 5 s): a fixed 50 ms saw one run on a loaded CI machine.
        for _ in range(500):
            if len(calls) >= 2:
                break
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(run_until_it_ran_twice())
    assert len(calls) >= 2


def test_an_unreachable_provider_leaves_the_order_waiting(client, customer, customer_headers, make_product, monkeypatch):
    with paystack_unreachable(monkeypatch):
        add_address(customer, is_default=True)
        product = make_product(stock=3)
        fill_cart(client, customer_headers, (product, 1))
        order = place(client, customer_headers, MOMO)
        assert (order["payment_status"], order["payment_url"]) == ("awaiting_payment", None)
        assert stock_of(product.id) == 2
        retry = client.post(f"/api/orders/{order['id']}/pay/", headers=customer_headers)
        assert retry.status_code == 502
        assert retry.json()["detail"] == "The payment provider could not be reached. Please try again."


def test_paystack_needs_its_secret_key(monkeypatch):
    monkeypatch.setenv("DD_PAYMENT_PROVIDER", "paystack")
    monkeypatch.delenv("DD_PAYSTACK_SECRET_KEY", raising=False)
    get_settings.cache_clear()
    try:
        with pytest.raises(ValueError, match="DD_PAYSTACK_SECRET_KEY"):
            get_settings()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_other_users_cannot_check_or_pay(client, make_user, momo_order):
    stranger = make_user()
    with pytest.raises(NotFound):
        payments.check_payment(stranger, momo_order["id"])
    assert client.post(f"/api/orders/{momo_order['id']}/pay/", headers=auth_headers(stranger)).status_code == 404
