"""Query counts of the hot paths (issue 35 item 6, as Saleor's benchmarks do): the product listing,
the product page, the cart and checkout send a fixed number of SQL statements whatever the number
of products, lines or reviews. Each is measured with 2 and with 20 against the same number written
here, so a query per row (an N+1) fails; a change that adds a query on purpose updates the number.

Counted on the real engine (``before_cursor_execute``) from cold caches (tests/support/statements.py);
the guest is anonymous, the shopper sends a bearer token.
"""

from __future__ import annotations


import pytest

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.state.shop import reviews as reviews_state
from discount_deals.state.shop import shared_views

from ..builders.checkout import fill_cart
from ..builders.reviews import add_review
from ..support.statements import statements_of

SIZES = (2, 20)
# Statements that do work (transaction control left out), the same on SQLite and PostgreSQL. The
# listings and the product page read from cold caches: the discount-window check, the catalogue
# version and the count run each time.
LISTING_API = 7
STOREFRONT_LISTING = 14  # a page of cards and its facet counts
PRODUCT_API = 1
PRODUCT_PAGE = 10  # the card, related products, a page of reviews and the reader's own
CART_READ = 2
CART_ADD = 8  # a new line counts the lines first (services.cart.MAX_LINES)
CHECKOUT = 18  # stock taken in one guarded UPDATE for every line (it was one per line); lines taken off sale looked for in one read
LISTING_FILTERS = {"category": "Groceries", "brand": "shoprite", "price_range": "0-25", "ordering": "price",
                   "page_size": "20"}


@pytest.fixture
def shelf(make_category, make_product):
    """``shelf(n)``: n products of one category and brand, half of them discounted; the first."""

    def stock(n: int) -> list[models.Product]:
        groceries = make_category("Groceries")
        return [make_product(f"Rice {k:02d}", f"{10 + k}.00", f"{9 + k}.00" if k % 2 else None, category=groceries,
                             stock=50, tags=["rice"]) for k in range(n)]

    return stock


def _count(call) -> int:
    caught = statements_of(call)
    _reports.append(caught.report())
    return len(caught)


@pytest.fixture(autouse=True)
def _reports_on_failure():
    """The statements counted, shown with a failing test's output (which ones were added)."""
    _reports.clear()
    yield
    for report in _reports:
        print(f"\n{report}")


_reports: list[str] = []


@pytest.mark.parametrize("size", SIZES)
def test_the_product_listing_api_with_filters(client, shelf, size):
    shelf(size)
    answer = {}
    count = _count(lambda: answer.update(client.get("/api/products/", params=LISTING_FILTERS).json()))
    assert len(answer["results"]) == min(size, 16)  # 0-25 keeps Rice 00 to Rice 15
    assert count == LISTING_API


@pytest.mark.parametrize("size", SIZES)
def test_the_storefront_listing_and_its_facets(clean_db, shelf, size):
    shelf(size)
    query = shared_views.ListingQuery(category="Groceries", brand="shoprite", ordering="price-low")
    pages = []
    count = _count(lambda: pages.extend([shared_views.listing_page(query), shared_views.listing_facets(query)]))
    assert pages[0].count == size
    assert count == STOREFRONT_LISTING


@pytest.mark.parametrize("size", SIZES)
def test_the_product_api(client, shelf, size):
    shown, *related = shelf(size + 1)
    with session_scope() as session:
        session.get(models.Product, shown.id).related_products = [p.id for p in related]
    answer = {}
    count = _count(lambda: answer.update(client.get(f"/api/products/{shown.id}").json()))
    assert answer["data"]["id"] == shown.id
    assert count == PRODUCT_API


@pytest.mark.parametrize("size", SIZES)
def test_what_the_product_page_loads(clean_db, make_user, shelf, size):
    """The product page's one load event: the shared page (its card and related products, from its
    category: the same queries for 2 as for 20) and its reviews."""
    shown, *_same_category = shelf(size + 1)
    for _ in range(size):
        add_review(shown, make_user(), rating=4)
    reader = make_user()
    loaded = []
    count = _count(lambda: loaded.extend([shared_views.product_page(shown.id),
                                          reviews_state._read(shown.id, reader, 1)]))
    assert loaded[0].card.id == shown.id and len(loaded[1][0].reviews) == min(size, reviews_state.PAGE_SIZE)
    assert count == PRODUCT_PAGE


@pytest.mark.parametrize("size", SIZES)
def test_the_cart(client, customer, customer_headers, shelf, size):
    *in_cart, extra = shelf(size + 1)
    fill_cart(client, customer_headers, *((product, 1) for product in in_cart))
    answer = {}
    read = _count(lambda: answer.update(client.get("/api/cart/cartitems/", headers=customer_headers).json()))
    assert len(answer["results"]) == size
    added = _count(lambda: client.post("/api/cart/cartitems/", json={"product": extra.id, "quantity": 1},
                                       headers=customer_headers))
    assert (read, added) == (CART_READ, CART_ADD)


@pytest.mark.parametrize("size", SIZES)
def test_placing_an_order(client, shopper, shopper_headers, shelf, size):
    fill_cart(client, shopper_headers, *((product, 2) for product in shelf(size)))
    answers = []
    count = _count(lambda: answers.append(client.post("/api/orders/checkout/", json={}, headers=shopper_headers)))
    assert answers[0].status_code == 201 and answers[0].json()["item_count"] == 2 * size, answers[0].text
    assert count == CHECKOUT


