"""A paid order that is cancelled is refunded whole through the provider, with a credit note
against its receipt (services/returns/cancellations.py). Before, "Mark refunded" only recorded the
refund: the provider was never asked, no credit note was issued, and the customer heard nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import returns
from discount_deals.services.returns.cancellations import CANCELLED_REASON

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, fill_cart, order_row, place
from ..builders.payments import minor, paid_by_a_second_charge, payments_of, post_refund_webhook, post_webhook
from ..builders.returns import audit_actions, messages_of
from ..builders.shop import add_address, add_coupon
from .test_order_tax_lines import tax_settings

YEAR = datetime.now(UTC).year


def paid_then_cancelled(client, customer, *lines, phone: str = "024 123 4567", **body) -> dict:
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), *lines)
    order = place(client, auth_headers(customer), {**MOMO, "phone": phone, **body})
    assert post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"])).json()[
        "outcome"] == "paid"
    cancelled = client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer))
    assert cancelled.status_code == 200, cancelled.text
    return order


def refund(client, admin_headers, order_id: str, expect: int = 200) -> dict:
    answer = client.post(f"/api/admin/orders/{order_id}/refunded/", headers=admin_headers)
    assert answer.status_code == expect, answer.text
    return answer.json()


def returns_of(order_id: str) -> list[models.ReturnRequest]:
    with session_scope() as session:
        return list(session.exec(select(models.ReturnRequest).where(models.ReturnRequest.order_id == order_id)).all())


def admin_order_page(order_id: str):
    """The back office's order page as it would show the order (its refund button's words)."""
    from discount_deals.state.admin.orders import AdminOrdersState

    with session_scope() as session:
        admin = session.exec(select(models.User).where(models.User.role == "admin")).first()
    state = AdminOrdersState(_reflex_internal_init=True)
    state._show(admin, order_id)
    return state.shown


def stock_of(product_id: str) -> int:
    with session_scope() as session:
        return session.get(models.Product, product_id).stock


def test_a_cancelled_paid_order_is_refunded_with_a_credit_note(client, customer, make_product, admin_headers):
    milo, rice = make_product(price="12.35", stock=10), make_product(price="3.33", stock=10)
    order = paid_then_cancelled(client, customer, (milo, 3), (rice, 7))
    stock = (stock_of(milo.id), stock_of(rice.id))
    assert stock == (10, 10)  # the cancellation put it back
    assert admin_order_page(order["id"]).refund_label == f"Refund ${Decimal(order['total']):.2f}"
    body = refund(client, admin_headers, order["id"])
    assert (body["payment_status"], body["attention"], body["refunded_total"]) == ("refunded", None, order["total"])
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.refunded_total) == ("refunded", None, Decimal(order["total"]))
    (ret,) = returns_of(order["id"])
    assert (ret.status, ret.reason, ret.refund_method, ret.refund_amount) == (
        "refunded", CANCELLED_REASON, "mobile_money", Decimal(order["total"]))
    assert ret.credit_note_number == f"CN-{YEAR}-000001"
    (payment,) = payments_of(order["id"])  # the provider gave back the whole charge
    assert payment.provider_data["fake"]["refunds"] == [{"id": ret.refund_reference, "amount": minor(order["total"])}]
    assert (stock_of(milo.id), stock_of(rice.id)) == stock  # nothing went back to the shelf twice
    # The customer's credit note mirrors the receipt: every line, every tax, the same total.
    receipt = client.get(f"/api/orders/{order['id']}/receipt/", headers=auth_headers(customer)).json()
    note = client.get(f"/api/returns/{ret.id}/credit-note/", headers=auth_headers(customer))
    assert note.status_code == 200, note.text
    note = note.json()
    assert (note["number"], note["receipt_number"], note["order"]) == (ret.credit_note_number, receipt["number"],
                                                                       order["id"])
    assert note["total"] == receipt["total"] == order["total"]
    assert [(line["name"], line["quantity"], line["total"]) for line in note["lines"]] == [
        (line["name"], line["quantity"], line["total"]) for line in receipt["lines"]]
    assert note["tax_lines"] == receipt["tax_lines"] and note["shipping"] == receipt["shipping"]
    pdf = client.get(f"/api/returns/{ret.id}/credit-note.pdf", headers=auth_headers(customer))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    # Told: "we refunded GHS … to your MTN … number. Credit note CN-…".
    (message, *_) = messages_of("return_refunded", order["id"])
    assert ret.credit_note_number in message.body_text and "refunded" in message.body_text
    # The order's returns list it, so the customer's order page links the credit note.
    listed = client.get(f"/api/orders/{order['id']}/returns/", headers=auth_headers(customer)).json()["results"]
    assert [(r["id"], r["status"]) for r in listed] == [(ret.id, "refunded")]
    # Settled: a second press answers "no refund due", and issues nothing.
    assert refund(client, admin_headers, order["id"], expect=409)["detail"] == "This order has no refund due."
    assert len(returns_of(order["id"])) == 1


def test_coupons_delivery_and_ghana_taxes_go_back_to_the_pesewa(client, customer, make_product, admin_headers,
                                                                 monkeypatch):
    add_coupon("TENOFF", kind="percent", value="10")
    with tax_settings(monkeypatch, DD_TAX="ghana"):
        order = paid_then_cancelled(client, customer, (make_product(price="9.99", stock=20), 7),
                                    (make_product(price="0.05", stock=20), 3), coupon_code="TENOFF")
        refund(client, admin_headers, order["id"])
        (ret,) = returns_of(order["id"])
        receipt = client.get(f"/api/orders/{order['id']}/receipt/", headers=auth_headers(customer)).json()
        note = client.get(f"/api/returns/{ret.id}/credit-note/", headers=auth_headers(customer)).json()
    assert Decimal(receipt["discount"]) > 0 and len(receipt["tax_lines"]) == 3
    for key in ("subtotal", "discount", "shipping", "tax", "total"):
        if key in note:
            assert note[key] == receipt[key], key
    assert note["tax_lines"] == receipt["tax_lines"]
    assert order_row(order["id"]).refunded_total == Decimal(receipt["total"])


def test_a_refusal_changes_nothing_and_the_refund_may_be_tried_again(client, customer, make_product, admin_headers):
    order = paid_then_cancelled(client, customer, (make_product(price="20.00", stock=5), 1), phone="024 123 9999")
    for _attempt in range(2):  # refused the same way each time; the same return is tried again
        refused = refund(client, admin_headers, order["id"], expect=502)
        assert refused["code"] == returns.REFUND_FAILED and "cannot receive refunds" in refused["detail"]
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.refunded_total) == ("paid", "refund_due", Decimal("0.00"))
    (ret,) = returns_of(order["id"])
    assert (ret.status, ret.refund_state, ret.credit_note_number) == ("received", "failed", None)
    assert messages_of("return_refunded", order["id"]) == []


def test_an_order_paid_after_it_was_cancelled_is_refunded_the_same_way(client, customer, make_product,
                                                                        admin_headers):
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price="15.00", stock=5), 2))
    order = place(client, auth_headers(customer), MOMO)
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))  # late
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("paid", "refund_due")
    refund(client, admin_headers, order["id"])
    (ret,) = returns_of(order["id"])
    assert ret.credit_note_number and ret.refund_amount == Decimal(order["total"])
    assert (order_row(order["id"]).payment_status, order_row(order["id"]).attention) == ("refunded", None)


def test_an_admins_cancellation_of_a_paid_order_in_progress(client, customer, make_product, admin_headers):
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price="8.00", stock=5), 1))
    order = place(client, auth_headers(customer), MOMO)
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    for status in ("processing", "cancelled"):
        moved = client.patch(f"/api/orders/{order['id']}/", json={"status": status}, headers=admin_headers)
        assert moved.status_code == 200, moved.text
    refund(client, admin_headers, order["id"])
    (ret,) = returns_of(order["id"])
    assert ret.status == "refunded" and order_row(order["id"]).refunded_total == Decimal(order["total"])



def test_paystack_is_asked_to_refund_the_whole_charge(client, customer, make_product, admin_headers, paystack):
    order = paid_then_cancelled(client, customer, (make_product(price="20.00", stock=5), 2))
    body = refund(client, admin_headers, order["id"])
    assert paystack.calls("/refund") == [{"transaction": order["payment_reference"], "amount": minor(order["total"])}]
    # Queued by Paystack: still owed until it confirms (the flag stays, no credit note, no message).
    assert (body["payment_status"], body["attention"], body["refunded_total"]) == ("paid", "refund_due", "0.00")
    (ret,) = returns_of(order["id"])
    assert (ret.status, ret.refund_state, ret.credit_note_number) == ("received", "pending", None)
    assert messages_of("return_refunded", order["id"]) == []
    assert admin_order_page(order["id"]).refund_label == "Check refund"
    again = refund(client, admin_headers, order["id"], expect=409)  # asks Paystack how it stands: not a second refund
    assert again["code"] == returns.REFUND_IN_PROGRESS and len(paystack.calls("/refund")) == 1
    confirmed = post_refund_webhook(client, "refund.processed", order["payment_reference"], ret.refund_reference,
                                    minor(order["total"]), secret=paystack.secret_key)
    assert confirmed.json()["outcome"] == "refunded"
    (ret,) = returns_of(order["id"])
    assert (ret.status, ret.credit_note_number) == ("refunded", f"CN-{YEAR}-000001")
    row = order_row(order["id"])
    assert (row.payment_status, row.attention, row.refunded_total) == ("refunded", None, Decimal(order["total"]))
    assert len(messages_of("return_refunded", order["id"])) >= 1
    assert [e.action for e in audit_actions(order["id"])][-1:] == ["order.refund"]


def test_only_admins_may_refund(client, customer, make_product, admin_headers):
    order = paid_then_cancelled(client, customer, (make_product(price="20.00", stock=5), 1))
    assert client.post(f"/api/admin/orders/{order['id']}/refunded/",
                       headers=auth_headers(customer)).status_code == 403
    assert client.post(f"/api/admin/orders/{order['id']}/refunded/").status_code == 401
    assert returns_of(order["id"]) == [] and order_row(order["id"]).payment_status == "paid"


def test_a_charge_after_the_refund_is_owed_back_without_a_credit_note_of_nothing(client, customer, make_product,
                                                                                admin_headers):
    """Review: a first charge that came through after the cancelled order was refunded moved it
    back to "paid"; "Refund" then issued a 0.00 credit note and told the customer "we refunded
    0.00", while the late money was never given back."""
    order, first = paid_by_a_second_charge(client, customer, make_product(price="20.00", stock=5))
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(customer)).status_code == 200
    refund(client, admin_headers, order["id"])
    post_webhook(client, "charge.success", first, minor(order["total"]))  # late
    row = order_row(order["id"])
    assert (row.payment_status, row.attention) == ("refunded", "refund_due")
    assert row.attention_note.startswith("Paid after it was refunded")
    assert admin_order_page(order["id"]).refund_label == "Mark refunded"  # recorded by the admin, no credit note
    refund(client, admin_headers, order["id"])
    assert order_row(order["id"]).attention is None
    (ret,) = returns_of(order["id"])  # one credit note, of the order's total
    assert ret.refund_amount == Decimal(order["total"])
    assert len(messages_of("return_refunded", order["id"])) == 1
