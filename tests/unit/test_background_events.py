"""Handlers that wait (password hashing, placing an order, the payment pauses) are background events:
they take the Reflex state lock only to read and change state (issue 12, item 10)."""

import pytest

from discount_deals.state.account.auth import LoginState, RegisterState
from discount_deals.state.admin.orders import AdminOrdersState
from discount_deals.state.admin.returns import AdminReturnsState
from discount_deals.state.shop.checkout import CheckoutState


@pytest.mark.parametrize(
    "state, name",
    [(CheckoutState, "place_order"), (LoginState, "submit"), (RegisterState, "submit"),
     # a refund asks the payment provider over the network
     (AdminOrdersState, "mark_refunded"), (AdminReturnsState, "refund")],
)
def test_waiting_handlers_run_in_the_background(state, name):
    assert state.event_handlers[name].is_background
