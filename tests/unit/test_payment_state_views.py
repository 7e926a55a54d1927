"""An order's payment state said once (issue 33 item 5): My Orders and the order page show it
beside the status badge (Paid, Awaiting payment, Payment failed, Pay on delivery, Pay at pickup,
Refunded, Not charged) with "Test payment" for the fake provider's; the back office's list, order
page and the riders' delivery sheet mark test payments. Real states and views over the test
database."""

from __future__ import annotations

from decimal import Decimal

import pytest
from reflex.state import State

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.display import money_text
from discount_deals.services import delivery_sheet
from discount_deals.services.orders import status as lifecycle
from discount_deals.state.account.order_detail import OrderDetailState, read_order
from discount_deals.state.account.orders import OrdersState
from discount_deals.state.admin.order_views import order_page, order_row
from discount_deals.state.admin.delivery_sheet import stop_view
from ..support.loops import run_coroutine as run

TOTAL = money_text(Decimal("20.00"))
MOMO = "mobile_money"
CASH = "cash_on_delivery"
# (status, payment status, method, delivery, test) -> (payment text, badge, test mark)
CASES = [
    (("pending", "pay_on_delivery", CASH, "delivery", False), ("Pay on delivery", "warning", False)),
    (("pending", "pay_on_delivery", CASH, "pickup", False), ("Pay at pickup", "warning", False)),
    (("pending", "awaiting_payment", MOMO, "delivery", False), ("Awaiting payment", "warning", False)),
    (("pending", "failed", MOMO, "delivery", True), ("Payment failed", "destructive", True)),
    (("processing", "paid", MOMO, "delivery", False), ("Paid", "success", False)),
    (("processing", "paid", MOMO, "delivery", True), ("Paid", "success", True)),
    (("delivered", "paid", CASH, "delivery", True), ("Paid", "success", False)),  # cash after a test try: real
    (("cancelled", "refunded", MOMO, "delivery", False), ("Refunded", "secondary", False)),
    (("cancelled", "failed", MOMO, "delivery", True), ("Not charged", "secondary", True)),
]


def _order(user: models.User, status: str, payment: str, method: str, delivery: str, test: bool) -> models.Order:
    with session_scope() as session:
        order = models.Order(user_id=user.id, status=status, payment_status=payment, payment_method=method,
                             delivery_method=delivery, payment_test=test, item_count=1, subtotal=Decimal("20.00"),
                             total=Decimal("20.00"), address={"line1": "7 Independence Avenue", "city": "Accra",
                                                              "state": "Greater Accra"})
        session.add(order)
    return order


def _state(state_class):
    async def go():
        return await State(_reflex_internal_init=True).get_state(state_class)

    return run(go())


@pytest.fixture
def placed(customer):
    return [(_order(customer, *fields), shown) for fields, shown in CASES]


def test_my_orders_show_the_payment_state_beside_the_status(customer, placed):
    state = _state(OrdersState)
    state._load(customer)
    cards = {card.id: card for card in state.orders}
    for order, (text, badge, test) in placed:
        card = cards[order.id]
        assert (card.payment_text, card.payment_badge, card.test_payment) == (text, badge, test), order.status
        assert card.status_text == lifecycle.status_label(order.status)  # the status badge is unchanged


def test_the_order_page_shows_the_payment_state_and_the_test_mark(customer, placed):
    state = _state(OrderDetailState)
    for order, (text, badge, test) in placed:
        state._show(*read_order(customer, order.id))
        assert (state.payment_status_text, state.payment_badge, state.payment_test) == (text, badge, test)


def test_the_back_office_marks_test_payments(admin, customer, placed):
    with session_scope() as session:
        rows, _count = lifecycle.admin_orders(session, admin, limit=50)
    views = {row.order.id: order_row(row) for row in rows}
    for order, (text, badge, test) in placed:
        assert (views[order.id].payment_text, views[order.id].payment_badge, views[order.id].test_payment) == (
            text, badge, test)
        assert order_page(order, customer).test_payment is test


def _sheet_text(admin, order: models.Order) -> tuple[str, bool, bool]:
    with session_scope() as session:
        ((stop,),) = [group.stops for group in delivery_sheet.order_sheet(session, admin, order.id)]
    view = stop_view(stop)
    return view.payment_text, view.collect, view.test_payment


def test_the_delivery_sheet_says_a_test_payment_moved_no_money(admin, customer):
    test_paid = _order(customer, "processing", "paid", MOMO, "delivery", True)
    real_paid = _order(customer, "processing", "paid", MOMO, "delivery", False)
    cash = _order(customer, "processing", "pay_on_delivery", CASH, "delivery", False)
    test_awaiting = _order(customer, "pending", "awaiting_payment", MOMO, "delivery", True)
    assert _sheet_text(admin, test_paid) == (f"Test payment: no money moved ({TOTAL})", False, True)
    assert _sheet_text(admin, real_paid) == (f"Paid ({TOTAL}): nothing to collect", False, False)
    assert _sheet_text(admin, cash) == (f"Collect {TOTAL} in cash", True, False)
    assert _sheet_text(admin, test_awaiting) == (
        f"Awaiting payment ({TOTAL}). Test payment: no money moved", False, True)
