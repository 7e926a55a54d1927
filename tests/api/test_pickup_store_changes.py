"""A pickup store closed or moved with orders still to collect there: each such order is flagged
"Pickup store changed" for an admin to agree another store or delivery with its customer (they
kept the store as it was, and nobody was told); an admin marks the flag resolved once settled."""

from __future__ import annotations

import pytest

from discount_deals.db import session_scope, write_session
from discount_deals.models import User
from discount_deals.services import ServiceError
from discount_deals.services.orders import flags

from ..builders.checkout import add_store, fill_cart, order_row, place

STORE = "/api/pickup-stores/{}/"


def pickup_order(client, headers, product, store) -> dict:
    fill_cart(client, headers, (product, 1))
    return place(client, headers, {"delivery_method": "pickup", "pickup_store": store.id})


def test_closing_a_store_flags_the_orders_still_to_collect_there(client, customer_headers, admin_headers,
                                                                   make_product):
    store, other = add_store(), add_store("Melcom Osu", retailer="melcom")
    product = make_product(price="10.00", stock=10)
    waiting = pickup_order(client, customer_headers, product, store)
    collected = pickup_order(client, customer_headers, product, store)
    elsewhere = pickup_order(client, customer_headers, product, other)
    for status in ("processing", "ready_for_pickup", "delivered"):
        assert client.patch(f"/api/orders/{collected['id']}/", json={"status": status},
                            headers=admin_headers).status_code == 200
    answer = client.patch(STORE.format(store.id), json={"is_active": False}, headers=admin_headers)
    assert answer.status_code == 200, answer.text
    flagged = order_row(waiting["id"])
    assert flagged.attention == "pickup_store_changed"
    assert flagged.attention_note == ("Shoprite Accra Mall was closed (hidden from checkout) before this order was "
                                      "collected: agree another store or delivery with the customer.")
    assert order_row(collected["id"]).attention is None and order_row(elsewhere["id"]).attention is None
    # A change of opening hours concerns nobody; a move does.
    assert client.patch(STORE.format(other.id), json={"opening_hours": "Daily 8-20"},
                        headers=admin_headers).status_code == 200
    assert order_row(elsewhere["id"]).attention is None
    assert client.patch(STORE.format(other.id), json={"address": "12 Cantonments Road"},
                        headers=admin_headers).status_code == 200
    assert "moved to 12 Cantonments Road" in order_row(elsewhere["id"]).attention_note


def test_an_admin_marks_the_flag_resolved(client, customer_headers, admin_headers, admin, make_product):
    store = add_store()
    order = pickup_order(client, customer_headers, make_product(price="10.00", stock=10), store)
    client.patch(STORE.format(store.id), json={"is_active": False}, headers=admin_headers)
    with write_session() as session, pytest.raises(ServiceError) as stale:  # the flag read is not this one
        flags.resolve_flag(session, session.get(User, admin.id), order["id"], "amount_mismatch")
    assert stale.value.code == "nothing_to_resolve"
    with write_session() as session:
        flags.resolve_flag(session, session.get(User, admin.id), order["id"], "pickup_store_changed")
    row = order_row(order["id"])
    assert (row.attention, row.attention_note) == (None, "")
    with session_scope() as session, pytest.raises(ServiceError) as again:
        flags.resolve_flag(session, session.get(User, admin.id), order["id"], "pickup_store_changed")
    assert again.value.code == "nothing_to_resolve"
