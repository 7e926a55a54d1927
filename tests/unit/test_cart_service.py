"""The cart and favourite services as the Reflex UI calls them (no HTTP)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals.db import session_scope
from discount_deals.services import NotAuthenticated, NotFound, ValidationFailed
from discount_deals.services import cart as cart_service
from discount_deals.services import checkout as checkout_service
from discount_deals.services import favourites as favourite_service
from discount_deals.services.cart import parse_quantity


@pytest.mark.parametrize("raw, expected", [(1, 1), ("3", 3), (" 4 ", 4), (2.0, 2)])
def test_parse_quantity_accepts_whole_numbers(raw, expected):
    assert parse_quantity(raw) == expected


@pytest.mark.parametrize("raw", [0, -2, 1.5, "x", "--3", "", None, True, "1e3"])
def test_parse_quantity_refuses_the_rest(raw):
    with pytest.raises(ValidationFailed):
        parse_quantity(raw)


def test_zero_is_allowed_only_when_asked_and_negatives_never():
    assert parse_quantity(0, minimum=0) == 0
    with pytest.raises(ValidationFailed, match="cannot be negative"):
        parse_quantity(-1, minimum=0)


def test_every_cart_function_needs_a_user(session):
    for call in (
        lambda: cart_service.cart_lines(session, None),
        lambda: cart_service.add_item(session, None, "p", 1),
        lambda: cart_service.set_quantity(session, None, "i", 1),
        lambda: cart_service.remove_item(session, None, "i"),
        lambda: cart_service.clear_cart(session, None),
        lambda: cart_service.merge_guest_cart(session, None, [("p", 1)]),
        lambda: checkout_service.quote(session, None),
        lambda: favourite_service.list_favourites(session, None),
        lambda: favourite_service.add_favourite(session, None, "p"),
        lambda: favourite_service.remove_favourite(session, None, "p"),
        lambda: favourite_service.favourite_product_ids(session, None),
    ):
        with pytest.raises(NotAuthenticated):
            call()


def test_cart_lines_and_summary(customer, make_product):
    rice = make_product(name="Rice", price="10.00", discount_price="8.00", stock=9)
    oil = make_product(name="Oil", price="12.50", stock=9)
    with session_scope() as session:
        cart_service.add_item(session, customer, rice.id, 2)
        cart_service.add_item(session, customer, oil.id)
        cart_service.add_item(session, customer, rice.id, 1)
    with session_scope() as session:
        lines = cart_service.cart_lines(session, customer)
        summary = checkout_service.quote(session, customer).totals
    assert [(line.product.name, line.quantity, line.unit_price, line.original_price) for line in lines] == [
        ("Rice", 3, Decimal("8.00"), Decimal("10.00")),
        ("Oil", 1, Decimal("12.50"), Decimal("12.50")),
    ]
    assert lines[0].line_total == Decimal("24.00")
    assert lines[0].category is not None
    # 36.50 subtotal: shipping 5.99, tax 2.92, total 45.41, saved 6.00; 13.51 more ships free.
    assert (summary.subtotal, summary.shipping, summary.tax, summary.total) == (
        Decimal("36.50"), Decimal("5.99"), Decimal("2.92"), Decimal("45.41"),
    )
    assert summary.savings == Decimal("6.00")
    assert summary.item_count == 4
    assert summary.free_shipping_gap == Decimal("13.51")


def test_set_quantity_zero_removes_and_other_users_get_404(make_user, make_product):
    alice, bob = make_user(), make_user()
    product = make_product(stock=5)
    with session_scope() as session:
        item = cart_service.add_item(session, alice, product.id, 2)
        cart_id = item.cart_id
    with session_scope() as session:
        for call in (
            lambda: cart_service.set_quantity(session, bob, item.id, 1),
            lambda: cart_service.remove_item(session, bob, item.id),
            lambda: cart_service.cart_line(session, bob, item.id),
            lambda: cart_service.clear_cart(session, bob, cart_id),
        ):
            with pytest.raises(NotFound):
                call()
    with session_scope() as session:
        assert cart_service.set_quantity(session, alice, item.id, 0) is None
        assert cart_service.cart_lines(session, alice) == []


def test_one_cart_per_user(customer, make_product):
    products = [make_product(), make_product()]
    with session_scope() as session:
        first = cart_service.add_item(session, customer, products[0].id)
        second = cart_service.add_item(session, customer, products[1].id)
        assert first.cart_id == second.cart_id
        assert cart_service.get_cart(session, customer).id == first.cart_id


def test_favourites_service(customer, make_product):
    first, second = make_product(), make_product()
    with session_scope() as session:
        _entry, created = favourite_service.add_favourite(session, customer, first.id)
        assert created
        entry, created = favourite_service.add_favourite(session, customer, first.id)
        assert not created
        assert entry.product.id == first.id
        favourite_service.add_favourite(session, customer, second.id)
        assert sorted(favourite_service.favourite_product_ids(session, customer)) == sorted([first.id, second.id])
        assert favourite_service.count_favourites(session, customer) == 2
        favourite_service.remove_favourite(session, customer, first.id)
        assert favourite_service.favourite_product_ids(session, customer) == [second.id]
        with pytest.raises(NotFound):
            favourite_service.remove_favourite(session, customer, first.id)
        with pytest.raises(NotFound):
            favourite_service.add_favourite(session, customer, "no-such-product")


def test_a_guest_cart_merges_line_by_line_and_skips_what_the_rules_refuse(customer, make_product):
    rice = make_product(name="Rice", price="10.00", stock=5)
    sold_out = make_product(name="Sugar", price="3.00", stock=0)
    oil = make_product(name="Oil", price="12.50", stock=2)
    with session_scope() as session:
        cart_service.add_item(session, customer, rice.id, 1)
    with session_scope() as session:
        merged = cart_service.merge_guest_cart(
            session, customer,
            [(rice.id, 2), (sold_out.id, 1), ("no-such-product", 1), (oil.id, 3), (oil.id, 2)],
        )
    assert merged == 2
    with session_scope() as session:
        lines = cart_service.cart_lines(session, customer)
    # Rice merges into the existing line; three oils are more than the stock, two fit.
    assert sorted((line.product.name, line.quantity) for line in lines) == [("Oil", 2), ("Rice", 3)]
