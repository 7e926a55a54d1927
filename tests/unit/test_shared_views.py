"""Storefront views shared by every tab of a worker (issue 23): one rendering per catalogue version.

A listing page, the home page's figures and a product page are rendered once and handed to each
tab that asks while the catalogue's version is unchanged (and no older than
DD_LISTING_CACHE_SECONDS); a write that changes the catalogue shows at once.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from discount_deals.services import NotFound
from discount_deals.state.shop import shared_views
from discount_deals.state.shop.shared_views import ListingQuery, listing_page, product_page


@pytest.fixture
def shared(monkeypatch, make_product):
    """Every check reads the catalogue's version afresh (the worker reads it once a second)."""
    monkeypatch.setattr(shared_views, "VERSION_CHECK_S", 0.0)
    shared_views.forget_all()
    yield make_product
    shared_views.forget_all()


def test_tabs_asking_for_the_same_page_get_the_same_rendering(shared):
    for n in range(3):
        shared(name=f"Shared rice {n}", price="10.00")
    first = listing_page(ListingQuery(search="rice"))
    again = listing_page(ListingQuery(search="rice"))
    assert again is first and first.count == 3 and len(first.products) == 3
    assert listing_page(ListingQuery(search="rice", ordering="price-high")) is not first  # another query


def test_a_catalogue_write_shows_at_once(shared, session):
    product = shared(name="Shared kettle", price="40.00")
    before = listing_page(ListingQuery())
    assert [card.price_text for card in before.products] == ["$40.00"]
    with session.begin_nested():
        product.price = Decimal("30.00")
        product.effective_price = Decimal("30.00")
        session.add(product)
    session.commit()
    after = listing_page(ListingQuery())
    assert after is not before and [card.price_text for card in after.products] == ["$30.00"]


def test_a_stock_change_shows_once_the_rendering_is_older_than_its_limit(shared, session, monkeypatch):
    """Stock does not change the catalogue's version (orders would churn every cache)."""
    product = shared(name="Shared soap", price="5.00", stock=7)
    assert listing_page(ListingQuery()).products[0].stock == 7
    product.stock = 2
    session.add(product)
    session.commit()
    assert listing_page(ListingQuery()).products[0].stock == 7  # within DD_LISTING_CACHE_SECONDS
    monkeypatch.setenv("DD_LISTING_CACHE_SECONDS", "0")
    from discount_deals.config.settings import get_settings

    get_settings.cache_clear()
    try:
        assert listing_page(ListingQuery()).products[0].stock == 2
    finally:
        monkeypatch.delenv("DD_LISTING_CACHE_SECONDS")
        get_settings.cache_clear()


def test_a_product_page_is_shared_and_hidden_ones_are_not_found(shared, session):
    product = shared(name="Shared fan", price="99.00")
    assert product_page(product.id) is product_page(product.id)
    assert product_page(product.id).card.name == "Shared fan"
    product.status = "inactive"
    session.add(product)
    session.commit()
    with pytest.raises(NotFound):
        product_page(product.id)
