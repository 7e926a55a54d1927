"""services.catalog.related: the product page's related products."""

from __future__ import annotations

from discount_deals.db import session_scope
from discount_deals.models import Product
from discount_deals.services.catalog.related import related_products


def _names(product_id: str, limit: int = 4) -> list[str]:
    with session_scope() as session:
        product = session.get(Product, product_id)
        return [p.name for p, _ in related_products(session, product, limit)]


def test_chosen_related_products_come_first_in_their_order(make_category, make_product):
    food, tech = make_category("Food"), make_category("Tech")
    phone = make_product("Phone", "100.00", category=tech)
    radio = make_product("Radio", "30.00", category=tech, stock=0)  # chosen: shown even without stock
    hidden = make_product("Hidden", "5.00", category=food, status="inactive")
    big = make_product("Big saving", "10.00", "5.00", category=food)
    rice = make_product("Rice", "10.00", category=food, related_products=[radio.id, "missing-id", hidden.id, phone.id])
    assert _names(rice.id) == ["Radio", "Phone", "Big saving"]
    assert _names(rice.id, limit=1) == ["Radio"]
    assert _names(rice.id, limit=0) == []
    assert big.id != rice.id


def test_then_same_category_in_stock_biggest_discount_first(make_category, make_product):
    food, tech = make_category("Food"), make_category("Tech")
    rice = make_product("Rice", "10.00", category=food)
    make_product("Beans", "10.00", "8.00", category=food)  # 20 %
    make_product("Oil", "10.00", "5.00", category=food)  # 50 %
    make_product("Flour", "10.00", category=food)  # no discount
    make_product("Sugar", "10.00", "1.00", category=food, stock=0)  # out of stock
    make_product("Salt", "10.00", "2.00", category=food, is_available=False)  # hidden
    make_product("Tv", "10.00", "1.00", category=tech)  # other category
    assert _names(rice.id) == ["Oil", "Beans", "Flour"]


def test_a_product_is_never_its_own_related_product(make_category, make_product):
    food = make_category("Food")
    rice = make_product("Rice", "10.00", category=food)
    with session_scope() as session:
        product = session.get(Product, rice.id)
        product.related_products = [rice.id]
        session.add(product)
    assert _names(rice.id) == []
