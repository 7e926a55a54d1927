"""The header's search field sends the shopper to /products with the search in the URL."""

from discount_deals.state.shop.search import search_url


def test_search_url_encodes_and_trims_the_text():
    assert search_url("  jasmine   rice ") == "/products?search=jasmine+rice"
    assert search_url("rice & beans") == "/products?search=rice+%26+beans"
    assert search_url("   ") == "/products"
    assert search_url("x" * 150) == "/products?search=" + "x" * 100
