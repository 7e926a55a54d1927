"""A product the admin takes off sale (hidden, inactive or deleted) while it waits in a cart: it
is priced into no total, refused at checkout with its own code and words (never "not enough
stock"), and nothing is written."""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.services import ErrorCode, ServiceError, catalog
from discount_deals.services import cart as cart_service
from discount_deals.services import checkout as checkout_service
from discount_deals.services import orders as order_service

from ..builders.catalog import stock_of, update_product
from ..builders.checkout import fill_cart
from ..builders.rows import count_rows
from ..builders.shop import add_address, cart_quantities

CHECKOUT = "/api/orders/checkout/"


@pytest.fixture
def withdrawn_cart(client, customer, customer_headers, make_product):
    """A $10 line and a $30 line whose product the admin then hid: (kept, hidden)."""
    add_address(customer, is_default=True)
    kept = make_product(name="Kept Rice", price="10.00", stock=5)
    hidden = make_product(name="Withdrawn Fan", price="30.00", stock=5)
    fill_cart(client, customer_headers, (kept, 1), (hidden, 1))
    update_product(hidden.id, status="inactive")
    return kept, hidden


def test_the_review_totals_only_what_can_be_bought(customer, withdrawn_cart):
    _kept, hidden = withdrawn_cart
    with session_scope() as session:
        quote = checkout_service.quote(session, customer)
    assert len(quote.lines) == 2  # the hidden line is still reviewed, marked
    (marked,) = [line for line in quote.lines if line.product.id == hidden.id]
    assert marked.stock.withdrawn and marked.stock.text == "No longer available"
    assert quote.totals.subtotal == Decimal("10.00")
    assert quote.totals.item_count == 1
    assert quote.totals.total == Decimal("16.79")  # 10.00 + 5.99 shipping + 0.80 tax, not 49.19


def test_checkout_refuses_a_hidden_line_by_its_own_code_and_writes_nothing(client, customer, customer_headers,
                                                                           withdrawn_cart):
    kept, hidden = withdrawn_cart
    response = client.post(CHECKOUT, json={}, headers=customer_headers)
    assert response.status_code == 409
    assert response.json() == {
        "detail": "Withdrawn Fan is no longer available. Remove it from your cart to check out."
    }
    with pytest.raises(ServiceError) as refused:
        # The review's total as the page showed it: the line's own refusal comes first.
        order_service.checkout(customer, expected_total=Decimal("16.79"))
    assert refused.value.code == ErrorCode.NO_LONGER_AVAILABLE
    assert "stock" not in refused.value.detail
    assert count_rows(models.Order) == 0 and count_rows(models.OrderItem) == 0
    assert (stock_of(kept.id), stock_of(hidden.id)) == (5, 5)
    assert cart_quantities(customer) == {kept.id: 1, hidden.id: 1}


def test_once_removed_the_rest_checks_out(client, customer, customer_headers, withdrawn_cart):
    kept, hidden = withdrawn_cart
    with session_scope() as session:
        lines = {line.product.id: line.id for line in cart_service.cart_lines(session, customer)}
    with write_session() as session:
        assert cart_service.fit_to_stock(session, customer, lines[hidden.id]) is None  # its "Remove"
    order = order_service.checkout(customer, expected_total=Decimal("16.79"))
    assert order.total == Decimal("16.79") and stock_of(kept.id) == 4


def test_a_hidden_line_cannot_change_quantity_and_says_why(client, customer, customer_headers, withdrawn_cart):
    kept, hidden = withdrawn_cart
    with session_scope() as session:
        line_id = next(line.id for line in cart_service.cart_lines(session, customer) if line.product.id == hidden.id)
    response = client.patch(f"/api/cart/cartitems/{line_id}/", json={"quantity": 2}, headers=customer_headers)
    assert response.status_code == 400
    assert response.json()["detail"] == "Withdrawn Fan is no longer available."
    with pytest.raises(ServiceError) as refused, write_session() as session:
        cart_service.set_quantity(session, customer, line_id, 2)
    assert refused.value.code == ErrorCode.NO_LONGER_AVAILABLE
    assert cart_quantities(customer) == {kept.id: 1, hidden.id: 1}


def test_the_products_gone_since_are_named(client, admin_headers, make_product):
    shown = make_product(name="Still Sold")
    hidden = make_product(name="Hidden Now")
    deleted = make_product(name="Deleted Now")
    update_product(hidden.id, is_available=False)
    assert client.delete(f"/api/products/{deleted.id}", headers=admin_headers).status_code == 204
    with session_scope() as session:
        names = cart_service.unavailable_names(
            session, {shown.id: "Still Sold", hidden.id: "Hidden Now", deleted.id: "Deleted Now", "": "Junk"}
        )
        found = catalog.products_by_ids(session, [shown.id, hidden.id, deleted.id], hidden=True)
    assert names == ["Hidden Now", "Deleted Now", "Junk"]
    assert set(found) == {shown.id, hidden.id}  # a guest's hidden line is still shown, marked
    assert cart_service.withdrawn_from_cart(["Deleted Now"]) == (
        "Deleted Now is no longer available and was removed from your cart."
    )
