"""Every state of a mobile-money charge, over HTTP: Paystack's charge API against a local server
shaped like it (send_otp → the voucher, pay_offline → the prompt on the phone, pending, success,
failed, polling no more often than every 10 s), the fake provider playing each state by test
number, the network guessed from the number and changed by the shopper, and test payments."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from discount_deals.services import payments
from discount_deals.services.orders.expiry import release_expired_payments

from ..builders.payments import WEBHOOK, minor, payments_of, signed
from ..builders.checkout import after_deadline, fill_cart, order_row, place
from ..support.paystack import VOUCHER
from ..builders.shop import add_address



@pytest.fixture
def momo(client, customer, customer_headers, make_product):
    """Place a mobile-money order for one product of 20.00: ``momo(phone, **body)`` → order JSON."""
    add_address(customer, is_default=True)

    def order(phone: str, expect: int = 201, **body) -> dict:
        fill_cart(client, customer_headers, (make_product(price="20.00", stock=5), 1))
        return place(client, customer_headers, {"payment_method": "mobile_money", "phone": phone, **body},
                     expect=expect)

    return order


def _order(client, headers, order_id: str) -> dict:
    return client.get(f"/api/orders/{order_id}/", headers=headers).json()


# --- Paystack's charge API ---------------------------------------------------------------------------


def test_paystack_pay_offline_is_polled_at_most_every_ten_seconds(client, customer, customer_headers, momo,
                                                                  paystack):
    order = momo("055 123 4987")
    (sent,) = paystack.calls("/charge")
    assert sent["mobile_money"] == {"phone": "0551234987", "provider": "mtn"}
    assert (sent["currency"], sent["amount"], sent["email"]) == ("GHS", minor(order["total"]), customer.email)
    assert sent["reference"] == order["payment_reference"]
    assert (order["payment_step"], order["payment_network"], order["phone"]) == ("pay_offline", "mtn", "+233551234987")
    assert order["payment_prompt"] == "Please complete authorization process on your mobile phone"
    assert (order["payment_url"], order["payment_test"], order["currency"]) == (None, False, "GHS")

    check = f"/api/orders/{order['id']}/pay/check/"
    assert client.post(check, headers=customer_headers).json()["payment_step"] == "pay_offline"
    assert client.post(check, headers=customer_headers).status_code == 200  # too soon: the provider is not asked
    assert len([r for r in paystack.requests if r[0] == "GET"]) == 1
    paystack.status[order["payment_reference"]] = "success"
    soon = datetime.now(UTC) + timedelta(seconds=5)
    assert payments.check_payment(customer, order["id"], now=soon).payment_status == "awaiting_payment"
    later = datetime.now(UTC) + timedelta(seconds=11)
    assert payments.check_payment(customer, order["id"], now=later).payment_status == "paid"
    assert [r[1] for r in paystack.requests if r[0] == "GET"] == [f"/charge/{order['payment_reference']}"] * 2
    paid = _order(client, customer_headers, order["id"])
    assert (paid["payment_status"], paid["payment_step"], paid["payment_prompt"]) == ("paid", None, "")


def test_paystack_send_otp_takes_the_voucher_the_shopper_types(client, customer_headers, momo, paystack):
    order = momo("020 123 4567")
    assert paystack.calls("/charge")[0]["mobile_money"]["provider"] == "vod"
    assert (order["payment_network"], order["payment_step"]) == ("telecel", "send_otp")
    assert order["payment_prompt"].startswith("Please dial *110#")
    code = f"/api/orders/{order['id']}/pay/otp/"
    for bad in ("", "12", "12ab56", "1" * 9):
        refused = client.post(code, json={"otp": bad}, headers=customer_headers)
        assert refused.status_code == 400 and refused.json()["otp"], bad
    assert paystack.calls("/charge/submit_otp") == []
    paid = client.post(code, json={"otp": VOUCHER[:3] + " " + VOUCHER[3:]}, headers=customer_headers)
    assert paid.status_code == 200, paid.text
    assert paystack.calls("/charge/submit_otp") == [{"otp": VOUCHER, "reference": order["payment_reference"]}]
    assert (paid.json()["payment_status"], paid.json()["payment_step"]) == ("paid", None)
    assert order_row(order["id"]).payment_status == "paid"
    again = client.post(code, json={"otp": VOUCHER}, headers=customer_headers)
    assert again.status_code == 409


def test_paystack_wrong_voucher_fails_and_the_shopper_tries_again(client, customer_headers, momo, paystack):
    order = momo("050 123 4567")
    failed = client.post(f"/api/orders/{order['id']}/pay/otp/", json={"otp": "111111"}, headers=customer_headers)
    body = failed.json()
    assert (body["payment_status"], body["payment_step"], body["payment_prompt"]) == (
        "failed", None, "Insufficient funds")
    retry = client.post(f"/api/orders/{order['id']}/pay/", headers=customer_headers).json()
    assert retry["payment_reference"] != order["payment_reference"]
    assert (retry["payment_status"], retry["payment_step"]) == ("awaiting_payment", "send_otp")
    assert retry["payment_prompt"].startswith("Please dial *110#")
    assert len(paystack.calls("/charge")) == 2 and len(payments_of(order["id"])) == 2


def test_paystack_pending_then_declined_and_a_charge_declined_at_once(client, customer, customer_headers, momo,
                                                                      paystack):
    paystack.answers["0261234567"] = "pending"
    pending = momo("026 123 4567")
    assert paystack.calls("/charge")[0]["mobile_money"]["provider"] == "atl"
    assert (pending["payment_network"], pending["payment_step"], pending["payment_prompt"]) == (
        "airteltigo", "pending", "")
    paystack.status[pending["payment_reference"]] = "failed"
    later = datetime.now(UTC) + timedelta(seconds=11)
    assert payments.check_payment(customer, pending["id"], now=later).payment_status == "failed"

    paystack.answers["0241110000"] = "failed"
    declined = momo("024 111 0000")
    assert (declined["payment_status"], declined["payment_step"]) == ("failed", None)
    assert declined["payment_prompt"] == "Insufficient funds"
    assert order_row(declined["id"]).status == "pending"  # the shopper may try again until it expires


def test_paystack_verifying_a_charge_in_another_currency_flags_the_order(client, customer, momo, paystack):
    order = momo("055 123 4987")
    paystack.status[order["payment_reference"]] = "success"
    paystack.currency = "USD"
    later = datetime.now(UTC) + timedelta(seconds=11)
    assert payments.check_payment(customer, order["id"], now=later).payment_status == "awaiting_payment"
    row = order_row(order["id"])
    assert row.attention == "amount_mismatch"
    assert row.attention_note.startswith(f"Payment {order['payment_reference']} reported USD {order['total']};"), row.attention_note


def test_paystack_webhook_after_the_prompt_pays_once(client, momo, paystack):
    from discount_deals.services.payments import sign

    order = momo("024 123 4567")
    raw, _ = signed("charge.success", order["payment_reference"], minor(order["total"]), paystack.secret_key)
    response = client.post(WEBHOOK, content=raw, headers={"X-Paystack-Signature": sign(raw, paystack.secret_key)})
    assert response.json()["outcome"] == "paid"
    row = order_row(order["id"])
    assert (row.payment_status, row.payment_step) == ("paid", None)


# --- the fake provider plays every state --------------------------------------------------------------


@pytest.mark.parametrize(
    ("phone", "status", "step"),
    [("024 123 0000", "failed", None), ("024 123 1111", "awaiting_payment", "pending"),
     ("024 123 2222", "paid", None), ("024 123 3333", "awaiting_payment", "send_otp"),
     ("020 123 4444", "awaiting_payment", "pay_offline"), ("020 765 4321", "awaiting_payment", "send_otp"),
     ("055 765 4321", "awaiting_payment", "pay_offline")],
)
def test_the_fake_provider_plays_each_state_by_test_number(momo, phone, status, step):
    order = momo(phone)
    assert (order["payment_status"], order["payment_step"]) == (status, step)
    assert order["payment_test"] is True
    if step:
        assert order["payment_prompt"].startswith("Test payment")
        assert order["payment_url"].startswith("http://testserver/api/payments/fake/")


def test_the_fake_voucher(client, customer_headers, momo):
    wrong = momo("020 765 4321")
    # Issue 32: a mistyped code is a retry of the code, not a failed payment; the third declines.
    for _ in range(2):
        body = client.post(f"/api/orders/{wrong['id']}/pay/otp/", json={"otp": "999999"},
                           headers=customer_headers).json()
        assert (body["payment_status"], body["payment_step"]) == ("awaiting_payment", "send_otp")
        assert body["payment_prompt"] == "That code was not accepted: check it and type it again."
    body = client.post(f"/api/orders/{wrong['id']}/pay/otp/", json={"otp": "999999"}, headers=customer_headers).json()
    assert (body["payment_status"], body["payment_prompt"]) == ("failed", "The voucher was not accepted.")
    right = momo("020 765 4322")
    code = f"/api/orders/{right['id']}/pay/otp/"
    assert client.post(code, json={"otp": payments.TEST_VOUCHER}, headers=customer_headers).json()[
        "payment_status"] == "paid"
    prompt = momo("055 765 4321")
    refused = client.post(f"/api/orders/{prompt['id']}/pay/otp/", json={"otp": "123456"}, headers=customer_headers)
    assert refused.status_code == 409 and refused.json()["detail"] == "This payment is not waiting for a code."


def test_a_pending_charge_is_approved_on_the_test_phone_and_polling_sees_it(client, customer, customer_headers,
                                                                             momo):
    order = momo("024 123 1111")
    client.post(order["payment_url"].removeprefix("http://testserver") + "approve/", follow_redirects=False)
    assert _order(client, customer_headers, order["id"])["payment_status"] == "paid"


def test_an_expired_payment_shows_no_step(client, customer_headers, momo):
    order = momo("024 123 4567")
    assert release_expired_payments(after_deadline(order["id"])) == 1
    expired = _order(client, customer_headers, order["id"])
    assert (expired["status"], expired["payment_status"], expired["payment_step"]) == ("cancelled", "failed", None)
    assert order_row(order["id"]).payment_step == "expired"
    assert client.post(f"/api/orders/{order['id']}/pay/otp/", json={"otp": "123456"},
                       headers=customer_headers).status_code == 409


def test_cash_orders_are_no_test_payments(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(stock=2), 1))
    order = place(client, customer_headers, {})
    assert (order["payment_test"], order["payment_step"], order["phone"]) == (False, None, None)


# --- numbers and networks --------------------------------------------------------------------------------


@pytest.mark.parametrize("written", ["020 123 4567", "0201234567", "+233 20 123 4567", "233201234567",
                                     "+233-20-123-4567"])
def test_numbers_are_stored_as_e164_and_the_network_is_guessed(momo, written):
    order = momo(written)
    assert (order["phone"], order["payment_phone"], order["payment_network"]) == (
        "+233201234567", "020 123 4567", "telecel")
    assert order_row(order["id"]).payment_phone == "+233201234567"


@pytest.mark.parametrize(("number", "network"), [("024", "mtn"), ("025", "mtn"), ("053", "mtn"), ("054", "mtn"),
                                                 ("055", "mtn"), ("059", "mtn"), ("020", "telecel"),
                                                 ("050", "telecel"), ("026", "airteltigo"), ("027", "airteltigo"),
                                                 ("056", "airteltigo"), ("057", "airteltigo")])
def test_every_prefix_guesses_its_network(momo, number, network):
    assert momo(f"{number} 765 4321")["payment_network"] == network


def test_the_shopper_changes_the_guess(momo):
    ported = momo("020 765 4321", payment_network="mtn")
    assert (ported["payment_network"], ported["payment_step"]) == ("mtn", "pay_offline")
    assert order_row(ported["id"]).payment_network == "mtn"
    assert momo("024 765 4321", network="airteltigo")["payment_network"] == "airteltigo"  # the former name
    both = momo("024 765 4321", network="mtn", payment_network="telecel")
    assert both["payment_network"] == "telecel"


@pytest.mark.parametrize(("body", "field"), [({"payment_network": "vodafone"}, "payment_network"),
                                             ({"phone": "030 123 4567"}, "phone"),
                                             ({"phone": "+233 020 123 4567"}, "phone"),
                                             ({"phone": "+44 7911 123456"}, "phone")])
def test_bad_numbers_and_networks_are_refused(client, customer_headers, momo, body, field):
    refused = momo(**{"phone": "024 123 4567", **body}, expect=400)
    assert refused[field if field != "payment_network" else "network"]
    assert client.get("/api/orders/", headers=customer_headers).json()["count"] == 0
