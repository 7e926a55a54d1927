"""Returns (issue 33, item 4): a customer asks to return items of a delivered order within
DD_RETURN_DAYS; admins approve, reject or receive them (stock back exactly once); every step is
in the audit trail and messages the customer."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import returns
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, order_row, place
from ..builders.returns import (
    ask_return, audit_actions, delivered_days_ago, delivered_order, messages_of, return_row, step,
)
from ..builders.shop import add_address
from ..builders.catalog import stock_of


def returns_url(order_id: str) -> str:
    return f"/api/orders/{order_id}/returns/"


def test_the_owner_of_a_delivered_order_asks_to_return_items(client, customer, make_product, admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 3))
    assert order_row(order["id"]).delivered_at is not None
    body = ask_return(client, customer, order["id"], [(milo.id, 1)], reason="  The tin was   dented ")
    assert body["status"] == "requested" and body["order"] == order["id"]
    assert body["items"] == [{"product_id": milo.id, "name": milo.name, "quantity": 1, "unit_price": "12.00",
                              "amount": "12.00"}]
    # 12.00 of a 39.00 subtotal, no coupon: 12.00 plus its 8 % tax (0.96); shipping stays (not everything is back)
    assert (body["refund_amount"], body["refund_tax"], body["refund_shipping"]) == ("12.96", "0.96", "0.00")
    assert body["refund_method"] == "cash" and body["credit_note_number"] is None
    row = return_row(body["id"])
    assert (row.status, row.reason, row.user_id, row.refund_amount) == ("requested", "The tin was dented", customer.id,
                                                                        Decimal("12.96"))
    listed = client.get(returns_url(order["id"]), headers=auth_headers(customer)).json()
    assert [item["id"] for item in listed["results"]] == [body["id"]]
    assert (listed["count"], listed["next"], listed["previous"]) == (1, None, None)  # a page, as every list
    assert [event.action for event in audit_actions(body["id"])] == ["return.request"]
    assert {message.channel for message in messages_of("return_requested", order["id"])} == {"email"}


def test_only_a_delivered_order_within_the_window_takes_returns(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (product, 1))
    pending = place(client, auth_headers(customer), {})
    assert pending["returns_open_until"] is None and pending["delivered_at"] is None
    refused = ask_return(client, customer, pending["id"], [(product.id, 1)], expect=400)
    assert refused["code"] == returns.NOT_DELIVERED
    order = delivered_order(client, customer, admin_headers, (product, 1))
    shown = client.get(f"/api/orders/{order['id']}/", headers=auth_headers(customer)).json()
    delivered = order_row(order["id"]).delivered_at
    assert shown["delivered_at"] == delivered.isoformat().replace("+00:00", "Z")  # UTC, written with a Z
    assert shown["returns_open_until"] == (delivered + timedelta(days=30)).isoformat().replace("+00:00", "Z")
    delivered_days_ago(order["id"], get_settings().returns.days + 0.01)
    assert client.get(f"/api/orders/{order['id']}/", headers=auth_headers(customer)).json()["returns_open_until"] is None
    closed = ask_return(client, customer, order["id"], [(product.id, 1)], expect=400)
    assert closed["code"] == returns.WINDOW_CLOSED and "30 days" in closed["detail"]
    ends = order_row(order["id"]).delivered_at + timedelta(days=30)
    assert f"closed on {ends:%d %b %Y} at {ends:%H:%M} GMT:" in closed["detail"]  # the day alone read as open
    delivered_days_ago(order["id"], -0.02)  # back inside the window
    ask_return(client, customer, order["id"], [(product.id, 1)])
    with session_scope() as session:
        assert len(session.exec(select(models.ReturnRequest)).all()) == 1  # the refused ones wrote nothing


def test_bad_lines_are_400s_with_a_code_and_write_nothing(client, customer, make_product, admin_headers):
    milo, other = make_product(stock=20), make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    url, headers = returns_url(order["id"]), auth_headers(customer)
    cases = [
        ({"items": [], "reason": "x"}, returns.NO_ITEMS),
        ({"reason": "x"}, returns.NO_ITEMS),
        ({"items": "all", "reason": "x"}, returns.NO_ITEMS),
        ({"items": [5], "reason": "x"}, returns.ITEMS_INVALID),
        ({"items": [{"product_id": other.id, "quantity": 1}], "reason": "x"}, returns.UNKNOWN_PRODUCT),
        ({"items": [{"product_id": 7, "quantity": 1}], "reason": "x"}, returns.UNKNOWN_PRODUCT),
        ({"items": [{"product_id": milo.id, "quantity": 1}] * 2, "reason": "x"}, returns.DUPLICATE_LINE),
        ({"items": [{"product_id": milo.id, "quantity": 3}], "reason": "x"}, returns.QUANTITY),
        ({"items": [{"product_id": milo.id, "quantity": 0}], "reason": "x"}, returns.QUANTITY),
        ({"items": [{"product_id": milo.id, "quantity": True}], "reason": "x"}, returns.QUANTITY),
        ({"items": [{"product_id": milo.id, "quantity": "1"}], "reason": "x"}, returns.QUANTITY),
        ({"items": [{"product_id": milo.id, "quantity": 1}], "reason": "   "}, returns.REASON_REQUIRED),
        ({"items": [{"product_id": milo.id, "quantity": 1}]}, returns.REASON_REQUIRED),
        ({"items": [{"product_id": milo.id, "quantity": 1}], "reason": "x" * 501}, returns.REASON_REQUIRED),
    ]
    for body, code in cases:
        response = client.post(url, json=body, headers=headers)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["code"] == code, (body, response.json())
    with session_scope() as session:
        assert session.exec(select(models.ReturnRequest)).all() == []
        assert session.exec(select(models.AuditEvent).where(models.AuditEvent.action == "return.request")).all() == []


def test_quantities_count_what_other_returns_take_back_but_not_rejected_ones(client, customer, make_product,
                                                                              admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 3))
    first = ask_return(client, customer, order["id"], [(product.id, 2)])
    too_many = ask_return(client, customer, order["id"], [(product.id, 2)], expect=400)
    assert too_many["code"] == returns.QUANTITY and "at most 1" in too_many["detail"]
    step(client, admin_headers, first["id"], "reject", note="The seal is broken")
    ask_return(client, customer, order["id"], [(product.id, 3)])  # the rejected one gave its items back


def test_someone_elses_order_is_404_and_no_token_is_401(client, customer, make_user, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    stranger = make_user()
    body = {"items": [{"product_id": product.id, "quantity": 1}], "reason": "x"}
    response = client.post(returns_url(order["id"]), json=body, headers=auth_headers(stranger))
    assert response.status_code == 404 and response.json() == {"detail": "Order not found."}
    assert client.get(returns_url(order["id"]), headers=auth_headers(stranger)).status_code == 404
    assert client.post(returns_url(order["id"]), json=body).status_code == 401
    assert client.get(returns_url(order["id"])).status_code == 401
    assert client.get(returns_url(order["id"]), headers=admin_headers).status_code == 200  # admins read any
    with session_scope() as session:
        assert session.exec(select(models.ReturnRequest)).all() == []


def test_admin_steps_are_admins_only(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    for name in ("approve", "reject", "receive", "refund"):
        assert client.post(f"/api/admin/returns/{ret['id']}/{name}/", headers=auth_headers(customer)).status_code == 403
        assert client.post(f"/api/admin/returns/{ret['id']}/{name}/").status_code == 401
    assert client.get("/api/admin/returns/", headers=auth_headers(customer)).status_code == 403
    assert return_row(ret["id"]).status == "requested"
    assert step(client, admin_headers, "no-such-return", "approve", expect=404) == {"detail": "Return not found."}


def test_approve_reject_and_receive_follow_the_steps(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 4))
    assert stock_of(product.id) == 16
    ret = ask_return(client, customer, order["id"], [(product.id, 3)])
    early = step(client, admin_headers, ret["id"], "receive", expect=409)
    assert early["code"] == returns.WRONG_STATUS and stock_of(product.id) == 16
    assert step(client, admin_headers, ret["id"], "approve")["status"] == "approved"
    assert step(client, admin_headers, ret["id"], "approve", expect=409)["code"] == returns.WRONG_STATUS
    received = step(client, admin_headers, ret["id"], "receive")
    assert received["status"] == "received" and received["received_at"]
    # The items are in: a received return is refunded, never rejected.
    assert step(client, admin_headers, ret["id"], "reject", note="no", expect=409)["code"] == returns.WRONG_STATUS
    assert stock_of(product.id) == 19
    again = step(client, admin_headers, ret["id"], "receive", expect=409)
    assert again["code"] == returns.WRONG_STATUS and stock_of(product.id) == 19
    events = audit_actions(ret["id"])
    assert [event.action for event in events] == ["return.request", "return.approve", "return.receive"]
    assert events[2].changes["status"] == ["approved", "received"]
    assert events[2].changes["stock"][1] == {product.id: 19}
    for kind in ("return_approved", "return_received"):
        assert len(messages_of(kind, order["id"])) == 1, kind


def test_a_rejection_needs_a_note_and_tells_the_customer_why(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)])
    assert step(client, admin_headers, ret["id"], "reject", expect=400)["code"] == returns.NOTE_REQUIRED
    assert return_row(ret["id"]).status == "requested"
    body = step(client, admin_headers, ret["id"], "reject", note="Opened food cannot be returned.")
    assert body["status"] == "rejected" and body["admin_note"] == "Opened food cannot be returned."
    (email,) = messages_of("return_rejected", order["id"])
    assert "Opened food cannot be returned." in email.body_text
    assert audit_actions(ret["id"])[-1].changes["admin_note"] == ["", "Opened food cannot be returned."]


def test_an_approved_return_whose_items_never_came_back_is_rejected_with_a_note(client, customer, make_product,
                                                                               admin_headers):
    """Nothing could end an approved return whose items never came: not the customer, not the
    admin (reject was for requested returns only), short of marking it received, which restocked
    goods that never came."""
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 2)])
    step(client, admin_headers, ret["id"], "approve")
    body = step(client, admin_headers, ret["id"], "reject", note="The items never came back.")
    assert (body["status"], body["admin_note"]) == ("rejected", "The items never came back.")
    assert (return_row(ret["id"]).status, stock_of(product.id)) == ("rejected", 18)  # nothing restocked
    assert audit_actions(ret["id"])[-1].changes["status"] == ["approved", "rejected"]
    assert len(messages_of("return_rejected", order["id"])) == 1
    again = ask_return(client, customer, order["id"], [(product.id, 2)])  # its items may be asked for again
    assert again["status"] == "requested"


def test_a_shorter_return_window_keeps_the_one_an_order_was_promised(client, customer, make_product, admin_headers,
                                                                      use_settings):
    """Lowering DD_RETURN_DAYS from 30 to 7 closed the window of an order delivered 10 days before,
    though its checkout had said "Free returns within 30 days"; a longer one is given to all."""
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    assert order_row(order["id"]).return_days == 30
    delivered_days_ago(order["id"], 10)
    use_settings(DD_RETURN_DAYS="7")
    ask_return(client, customer, order["id"], [(product.id, 1)])  # was 400 return_window_closed
    later = delivered_order(client, customer, admin_headers, (product, 1))
    assert order_row(later["id"]).return_days == 7
    delivered_days_ago(later["id"], 10)
    assert ask_return(client, customer, later["id"], [(product.id, 1)], expect=400)["code"] == returns.WINDOW_CLOSED
    use_settings(DD_RETURN_DAYS="45")  # longer now: every order gets it
    ask_return(client, customer, later["id"], [(product.id, 1)])


def test_a_reason_or_a_note_of_blank_letters_is_no_reason(client, customer, make_product, admin_headers):
    """A Hangul filler draws nothing, yet "\u3164" alone went through as the reason (and the note)."""
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 1))
    for blank in ("\u3164", "\u2800 \uffa0", "\u115f\u1160"):
        refused = ask_return(client, customer, order["id"], [(product.id, 1)], reason=blank, expect=400)
        assert refused["code"] == returns.REASON_REQUIRED
    ret = ask_return(client, customer, order["id"], [(product.id, 1)], reason="Too \u3164small")
    assert ret["reason"] == "Too small"
    assert step(client, admin_headers, ret["id"], "reject", note="\u3164", expect=400)["code"] == returns.NOTE_REQUIRED


def test_control_characters_in_a_reason_or_a_note_are_dropped(client, customer, make_product, admin_headers):
    # A NUL was stored as sent on SQLite and a 500 on PostgreSQL, which refuses it in any text.
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)], reason="The seal\x00 was\u200b broken\x07")
    assert ret["reason"] == "The seal was broken" and return_row(ret["id"]).reason == "The seal was broken"
    assert ask_return(client, customer, order["id"], [(product.id, 1)], reason="\x00\x07",
                      expect=400)["code"] == returns.REASON_REQUIRED
    body = step(client, admin_headers, ret["id"], "reject", note="Opened\x00 food")
    assert body["admin_note"] == "Opened food" and return_row(ret["id"]).admin_note == "Opened food"


def test_the_admin_list_pages_and_filters_by_status(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 3))
    first = ask_return(client, customer, order["id"], [(product.id, 1)])
    second = ask_return(client, customer, order["id"], [(product.id, 1)])
    step(client, admin_headers, first["id"], "approve")
    page = client.get("/api/admin/returns/", headers=admin_headers).json()
    assert page["count"] == 2 and [item["id"] for item in page["results"]] == [second["id"], first["id"]]
    assert page["results"][0]["customer"]["email"] == customer.email
    approved = client.get("/api/admin/returns/?status=approved", headers=admin_headers).json()
    assert [item["id"] for item in approved["results"]] == [first["id"]]
    assert client.get("/api/admin/returns/?status=nonsense", headers=admin_headers).json()["count"] == 0
    paged = client.get("/api/admin/returns/?page_size=1&page=2", headers=admin_headers).json()
    assert [item["id"] for item in paged["results"]] == [first["id"]] and paged["previous"]


RECEIVERS = 6


def test_concurrent_receives_put_the_stock_back_once(api_app, client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 5))
    ret = ask_return(client, customer, order["id"], [(product.id, 5)])
    step(client, admin_headers, ret["id"], "approve")
    start = threading.Barrier(RECEIVERS)
    statuses: list[int] = []
    lock = threading.Lock()

    def receive() -> None:
        own = TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False)
        start.wait()
        response = own.post(f"/api/admin/returns/{ret['id']}/receive/", headers=admin_headers)
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=receive) for _ in range(RECEIVERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [200] + [409] * (RECEIVERS - 1)
    assert stock_of(product.id) == 20
    assert [event.action for event in audit_actions(ret["id"])].count("return.receive") == 1


def test_a_customers_data_export_holds_their_returns(client, customer, make_product, admin_headers):
    product = make_product(stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    ret = ask_return(client, customer, order["id"], [(product.id, 1)], reason="Wrong flavour")
    exported = client.get("/api/users/me/export/", headers=auth_headers(customer))
    assert exported.status_code == 200, exported.text
    (placed,) = exported.json()["orders"]
    assert placed["returns"] == [{"id": ret["id"], "requested_at": ret["created_at"], "status": "requested",
                                  "reason": "Wrong flavour", "items": [{"name": product.name, "quantity": 1}],
                                  "refund_amount": ret["refund_amount"], "refund_method": "cash",
                                  "credit_note_number": None, "refunded_at": None}]
