"""Refunds of returns (issue 33, item 4): by the way the order was paid (mobile money through the
provider, cash recorded with who and when), a numbered credit note as JSON and PDF, the order's
refunded total, and a whole order's refund moving its payment to refunded."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import returns
from discount_deals.services.payments import FakeProvider
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..unit.test_receipt_documents import page_text
from ..builders.checkout import order_row
from ..builders.payments import minor, paid_by_a_second_charge, payments_of, post_refund_webhook, post_webhook
from ..builders.messaging import set_preferences
from ..builders.shop import add_coupon
from ..builders.returns import (
    ask_return, audit_actions, deliver, delivered_order, messages_of, momo_order, return_row, returned_and_received,
    step,
)

YEAR = datetime.now(UTC).year


def credit_note_url(return_id: str, pdf: bool = False) -> str:
    return f"/api/returns/{return_id}/credit-note.pdf" if pdf else f"/api/returns/{return_id}/credit-note/"


def received_return(client, customer, admin_headers, order: dict, items) -> dict:
    ret = ask_return(client, customer, order["id"], items)
    returned_and_received(client, admin_headers, ret["id"])
    return ret


def counter_rows() -> list[tuple[str, int, int]]:
    with session_scope() as session:
        rows = session.exec(select(models.ReceiptCounter)).all()
        return sorted((row.prefix, row.year, row.last_number) for row in rows)


def test_a_cash_refund_is_recorded_with_who_and_when_and_numbered(client, customer, admin, make_product,
                                                                    admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 3))
    ret = received_return(client, customer, admin_headers, order, [(milo.id, 1)])
    early = client.get(credit_note_url(ret["id"]), headers=auth_headers(customer))
    assert early.status_code == 409 and early.json()["code"] == returns.NOT_REFUNDED
    body = step(client, admin_headers, ret["id"], "refund")
    assert body["status"] == "refunded" and body["refund_amount"] == "12.96"
    assert body["credit_note_number"] == f"CN-{YEAR}-000001" and body["refunded_by"] == admin.email
    row = return_row(ret["id"])
    assert (row.refund_method, row.refunded_by_id, row.refund_state) == ("cash", admin.id, "done")
    assert row.refunded_at is not None
    placed = order_row(order["id"])
    assert placed.refunded_total == Decimal("12.96") and placed.payment_status == "paid"  # not all of it is back
    assert client.get(f"/api/orders/{order['id']}/", headers=auth_headers(customer)).json()["refunded_total"] == "12.96"
    event = audit_actions(ret["id"])[-1]
    assert event.action == "return.refund" and event.actor_id == admin.id
    assert event.changes["status"] == ["received", "refunded"]
    assert event.changes["order_refunded_total"] == ["0.00", "12.96"]
    assert len(messages_of("return_refunded", order["id"])) == 1
    again = step(client, admin_headers, ret["id"], "refund", expect=409)
    assert again["code"] == returns.WRONG_STATUS and order_row(order["id"]).refunded_total == Decimal("12.96")


def test_the_customer_is_not_shown_which_admin_refunded(client, customer, admin, make_product, admin_headers):
    """The customer's returns, credit note and its PDF named the admin's login email."""
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    ret = received_return(client, customer, admin_headers, order, [(milo.id, 1)])
    step(client, admin_headers, ret["id"], "refund")
    mine = client.get(f"/api/orders/{order['id']}/returns/", headers=auth_headers(customer)).json()["results"]
    note = client.get(credit_note_url(ret["id"]), headers=auth_headers(customer)).json()
    pdf = page_text(client.get(credit_note_url(ret["id"], pdf=True), headers=auth_headers(customer)).content)
    assert (mine[0]["refunded_by"], note["refund"]["by"]) == ("", "")
    assert admin.email not in str(mine) + str(note) + pdf and "Refunded in cash." in pdf
    assert client.get(credit_note_url(ret["id"]), headers=admin_headers).json()["refund"]["by"] == admin.email


def test_refunding_needs_the_items_received(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    assert step(client, admin_headers, ret["id"], "refund", expect=409)["code"] == returns.WRONG_STATUS
    step(client, admin_headers, ret["id"], "approve")
    assert step(client, admin_headers, ret["id"], "refund", expect=409)["code"] == returns.WRONG_STATUS
    assert return_row(ret["id"]).credit_note_number is None and counter_rows() == [("DD", YEAR, 1)]


def test_returning_the_whole_order_in_parts_refunds_exactly_its_total(client, customer, make_product, admin_headers):
    # 3 × 3.33 + 1 × 7.77 = 17.76: its tax, 1.42, does not split evenly over the lines
    soap, oil = make_product(price="3.33", stock=20), make_product(price="7.77", stock=20)
    order = delivered_order(client, customer, admin_headers, (soap, 3), (oil, 1))
    parts = [[(soap.id, 1)], [(oil.id, 1), (soap.id, 1)], [(soap.id, 1)]]
    with session_scope() as session:  # a second payment came in: refunding the goods does not give it back
        row = session.get(models.Order, order["id"])
        row.attention, row.attention_note = "refund_due", "Paid twice: refund the second payment."
        session.add(row)
    refunded = []
    for items in parts:
        ret = received_return(client, customer, admin_headers, order, items)
        refunded.append(step(client, admin_headers, ret["id"], "refund"))
    placed = order_row(order["id"])
    assert sum(Decimal(body["refund_amount"]) for body in refunded) == placed.total
    assert sum(Decimal(body["refund_tax"]) for body in refunded) == placed.tax
    assert [body["refund_shipping"] for body in refunded] == ["0.00", "0.00", f"{placed.shipping:.2f}"]
    assert [body["credit_note_number"] for body in refunded] == [f"CN-{YEAR}-{n:06d}" for n in (1, 2, 3)]
    assert placed.refunded_total == placed.total and placed.payment_status == "refunded"
    assert (placed.attention, placed.attention_note) == ("refund_due", "Paid twice: refund the second payment.")
    assert ask_return(client, customer, order["id"], [(soap.id, 1)], expect=400)["code"] == returns.QUANTITY


def test_the_credit_notes_give_back_vat_nhil_and_getfund_each_as_the_receipt_charged(client, customer, make_product,
                                                                                     admin_headers, use_settings):
    """3 × 18.64 under Ghana's taxes, back one unit at a time: each credit note's lines sum to its
    tax, and together they reverse VAT 8.38, NHIL 1.40 and GETFund 1.40 exactly (each note used to
    split its own tax, and they reversed 8.39, 1.41 and 1.38)."""
    use_settings(DD_TAX="ghana")
    product = make_product(price="18.64", stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 3))
    receipt = client.get(f"/api/orders/{order['id']}/receipt/", headers=auth_headers(customer)).json()
    charged = {line["code"]: Decimal(line["amount"]) for line in receipt["tax_lines"]}
    assert charged == {"vat": Decimal("8.38"), "nhil": Decimal("1.40"), "getfund": Decimal("1.40")}
    given = dict.fromkeys(charged, Decimal("0.00"))
    notes = []
    for _unit in range(3):
        ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
        refunded = step(client, admin_headers, ret["id"], "refund")
        note = client.get(credit_note_url(ret["id"]), headers=auth_headers(customer)).json()
        assert sum(Decimal(line["amount"]) for line in note["tax_lines"]) == Decimal(refunded["refund_tax"])
        # kept with the return when refunded: an issued note never changes
        assert [line["amount"] for line in return_row(ret["id"]).refund_tax_lines] == \
            [line["amount"] for line in note["tax_lines"]]
        for line in note["tax_lines"]:
            given[line["code"]] += Decimal(line["amount"])
        notes.append((ret["id"], note["tax_lines"]))
    assert given == charged
    # a note refunded before the lines were kept is computed when read, to the same lines
    with session_scope() as session:
        for return_id, _lines in notes:
            row = session.get(models.ReturnRequest, return_id)
            row.refund_tax_lines = None
            session.add(row)
    for return_id, lines in notes:
        assert client.get(credit_note_url(return_id), headers=auth_headers(customer)).json()["tax_lines"] == lines


def test_a_payment_that_came_twice_stays_due_after_the_goods_are_refunded(client, customer, make_product,
                                                                          admin_headers):
    # Found by a probe: a whole-order return's refund cleared the "Paid twice" flag, so the second
    # payment was never given back (the customer paid 2 × 10.80 and got 10.80).
    product = make_product(price="10.00", stock=10)
    order, first = paid_by_a_second_charge(client, customer, product)
    deliver(client, order["id"], admin_headers)
    post_webhook(client, "charge.success", first, minor(order["total"]))  # the first one came through late
    assert order_row(order["id"]).attention == "refund_due"

    ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    assert step(client, admin_headers, ret["id"], "refund")["refund_amount"] == order["total"]
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.payment_status) == (Decimal(order["total"]), "refunded")
    assert placed.attention == "refund_due" and placed.attention_note.startswith("Paid twice")
    # The admin gives the second payment back and says so: the flag goes.
    settled = client.post(f"/api/admin/orders/{order['id']}/refunded/", json={}, headers=admin_headers)
    assert settled.status_code == 200, settled.text
    assert order_row(order["id"]).attention is None


def test_a_mobile_money_refund_goes_through_the_provider(client, customer, make_product, admin_headers):
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 1))
    ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    body = step(client, admin_headers, ret["id"], "refund")
    placed = order_row(order["id"])
    assert body["refund_method"] == "mobile_money" and body["refund_amount"] == f"{placed.total:.2f}"
    assert body["refund_provider_status"] == "processed" and body["refund_state"] == "done"
    (payment,) = payments_of(order["id"])
    assert payment.provider_data["fake"]["refunds"] == [{"id": return_row(ret["id"]).refund_reference,
                                                         "amount": int(placed.total * 100)}]
    assert placed.payment_status == "refunded" and placed.refunded_total == placed.total
    again = FakeProvider(get_settings().checkout.webhook_secret).refund(payment.reference, 1)
    assert again.status == "failed"  # nothing is left of the payment to give back


def test_a_refund_the_provider_refuses_leaves_the_return_received(client, customer, make_product, admin_headers):
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2), phone="024 123 9999")
    ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    counters, messages = counter_rows(), len(messages_of("return_refunded", order["id"]))
    for _attempt in range(2):  # a second try is refused the same way, not "in progress"
        refused = step(client, admin_headers, ret["id"], "refund", expect=502)
        assert refused["code"] == returns.REFUND_FAILED and "cannot receive refunds" in refused["detail"]
    row = return_row(ret["id"])
    assert (row.status, row.refund_state, row.credit_note_number) == ("received", "failed", None)
    assert "cannot receive refunds" in row.refund_provider_status
    placed = order_row(order["id"])
    assert placed.refunded_total == Decimal("0.00") and placed.payment_status == "paid"
    assert counter_rows() == counters and len(messages_of("return_refunded", order["id"])) == messages
    assert "return.refund" not in [event.action for event in audit_actions(ret["id"])]



def test_paystack_refunds_are_posted_to_its_refund_api(client, customer, make_product, admin_headers, paystack):
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    first = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    body = step(client, admin_headers, first["id"], "refund")
    assert paystack.calls("/refund") == [{"transaction": order["payment_reference"], "amount": 2160}]
    # Queued, not yet given back: no credit note and the order's totals untouched until Paystack confirms.
    assert (body["status"], body["refund_state"], body["refund_provider_status"], body["credit_note_number"]) == (
        "received", "pending", "pending", None)
    assert order_row(order["id"]).refunded_total == Decimal("0.00")
    refund_id = return_row(first["id"]).refund_reference
    for outcome in ("refunded", "ignored"):  # Paystack may send an event twice
        confirmed = post_refund_webhook(client, "refund.processed", order["payment_reference"], refund_id, 2160,
                                        secret=paystack.secret_key)
        assert confirmed.json()["outcome"] == outcome, confirmed.text
    row = return_row(first["id"])
    assert (row.status, row.refund_state, row.credit_note_number) == ("refunded", "done", f"CN-{YEAR}-000001")
    second = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    paystack.refunds_down = True
    down = step(client, admin_headers, second["id"], "refund", expect=502)
    assert down["code"] == returns.REFUND_FAILED and "could not be reached" in down["detail"]
    paystack.refunds_down = False
    paystack.refuse_refunds.add(order["payment_reference"])
    refused = step(client, admin_headers, second["id"], "refund", expect=502)  # tried again at once: not "in progress"
    assert refused["code"] == returns.REFUND_FAILED and "fully reversed" in refused["detail"]
    row = return_row(second["id"])
    assert (row.status, row.refund_state, row.refund_provider_status) == ("received", "failed",
                                                                          "Transaction has been fully reversed")
    assert order_row(order["id"]).refunded_total == Decimal(body["refund_amount"])
    assert [e.action for e in audit_actions(first["id"])][-2:] == ["return.refund_sent", "return.refund"]


def test_a_refund_of_nothing_is_recorded_without_asking_the_provider(client, customer, make_product, admin_headers,
                                                                    paystack):
    """A 100 % coupon left the order paying its delivery only: a unit of it goes back for 0.00.
    Paystack reads a zero amount as the whole charge, so nothing is sent; the return is refunded
    with its credit note, and the last one gives back the delivery."""
    product = make_product(price="20.00", stock=20)
    add_coupon("FREE", kind="percent", value="100")
    order = momo_order(client, customer, admin_headers, (product, 2), coupon_code="FREE")
    assert (order["discount"], order["tax"], order["total"]) == ("40.00", "0.00", "5.99")
    first = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    body = step(client, admin_headers, first["id"], "refund")
    assert (body["status"], body["refund_amount"], body["credit_note_number"] is not None) == ("refunded", "0.00", True)
    assert paystack.calls("/refund") == [] and return_row(first["id"]).refund_reference is None
    last = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    assert step(client, admin_headers, last["id"], "refund")["refund_amount"] == "5.99"
    assert paystack.calls("/refund") == [{"transaction": order["payment_reference"], "amount": 599}]
    post_refund_webhook(client, "refund.processed", order["payment_reference"], return_row(last["id"]).refund_reference,
                        599, secret=paystack.secret_key)
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.payment_status) == (Decimal("5.99"), "refunded")


def test_the_credit_note_is_the_owners_and_admins_as_json_and_pdf(client, customer, make_user, make_product,
                                                                   admin_headers, monkeypatch):
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    try:
        product = make_product(name="Milo 400g", price="12.35", stock=20)
        order = delivered_order(client, customer, admin_headers, (product, 2))
        ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
        number = step(client, admin_headers, ret["id"], "refund")["credit_note_number"]
        note = client.get(credit_note_url(ret["id"]), headers=auth_headers(customer)).json()
        pdf = client.get(credit_note_url(ret["id"], pdf=True), headers=auth_headers(customer))
        stranger = auth_headers(make_user())
        for as_pdf in (False, True):
            assert client.get(credit_note_url(ret["id"], as_pdf), headers=stranger).status_code == 404
            assert client.get(credit_note_url(ret["id"], as_pdf), headers=admin_headers).status_code == 200
            assert client.get(credit_note_url(ret["id"], as_pdf)).status_code == 401
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert note["number"] == number and note["return"] == ret["id"] and note["order"] == order["id"]
    assert note["receipt_number"] == order_row(order["id"]).receipt_number
    assert note["lines"] == [{"name": "Milo 400g", "quantity": 1, "unit_price": "12.35", "total": "12.35"}]
    assert (note["goods"], note["tax"], note["total"], note["currency"]) == ("12.35", "0.99", "13.34", "GHS")
    assert note["refund"]["method"] == "cash"
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert f'filename="credit-note-{number}.pdf"' in pdf.headers["content-disposition"]
    assert pdf.content.startswith(b"%PDF-") and len(re.findall(rb"/Type\s*/Page\b", pdf.content)) == 1
    text = page_text(pdf.content)
    for shown in (f"Credit note {number}", "Milo 400g", "GHS 12.35", "Tax (8%)", "GHS 0.99", "Refunded",
                  "GHS 13.34", "Refunded in cash"):
        assert shown in text, shown
    assert "$" not in text


def test_every_return_message_in_ghs_shows_no_dollar(client, make_user, make_product, admin_headers, monkeypatch):
    monkeypatch.setenv("DD_CURRENCY", "GHS")
    get_settings.cache_clear()
    try:
        customer = make_user(phonenumber="024 123 4567")
        set_preferences(customer, order_updates="both")
        product = make_product(price="12.35", stock=20)
        order = delivered_order(client, customer, admin_headers, (product, 2))
        ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
        step(client, admin_headers, ret["id"], "refund")
        other = ask_return(client, customer, order["id"], [(product.id, 1)])
        step(client, admin_headers, other["id"], "reject", note="Not in its box")
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    kinds = ("return_requested", "return_approved", "return_rejected", "return_received", "return_refunded")
    for kind in kinds:
        sent = messages_of(kind, order["id"])
        assert {message.channel for message in sent} == {"sms", "email"}, kind
        for message in sent:
            assert "$" not in message.body_text + message.body_html + message.subject, (kind, message.body_text)
    (sms,) = [m for m in messages_of("return_refunded", order["id"]) if m.channel == "sms"]
    assert "GHS 13.34" in sms.body_text and "CN-" in sms.body_text and len(sms.body_text) <= 160


def test_concurrent_refunds_of_a_return_refund_once(api_app, client, customer, make_product, admin_headers):
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    ret = received_return(client, customer, admin_headers, order, [(product.id, 1)])
    start, statuses, lock = threading.Barrier(4), [], threading.Lock()

    def refund() -> None:
        own = TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False)
        start.wait()
        response = own.post(f"/api/admin/returns/{ret['id']}/refund/", headers=admin_headers)
        with lock:
            statuses.append((response.status_code, response.json().get("code")))

    threads = [threading.Thread(target=refund) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses, key=str)[0][0] == 200 and [s for s, _ in statuses].count(200) == 1, statuses
    assert all(code in (returns.REFUND_IN_PROGRESS, returns.WRONG_STATUS) for s, code in statuses if s != 200)
    (payment,) = payments_of(order["id"])
    assert len(payment.provider_data["fake"]["refunds"]) == 1  # the provider was asked once
    assert order_row(order["id"]).refunded_total == return_row(ret["id"]).refund_amount


def test_a_line_whose_product_was_deleted_goes_back_by_its_id_and_the_whole_order_refunds_shipping(
        client, customer, make_product, admin_headers):
    """A product deleted from the catalogue after the sale is still in the shopper's hands: its
    line is named by the order's items[].id, and once it and the rest are back the refund
    includes shipping (before, such a line could not be named, so shipping was never refunded)."""
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1), (rice, 2))
    rice_line = next(item["id"] for item in order["items"] if item["product"]["id"] == rice.id)
    assert client.delete(f"/api/products/{rice.id}", headers=admin_headers).status_code == 204
    first = received_return(client, customer, admin_headers, order, [(milo.id, 1)])
    step(client, admin_headers, first["id"], "refund")
    # the deleted product's id no longer names anything; the line's id does
    assert ask_return(client, customer, order["id"], [(rice.id, 2)], expect=400)["code"] == returns.UNKNOWN_PRODUCT
    body = {"items": [{"item_id": rice_line, "quantity": 2}], "reason": "Spoilt"}
    asked = client.post(f"/api/orders/{order['id']}/returns/", json=body, headers=auth_headers(customer))
    assert asked.status_code == 201, asked.text
    assert asked.json()["items"][0]["product_id"] is None and asked.json()["items"][0]["quantity"] == 2
    returned_and_received(client, admin_headers, asked.json()["id"])
    last = step(client, admin_headers, asked.json()["id"], "refund")
    placed = order_row(order["id"])
    assert last["refund_shipping"] == f"{placed.shipping:.2f}" and placed.shipping > 0
    assert placed.refunded_total == placed.total and placed.payment_status == "refunded"
    again = client.post(f"/api/orders/{order['id']}/returns/", json=body, headers=auth_headers(customer))
    assert again.status_code == 400 and again.json()["code"] == returns.QUANTITY


@pytest.mark.parametrize("item_id", ["", 7, None, "not-a-line"])
def test_an_item_id_that_names_no_line_of_the_order_is_refused(client, customer, make_product, admin_headers,
                                                                 item_id):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    body = {"items": [{"item_id": item_id, "quantity": 1}], "reason": "x"}
    refused = client.post(f"/api/orders/{order['id']}/returns/", json=body, headers=auth_headers(customer))
    assert refused.status_code == 400 and refused.json()["code"] == returns.UNKNOWN_PRODUCT
    with session_scope() as session:
        assert session.exec(select(models.ReturnRequest)).all() == []


def test_the_amount_a_return_shows_is_what_its_refund_pays(client, customer, make_product, admin_headers):
    """Two returns bring a whole order back (coupon, shipping). The one asked last showed the
    shipping; the admin refunded it first and it paid 6.00 less than it said, while the other paid
    6.00 more. Each return now shows what it refunds if refunded next, and a refund updates the others."""
    add_coupon("FIVE", kind="fixed", value="5.00")
    soap, oil = make_product(price="10.00", stock=20), make_product(price="13.33", stock=20)
    order = delivered_order(client, customer, admin_headers, (soap, 3), (oil, 1), body={"coupon_code": "FIVE"})
    first = received_return(client, customer, admin_headers, order, [(soap.id, 3)])
    second = received_return(client, customer, admin_headers, order, [(oil.id, 1)])
    assert (first["refund_shipping"], second["refund_shipping"]) == ("0.00", "0.00")
    paid_second = step(client, admin_headers, second["id"], "refund")
    assert paid_second["refund_amount"] == second["refund_amount"]
    listed = client.get(f"/api/orders/{order['id']}/returns/", headers=auth_headers(customer)).json()["results"]
    [shown_first] = [ret for ret in listed if ret["id"] == first["id"]]
    placed = order_row(order["id"])
    assert shown_first["refund_shipping"] == f"{placed.shipping:.2f}"  # it brings the last item back
    paid_first = step(client, admin_headers, first["id"], "refund")
    assert paid_first["refund_amount"] == shown_first["refund_amount"]
    assert Decimal(paid_first["refund_amount"]) + Decimal(paid_second["refund_amount"]) == placed.total
    assert return_row(first["id"]).refund_amount == Decimal(paid_first["refund_amount"])
