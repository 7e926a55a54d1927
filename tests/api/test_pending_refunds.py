"""A refund Paystack only queued ("pending") is not money given back until Paystack says so
(services/returns/refunds.py). Before, it was booked as done at once: credit note, refunded total,
"we refunded" message; its later ``refund.failed`` webhook answered "ignored" and changed nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from discount_deals.db import session_scope
from discount_deals.models import ReturnRequest
from discount_deals.services import ServiceError, returns
from discount_deals.services.payments import sign

from ..builders.checkout import order_row
from ..builders.payments import post_refund_webhook
from ..builders.returns import ask_return, audit_actions, messages_of, momo_order, return_row, returned_and_received
from ..builders.returns import step

YEAR = datetime.now(UTC).year



@pytest.fixture
def pending(client, customer, make_product, admin_headers, paystack):
    """A mobile-money order of two units (21.60 each, with tax) with one unit's refund queued by Paystack."""
    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    body = step(client, admin_headers, ret["id"], "refund")
    assert (body["status"], body["refund_state"]) == ("received", "pending")
    return {"order": order, "return": ret, "product": product,
            "refund_id": return_row(ret["id"]).refund_reference}


def webhook(client, paystack, pending, event: str, **overrides):
    fields = {"reference": pending["order"]["payment_reference"], "refund_id": pending["refund_id"], "amount": 2160,
              **overrides}
    answer = post_refund_webhook(client, event, fields["reference"], fields["refund_id"], fields["amount"],
                                 secret=paystack.secret_key)
    assert answer.status_code == 200, answer.text
    return answer.json()["outcome"]


def test_a_failed_refund_leaves_the_return_to_be_refunded_again(client, admin_headers, paystack, pending):
    order, ret = pending["order"], pending["return"]
    assert webhook(client, paystack, pending, "refund.failed") == "refund_failed"
    row = return_row(ret["id"])
    assert (row.status, row.refund_state, row.credit_note_number) == ("received", "failed", None)
    assert "failed" in row.refund_provider_status
    placed = order_row(order["id"])
    assert (placed.refunded_total, placed.payment_status) == (Decimal("0.00"), "paid")
    assert messages_of("return_refunded", order["id"]) == []
    # Refunded again: a new refund is asked for, and this one is confirmed.
    again = step(client, admin_headers, ret["id"], "refund")
    assert (again["refund_state"], len(paystack.calls("/refund"))) == ("pending", 2)
    assert webhook(client, paystack, pending, "refund.processed", refund_id=again_id(ret)) == "refunded"
    row = return_row(ret["id"])
    assert (row.status, row.credit_note_number) == ("refunded", f"CN-{YEAR}-000001")
    assert order_row(order["id"]).refunded_total == Decimal("21.60")
    assert len(messages_of("return_refunded", order["id"])) >= 1


def again_id(ret: dict) -> str:
    return return_row(ret["id"]).refund_reference


def test_check_refund_asks_paystack_and_never_refunds_twice(client, admin_headers, paystack, pending):
    ret = pending["return"]
    waiting = step(client, admin_headers, ret["id"], "refund", expect=409)
    assert waiting["code"] == returns.REFUND_IN_PROGRESS and "still sending" in waiting["detail"]
    assert len(paystack.calls("/refund")) == 1  # asked how it stands (GET), not sent again
    assert paystack.requests[-1][:2] == ("GET", f"/refund/{pending['refund_id']}")
    paystack.refund_states[pending["refund_id"]] = "processed"
    done = step(client, admin_headers, ret["id"], "refund")
    assert (done["status"], done["credit_note_number"]) == ("refunded", f"CN-{YEAR}-000001")
    assert webhook(client, paystack, pending, "refund.processed") == "ignored"  # its late webhook changes nothing
    assert return_row(ret["id"]).credit_note_number == f"CN-{YEAR}-000001"
    actions = [event.action for event in audit_actions(ret["id"])]
    assert actions.count("return.refund_sent") == 1 and actions.count("return.refund") == 1


def test_check_refund_that_failed_says_so(client, admin_headers, paystack, pending):
    paystack.refund_states[pending["refund_id"]] = "failed"
    failed = step(client, admin_headers, pending["return"]["id"], "refund", expect=502)
    assert failed["code"] == returns.REFUND_FAILED
    assert return_row(pending["return"]["id"]).refund_state == "failed"


def test_no_other_refund_of_the_order_goes_while_one_is_pending(client, customer, admin_headers, paystack, pending):
    other = ask_return(client, customer, pending["order"]["id"], [(pending["product"].id, 1)])
    returned_and_received(client, admin_headers, other["id"])
    refused = step(client, admin_headers, other["id"], "refund", expect=409)
    assert refused["code"] == returns.REFUND_IN_PROGRESS and len(paystack.calls("/refund")) == 1
    assert webhook(client, paystack, pending, "refund.processed") == "refunded"
    step(client, admin_headers, other["id"], "refund")  # now it may go (its share counts the first)
    assert paystack.calls("/refund")[-1]["amount"] == 2160 + 599  # the last unit back brings the delivery


def test_a_refund_id_we_do_not_know_never_settles_ours(client, admin_headers, paystack, pending):
    """Review: a refund made elsewhere on the same charge (Paystack's dashboard) failed, and our
    queued refund was marked failed by it: the next press sent the money a second time."""
    assert webhook(client, paystack, pending, "refund.failed", refund_id="dashboard-99", amount=500) == "ignored"
    assert webhook(client, paystack, pending, "refund.processed", refund_id="dashboard-98") == "ignored"
    assert return_row(pending["return"]["id"]).refund_state == "pending"
    step(client, admin_headers, pending["return"]["id"], "refund", expect=409)  # "Check refund", not a new one
    assert len(paystack.calls("/refund")) == 1


def test_an_old_refunds_webhook_sent_again_never_settles_the_next_one(client, customer, admin_headers, paystack,
                                                                       pending):
    """Review: Paystack sent the first refund's event again while the second was queued; the
    second got a credit note though no money had moved, and its real failure was then ignored."""
    assert webhook(client, paystack, pending, "refund.processed") == "refunded"
    second = ask_return(client, customer, pending["order"]["id"], [(pending["product"].id, 1)])
    returned_and_received(client, admin_headers, second["id"])
    assert step(client, admin_headers, second["id"], "refund")["refund_state"] == "pending"
    assert webhook(client, paystack, pending, "refund.processed", amount=2160 + 599) == "ignored"  # the first's id
    row = return_row(second["id"])
    assert (row.status, row.refund_state, row.credit_note_number) == ("received", "pending", None)
    assert webhook(client, paystack, pending, "refund.failed", refund_id=row.refund_reference,
                   amount=2160 + 599) == "refund_failed"


def test_a_refund_without_an_id_is_matched_by_its_charge_and_amount(client, paystack, pending):
    with session_scope() as session:  # as if Paystack had queued it without saying its id
        row = session.get(ReturnRequest, pending["return"]["id"])
        row.refund_reference = None
        session.add(row)
    assert webhook(client, paystack, pending, "refund.processed", refund_id="", amount=999) == "ignored"
    assert webhook(client, paystack, pending, "refund.processed", refund_id="") == "refunded"
    assert return_row(pending["return"]["id"]).credit_note_number == f"CN-{YEAR}-000001"


@pytest.mark.parametrize("trouble", ["key refused", "unknown id", "no id kept"])
def test_check_refund_that_cannot_ask_changes_nothing(client, admin_headers, paystack, pending, trouble):
    """Review: any 4xx of GET /refund/{id} was read as "failed", and the next press sent the
    money again while Paystack still held the first refund."""
    if trouble == "key refused":
        paystack.secret_key = "sk_rotated"
    elif trouble == "unknown id":
        del paystack.refund_states[pending["refund_id"]]
    else:
        with session_scope() as session:
            row = session.get(ReturnRequest, pending["return"]["id"])
            row.refund_reference = None
            session.add(row)
    answer = client.post(f"/api/admin/returns/{pending['return']['id']}/refund/", headers=admin_headers)
    assert answer.status_code in (409, 502), answer.text
    assert return_row(pending["return"]["id"]).refund_state == "pending"
    paystack.secret_key = "sk_test_stub"
    client.post(f"/api/admin/returns/{pending['return']['id']}/refund/", headers=admin_headers)
    assert len(paystack.calls("/refund")) == 1  # never sent twice


def test_a_refund_marked_failed_that_paystack_processed_after_all_gets_its_credit_note(client, paystack, pending):
    assert webhook(client, paystack, pending, "refund.failed") == "refund_failed"
    assert webhook(client, paystack, pending, "refund.processed") == "refunded"  # the money left after all
    row = return_row(pending["return"]["id"])
    assert (row.status, row.credit_note_number) == ("refunded", f"CN-{YEAR}-000001")


def test_a_webhook_before_the_refund_is_written_is_asked_again(client, customer, make_product, admin_headers,
                                                               paystack, monkeypatch):
    """Review: Paystack's event came while our answer to POST /refund was not yet written; it was
    answered "ignored" (200), so never sent again, and the refund waited for ever."""
    from discount_deals.api.payments import _apply  # the webhook's work, from the stub's thread

    from ..support import paystack as stub_module

    product = make_product(price="20.00", stock=20)
    order = momo_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    early, send = [], stub_module._Handler._refund

    def refund_then_webhook(handler, body):
        raw = json.dumps({"event": "refund.processed", "data": {
            "transaction_reference": body["transaction"], "id": len(handler.server.calls("/refund")),
            "amount": body["amount"], "status": "processed"}}).encode()
        try:
            early.append(_apply(raw, {"x-paystack-signature": sign(raw, paystack.secret_key)}))
        except ServiceError as refused:  # the webhook's answer: 409, so the provider sends it again
            early.append((refused.status, refused.code))
        send(handler, body)

    monkeypatch.setattr(stub_module._Handler, "_refund", refund_then_webhook)
    assert step(client, admin_headers, ret["id"], "refund")["refund_state"] == "pending"
    assert early == [(409, returns.REFUND_IN_PROGRESS)]
    again = post_refund_webhook(client, "refund.processed", order["payment_reference"], 1, 2160,
                                secret=paystack.secret_key)  # the provider sends it again
    assert again.json()["outcome"] == "refunded" and return_row(ret["id"]).status == "refunded"


def test_refund_events_without_a_final_word_are_ignored(client, paystack, pending):
    raw = json.dumps({"event": "refund.pending", "data": {"transaction_reference": "x", "status": "pending"}})
    answer = client.post("/api/payments/webhook/", content=raw.encode(), headers={
        "X-Signature": sign(raw.encode(), paystack.secret_key), "Content-Type": "application/json"})
    assert answer.status_code == 200 and answer.json()["outcome"] == "ignored"


def test_refund_webhooks_for_nothing_of_ours_change_nothing(client, paystack, pending):
    assert webhook(client, paystack, pending, "refund.processed", reference="DD-unknown", refund_id="77") == "ignored"
    assert return_row(pending["return"]["id"]).refund_state == "pending"
    bad = post_refund_webhook(client, "refund.processed", "", "", 100, secret=paystack.secret_key)
    assert bad.status_code == 400 and bad.json()["detail"] == "Invalid webhook body."
    assert return_row(pending["return"]["id"]).refund_state == "pending"


def test_the_pages_say_the_refund_is_on_its_way(client, paystack, pending):
    """The customer's Returns box and the back office's row, while Paystack sends it and after."""
    from discount_deals.db import session_scope
    from discount_deals.models import Order
    from discount_deals.state.return_views import admin_return_row, return_card

    def views():
        with session_scope() as session:
            view = returns.common.view_of(session, returns.common.find_return(session, pending["return"]["id"]))
            return return_card(view), admin_return_row(view, session.get(Order, pending["order"]["id"]))

    card, row = views()
    assert (card.status_text, card.credit_note, row.status_text, row.refund_pending, row.can_refund) == (
        "Refund on its way", "", "Refund on its way", True, True)
    webhook(client, paystack, pending, "refund.processed")
    card, row = views()
    assert (card.status_text, card.credit_note, row.refund_pending, row.can_refund) == (
        "Refunded", f"CN-{YEAR}-000001", False, False)


def test_the_shops_clock_asks_about_refunds_whose_word_never_came(client, paystack, pending):
    """A webhook lost on the way: the timer asks Paystack as "Check refund" would, every 5 minutes."""
    from datetime import timedelta

    def asked() -> int:
        return len([call for call in paystack.requests if call[:2] == ("GET", f"/refund/{pending['refund_id']}")])

    now = datetime.now(UTC)
    assert returns.check_waiting_refunds(now) == 0 and asked() == 0  # just sent: not asked yet
    later = now + timedelta(minutes=6)
    assert returns.check_waiting_refunds(later) == 0 and asked() == 1  # still queued at Paystack
    assert returns.check_waiting_refunds(later + timedelta(minutes=1)) == 0 and asked() == 1  # not every minute
    paystack.secret_key = "sk_rotated"  # Paystack will not say: nothing changes, asked again next time
    assert returns.check_waiting_refunds(later + timedelta(minutes=6)) == 0
    assert return_row(pending["return"]["id"]).refund_state == "pending"
    paystack.secret_key = "sk_test_stub"
    paystack.refund_states[pending["refund_id"]] = "processed"
    assert returns.check_waiting_refunds(later + timedelta(minutes=12)) == 1
    row = return_row(pending["return"]["id"])
    assert (row.status, row.credit_note_number) == ("refunded", f"CN-{YEAR}-000001")
    assert len(messages_of("return_refunded", pending["order"]["id"])) >= 1
    assert order_row(pending["order"]["id"]).refunded_total == Decimal("21.60")


def test_the_servers_timer_runs_the_check(client, paystack, pending):
    import asyncio
    from datetime import timedelta

    from discount_deals.server import timers

    with session_scope() as session:  # sent ten minutes ago; Paystack has processed it since
        row = session.get(ReturnRequest, pending["return"]["id"])
        row.updated_at = datetime.now(UTC) - timedelta(minutes=10)
        session.add(row)
    paystack.refund_states[pending["refund_id"]] = "processed"

    async def run_briefly():
        task = asyncio.create_task(timers.release_unpaid_orders(interval=0.05))
        for _ in range(100):
            await asyncio.sleep(0.05)
            if return_row(pending["return"]["id"]).status == "refunded":
                break
        task.cancel()

    asyncio.run(run_briefly())
    assert return_row(pending["return"]["id"]).status == "refunded"
