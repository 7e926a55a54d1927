"""The returns' faces in the UI (issue 33, item 4), below the browser: the order page's form
(what it offers, the request it builds, what a refusal shows where), its Returns box, the credit
note's page and the admin Returns tab's steps, run as Reflex runs the states' events (a real
state tree, the real token services and test database; tests/unit/test_state_guards.py's way)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from reflex.state import State
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.display import money_text
from discount_deals.services import orders as order_service
from discount_deals.services import returns
from discount_deals.services.auth.tokens import issue_tokens
from discount_deals.services.returns.common import returned_quantities
from discount_deals.state.account.credit_note import CreditNoteState, credit_note_view
from discount_deals.state.account.order_returns import OrderReturnsState
from discount_deals.state.return_views import (
    admin_return_row,
    form_lines,
    open_until_text,
    requested_items,
    return_card,
)
from discount_deals.state.account.session import SessionState
from discount_deals.state.admin.returns import AdminReturnsState

from ..support.loops import run_coroutine as run
from ..builders.returns import ask_return, delivered_order, momo_order, return_row, returned_and_received, step
from ..builders.catalog import stock_of


def offered(order_id: str):
    with session_scope() as session:
        order = session.get(models.Order, order_id)
        return form_lines(order_service.order_items(session, order), returned_quantities(session, order_id))


def fire(state_class, user: models.User, name: str, prepare=None, **payload):
    """Fire one event as Reflex does, signed in as ``user``, after ``prepare(state)``; returns
    (the events, the state)."""

    async def go():
        root = State(_reflex_internal_init=True)
        session = await root.get_state(SessionState)
        tokens = issue_tokens(user)
        session.access_token, session.refresh_token = tokens.access, tokens.refresh
        state = await root.get_state(state_class)
        if prepare is not None:
            prepare(state)
        events = [event async for event in state_class.event_handlers[name].fn(state, **payload)]
        return events, state

    return run(go())


def order_page(order_id: str, user: models.User):
    """Prepare OrderReturnsState as the order page's load leaves it."""

    def prepare(state: OrderReturnsState) -> None:
        state.order_id = order_id
        state._fill(user)
        state.form_open = True

    return prepare


def test_the_form_offers_what_may_still_go_back_and_builds_the_request(client, customer, make_product,
                                                                       admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 3))
    ask_return(client, customer, order["id"], [(milo.id, 1)])
    rejected = ask_return(client, customer, order["id"], [(rice.id, 3)])
    step(client, admin_headers, rejected["id"], "reject", note="Opened packets")
    lines = {line.product_id: line for line in offered(order["id"])}
    # One Milo is in a live return; the rejected return gives its three rice back.
    assert (lines[milo.id].returnable, lines[milo.id].choices) == (1, ["0", "1"])
    assert (lines[rice.id].returnable, lines[rice.id].bought) == (3, 3)
    form = {lines[milo.id].field: "1", lines[rice.id].field: "0", "reason": "Dented"}
    assert requested_items(form, list(lines.values())) == [{"product_id": milo.id, "quantity": 1}]
    # What is not a whole number reads as 0; nothing chosen is an empty list (the service refuses it).
    assert requested_items({lines[milo.id].field: "1.5", lines[rice.id].field: "-2"}, list(lines.values())) == []


def test_a_line_all_gone_back_is_not_offered(client, customer, make_product, admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1), (rice, 1))
    ask_return(client, customer, order["id"], [(milo.id, 1)])
    assert [line.product_id for line in offered(order["id"])] == [rice.id]


def test_sending_the_form_requests_the_return_and_lists_it(client, customer, make_product, admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 3))
    field = f"qty-{milo.id}"
    events, state = fire(OrderReturnsState, customer, "send_request", order_page(order["id"], customer),
                         form={field: "2", f"qty-{rice.id}": "0", "reason": "  Both tins   were dented "})
    with session_scope() as session:
        rows = list(session.exec(select(models.ReturnRequest)).all())
    assert len(rows) == 1 and rows[0].reason == "Both tins were dented"
    assert "Return requested" in str(events)
    assert not state.form_open and state.items_error == state.reason_error == ""
    [card] = state.returns
    assert (card.status_text, card.item_lines, card.refund_label) == ("Requested", [f"2 × {milo.name}"],
                                                                      "Estimated refund")
    assert card.refund_text == money_text(rows[0].refund_amount) and card.credit_note == ""
    # Milo is all asked back: only the rice is offered now, and the page still says until when.
    assert [line.product_id for line in state.lines] == [rice.id]
    assert state.open_until.startswith("Returns open until ")


def test_a_line_whose_product_was_deleted_is_offered_and_goes_back_by_its_id(client, customer, make_product,
                                                                            admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1), (rice, 2))
    rice_line = next(item["id"] for item in order["items"] if item["product"]["id"] == rice.id)
    assert client.delete(f"/api/products/{rice.id}", headers=admin_headers).status_code == 204
    gone = next(line for line in offered(order["id"]) if line.item_id == rice_line)
    assert (gone.product_id, gone.name, gone.returnable, gone.field) == ("", rice.name, 2, f"qty-{rice_line}")
    _events, state = fire(OrderReturnsState, customer, "send_request", order_page(order["id"], customer),
                          form={f"qty-{rice_line}": "2", f"qty-{milo.id}": "0", "reason": "Spoilt"})
    assert state.items_error == "" and not state.form_open
    with session_scope() as session:
        (line,) = session.exec(select(models.ReturnLine)).all()
    assert (line.order_item_id, line.product_id, line.quantity) == (rice_line, None, 2)


def test_a_refusal_shows_at_the_field_it_concerns_and_writes_nothing(client, customer, make_product,
                                                                     admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    _events, state = fire(OrderReturnsState, customer, "send_request", order_page(order["id"], customer),
                          form={f"qty-{milo.id}": "1", "reason": "   "})
    assert state.reason_error == "Tell us why you are returning the items." and state.items_error == ""
    assert state.form_open  # the shopper puts it right
    _events, state = fire(OrderReturnsState, customer, "send_request", order_page(order["id"], customer),
                          form={f"qty-{milo.id}": "0", "reason": "Dented"})
    assert state.items_error == "Choose at least one item to return." and state.reason_error == ""
    _events, state = fire(OrderReturnsState, customer, "send_request", order_page(order["id"], customer),
                          form={f"qty-{milo.id}": "3", "reason": "Dented"})
    assert state.items_error == f"You can return at most 2 of {milo.name}."
    with session_scope() as session:
        assert returns.order_returns(session, customer, order["id"]) == []


def test_returns_close_and_the_page_says_until_when(client, customer, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1))
    with session_scope() as session:
        row = session.get(models.Order, order["id"])
        closes = row.delivered_at + timedelta(days=30)
        # With the hour: "until 29 Dec" read as through that day, and from its hour it was refused.
        assert open_until_text(row) == "Returns open until " + f"{closes:%d %b %Y, %H:%M}".lstrip("0") + " GMT"
        row.delivered_at -= timedelta(days=31)
        session.add(row)
    with session_scope() as session:
        assert open_until_text(session.get(models.Order, order["id"])) == ""
    _events, state = fire(OrderReturnsState, customer, "open_form", order_page(order["id"], customer))
    assert not state.can_return and not state.form_open


def test_someone_elses_order_shows_no_returns(client, customer, make_user, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1))
    stranger = make_user()

    def forged(state: OrderReturnsState) -> None:
        """A tab whose state says the form is open on someone else's order."""
        state.order_id, state.open_until, state.lines = order["id"], "Returns open until ...", offered(order["id"])

    events, state = fire(OrderReturnsState, stranger, "send_request", forged,
                         form={f"qty-{milo.id}": "1", "reason": "Mine now"})
    assert "Order not found." in str(events) and state.form_error == "Order not found."
    with session_scope() as session:
        assert returns.order_returns(session, customer, order["id"]) == []


def test_the_admin_tab_approves_receives_and_shows_each_step(client, customer, admin, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    ret = ask_return(client, customer, order["id"], [(milo.id, 1)])
    stock = stock_of(milo.id)
    _events, state = fire(AdminReturnsState, admin, "load")
    [row] = state.rows
    assert (row.status_text, row.can_decide, row.can_receive, row.can_refund) == ("Requested", True, False, False)
    assert (row.short_order, row.method_text, row.test_payment) == (order["id"][:8], "Cash", False)
    assert row.item_lines == [f"1 × {milo.name}"] and row.reason == "Too small"
    events, state = fire(AdminReturnsState, admin, "approve", return_id=ret["id"])
    assert return_row(ret["id"]).status == "approved" and "Return approved" in str(events)
    assert state.rows[0].can_receive and state.working == ""
    _events, state = fire(AdminReturnsState, admin, "receive", return_id=ret["id"])
    assert return_row(ret["id"]).status == "received" and stock_of(milo.id) == stock + 1
    assert state.rows[0].can_refund
    # A step that no longer follows is refused in the service's words and changes nothing.
    events, _state = fire(AdminReturnsState, admin, "approve", return_id=ret["id"])
    assert "This return is received: it cannot be approved now." in str(events)
    assert return_row(ret["id"]).status == "received"


def test_rejecting_asks_a_note_and_the_customer_sees_it(client, customer, admin, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    ret = ask_return(client, customer, order["id"], [(milo.id, 1)])

    def rejecting(state: AdminReturnsState) -> None:
        state.rejecting = ret["id"]

    _events, state = fire(AdminReturnsState, admin, "reject", rejecting, form={"note": "  "})
    assert state.note_error.startswith("Say why the return is not approved")
    assert return_row(ret["id"]).status == "requested" and state.rejecting == ret["id"]
    _events, state = fire(AdminReturnsState, admin, "reject", rejecting, form={"note": "The seal is broken"})
    assert return_row(ret["id"]).status == "rejected" and state.rejecting == ""
    with session_scope() as session:
        [view] = returns.order_returns(session, customer, order["id"])
    card = return_card(view)
    assert (card.status_text, card.note, card.badge) == ("Rejected", "The seal is broken", "destructive")


def test_the_back_office_offers_reject_beside_mark_received_on_an_approved_return(client, customer, make_product,
                                                                                  admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    ret = ask_return(client, customer, order["id"], [(milo.id, 1)])
    buttons = {}
    for moment in ("requested", "approved"):
        with session_scope() as session:
            [view] = returns.order_returns(session, customer, order["id"])
            row = admin_return_row(view, session.get(models.Order, order["id"]))
        buttons[moment] = (row.can_decide, row.can_receive, row.can_reject)
        if moment == "requested":
            step(client, admin_headers, ret["id"], "approve")
    assert buttons == {"requested": (True, False, True), "approved": (False, True, True)}


def test_a_rejected_return_shows_no_refund_estimate(client, customer, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))
    ret = ask_return(client, customer, order["id"], [(milo.id, 2)])
    with session_scope() as session:
        [view] = returns.order_returns(session, customer, order["id"])
    assert (return_card(view).refund_label, return_card(view).refund_text) == ("Estimated refund", money_text(
        view.ret.refund_amount))
    step(client, admin_headers, ret["id"], "reject", note="Opened food")
    with session_scope() as session:
        [view] = returns.order_returns(session, customer, order["id"])
    assert return_card(view).refund_text == ""  # it said "Estimated refund $25.92" beside "Not approved"
    asked_again = ask_return(client, customer, order["id"], [(milo.id, 3)], expect=400)
    assert asked_again["detail"] == f"You can return at most 2 of {milo.name}."
    ask_return(client, customer, order["id"], [(milo.id, 2)])
    all_asked = ask_return(client, customer, order["id"], [(milo.id, 1)], expect=400)
    assert all_asked["detail"] == f"Every {milo.name} of this order is being returned already."  # "at most 0"


def test_the_refund_runs_in_the_background():
    assert AdminReturnsState.event_handlers["refund"].is_background


def test_a_refunded_return_links_its_credit_note_which_reads_as_the_refund(client, customer, make_user,
                                                                          make_product, admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="5.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 3))
    ret = ask_return(client, customer, order["id"], [(milo.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    step(client, admin_headers, ret["id"], "refund")
    row = return_row(ret["id"])
    with session_scope() as session:
        [view] = returns.order_returns(session, customer, order["id"])
        note = returns.return_credit_note(session, customer, ret["id"])
        page = credit_note_view(note)
        paid = session.get(models.Order, order["id"])
    card = return_card(view)
    assert (card.status_text, card.refund_label, card.credit_note) == ("Refunded", "Refunded", row.credit_note_number)
    assert (page.title, page.number, page.payment_label) == ("Credit note", row.credit_note_number, "Refund")
    assert page.totals.total_text == money_text(row.refund_amount) and row.refund_amount > Decimal("12.00")
    assert [(line.name, line.quantity) for line in page.lines] == [(milo.name, 1)]
    assert page.where_text == "Too small" and page.payment_text.startswith("Refunded in cash")
    assert page.reference_text == (f"Corrects receipt {paid.receipt_number}" if paid.receipt_number else "")

    # The owner reads it; anyone else gets the not-found page, as for a return that does not exist.
    owner = credit_note_page_for(customer, ret["id"])
    assert owner.note.number == row.credit_note_number and not owner.not_found and owner.order_id == order["id"]
    assert credit_note_page_for(customer, "no-such-return").not_found
    other = credit_note_page_for(make_user(), ret["id"])
    assert other.not_found and other.note.number == ""


def credit_note_page_for(user: models.User, return_id: str) -> CreditNoteState:
    """CreditNoteState as its page load leaves it for ``user`` (then "Download PDF" pressed)."""

    def prepare(state: CreditNoteState) -> None:
        state.return_id = return_id
        state._fill(user)

    events, state = fire(CreditNoteState, user, "download_pdf", prepare)
    if not state.not_found:
        assert "credit-note-" in str(events)
    return state


def test_a_refund_the_provider_refused_shows_its_words_in_the_tab(client, customer, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 1))
    ret = ask_return(client, customer, order["id"], [(milo.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    with session_scope() as session:
        row = session.get(models.ReturnRequest, ret["id"])
        row.refund_state, row.refund_provider_status = "failed", "Insufficient balance on the merchant wallet"
        session.add(row)
    with session_scope() as session:
        [view] = returns.order_returns(session, customer, order["id"])
        shown = admin_return_row(view, session.get(models.Order, order["id"]))
    assert shown.refund_problem == "Insufficient balance on the merchant wallet" and shown.can_refund


def test_a_refused_mobile_money_refund_offers_refund_in_cash_beside_the_retry(client, customer, admin, make_product,
                                                                              admin_headers):
    milo = make_product(price="12.00", stock=20)
    refusing = momo_order(client, customer, admin_headers, (milo, 1), phone="024 123 9999")  # takes no refunds
    other = momo_order(client, customer, admin_headers, (milo, 1))
    failed, untried = (ask_return(client, customer, order["id"], [(milo.id, 1)]) for order in (refusing, other))
    for ret in (failed, untried):
        returned_and_received(client, admin_headers, ret["id"])
    _events, state = fire(AdminReturnsState, admin, "refund", return_id=failed["id"])
    rows = {row.id: row for row in state.rows}
    assert (rows[failed["id"]].can_refund, rows[failed["id"]].can_refund_in_cash) == (True, True)
    assert "cannot receive refunds" in rows[failed["id"]].refund_problem
    assert (rows[untried["id"]].can_refund, rows[untried["id"]].can_refund_in_cash) == (True, False)

    events, state = fire(AdminReturnsState, admin, "refund_in_cash", return_id=failed["id"])
    row = return_row(failed["id"])
    assert (row.status, row.refund_method) == ("refunded", "cash") and "Refunded in cash" in str(events)
    assert row.credit_note_number in str(events) and state.working == ""
    shown = {row.id: row for row in state.rows}[failed["id"]]
    assert (shown.status_text, shown.method_text, shown.can_refund, shown.can_refund_in_cash) == (
        "Refunded", "Cash", False, False)
    # Refused in the service's words for a return whose refund never failed; nothing changes.
    events, _state = fire(AdminReturnsState, admin, "refund_in_cash", return_id=untried["id"])
    assert "Cash is only for a mobile-money refund that did not go through" in str(events)
    assert return_row(untried["id"]).status == "received"
