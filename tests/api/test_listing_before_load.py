"""A tap on the listing that the server runs before the page's own on-load event (CI, stop 43).

The browser sends the page's hydrate in its websocket's CONNECT packet; the on-load events it
leads to are queued on the server, carrying the address of that moment. A search typed while
the page connected could reach the queue first: it showed its results and put
``/products?search=…`` in the bar, then the late on-load read the old address (``/products``)
and put the whole catalogue back, emptying the box under the shopper's words.

The handlers run here as Reflex runs them, in the order the server's queue gave them.
"""

from __future__ import annotations

import pytest
from reflex.state import State

from discount_deals.state.shop.catalog import ProductsState

from ..support.loops import run_coroutine as run


@pytest.fixture(autouse=True)
def _emptied(clean_db, use_settings) -> None:
    """Each test counts only its own products (none from the listing cache)."""
    use_settings(DD_LISTING_CACHE_SECONDS="0")


def _at(root: State, address: str) -> None:
    """The browser's address on the events that follow (what each event's router data says)."""
    path, _, query = address.partition("?")
    data = {"pathname": path, "asPath": address,
            "query": dict(part.split("=", 1) for part in query.split("&")) if query else {}}
    root.router_data = root._update_router_vars(data, root.router_data or {})


def _events(*steps) -> ProductsState:
    async def go():
        root = State(_reflex_internal_init=True)
        state = await root.get_state(ProductsState)
        for step in steps:
            if step[0] == "at":
                _at(root, step[1])
            elif step[0] == "hydrated":
                root.is_hydrated = step[1]
            elif step[0] == "check":
                step[1](state)
            else:
                handler = ProductsState.event_handlers[step[0]].fn(state, *step[1:])
                if hasattr(handler, "__aiter__"):
                    async for _ in handler:
                        pass
                elif hasattr(handler, "__next__"):
                    for _ in handler:
                        pass
        return state

    return run(go())


def test_a_search_that_ran_before_the_pages_load_is_kept(make_product):
    make_product(name="Zanzibar Clove Tea 50 bags")
    make_product(name="Plain Rice 1kg")
    state = _events(("at", "/products"), ("hydrated", False),  # the page is connecting
                    ("apply_search", "zanzibar"),  # the tap reached the queue first
                    ("load",),  # the page's on-load, with the address of before the tap
                    ("hydrated", True))
    assert state.search == "zanzibar"
    assert [p.name for p in state.products] == ["Zanzibar Clove Tea 50 bags"]
    assert state.showing_text == 'Showing 1 of 1 products for "zanzibar"'
    assert state.search_box_version == 0  # the box keeps what was typed
    assert state.loading is False


def test_a_filter_tapped_before_the_load_is_kept_and_the_next_load_reads_the_address(make_product):
    make_product(name="Zanzibar Clove Tea 50 bags", price="4.00")
    make_product(name="Plain Rice 1kg", price="30.00")
    def tapped(state):
        assert state.price_range == "25-50"
        assert [p.name for p in state.products] == ["Plain Rice 1kg"]

    state = _events(("at", "/products"), ("hydrated", False), ("set_price_range", "25-50"), ("load",),
                    ("hydrated", True), ("check", tapped),
                    # Back to the address before the tap: its own on-load reads the address again.
                    ("at", "/products"), ("hydrated", False), ("load",), ("hydrated", True))
    assert state.price_range == ""
    assert sorted(p.name for p in state.products) == ["Plain Rice 1kg", "Zanzibar Clove Tea 50 bags"]


def test_once_loaded_a_page_load_reads_the_address(make_product):
    make_product(name="Zanzibar Clove Tea 50 bags")
    state = _events(("at", "/products"), ("hydrated", False), ("load",), ("hydrated", True),
                    ("apply_search", "zanzibar"),
                    ("at", "/products"), ("hydrated", False), ("load",), ("hydrated", True))  # Back
    assert state.search == ""
    assert state.search_box_version == 1  # the box is emptied with the search


# A helper's review of the first fix found these: the early tap was applied to a listing that had not
# read the address yet, so the address's own filters were lost instead of the tap.


@pytest.fixture
def rice_and_oil(make_product, make_category) -> None:
    rice = make_category("Rice")
    make_product(name="Jasmine Rice 5kg", price="30.00", category=rice)
    make_product(name="Basmati Rice 1kg", price="8.00", category=rice)
    make_product(name="Palm Oil 1L", price="5.00")


def test_an_early_sort_on_a_shared_filtered_address_keeps_the_addresss_filter(rice_and_oil):
    state = _events(("at", "/products?category=rice"), ("hydrated", False), ("set_sort", "price-low"), ("load",),
                    ("hydrated", True))
    assert (state.category, state.sort_value) == ("rice", "price-low")
    assert [p.name for p in state.products] == ["Basmati Rice 1kg", "Jasmine Rice 5kg"]
    assert state._url() == "/products?category=rice&sort=price-low"


def test_an_early_filter_on_a_searched_address_keeps_the_search_and_shows_it_in_the_box(make_product):
    make_product(name="Zanzibar Clove Tea 50 bags", price="4.00")
    make_product(name="Zanzibar Spice Mix", price="30.00")
    state = _events(("at", "/products?search=zanzibar"), ("hydrated", False), ("set_price_range", "0-25"),
                    ("load",), ("hydrated", True))
    assert (state.search, state.price_range) == ("zanzibar", "0-25")
    assert [p.name for p in state.products] == ["Zanzibar Clove Tea 50 bags"]
    assert state.search_box_version == 1  # the box shows the address's search


def test_two_early_taps_keep_both(rice_and_oil):
    # The second tap left before the first one's address reached the bar: it carries the page's.
    state = _events(("at", "/products"), ("hydrated", False), ("set_category", "rice"),
                    ("set_sort", "price-high"), ("load",), ("hydrated", True))
    assert (state.category, state.sort_value) == ("rice", "price-high")
    assert [p.name for p in state.products] == ["Jasmine Rice 5kg", "Basmati Rice 1kg"]


def test_a_header_search_then_an_early_sort_keeps_the_search(rice_and_oil, make_product):
    make_product(name="Olive Oil 500ml", price="9.00")
    state = _events(("at", "/products?category=rice"), ("hydrated", False), ("load",), ("hydrated", True),
                    ("at", "/products?search=oil"), ("hydrated", False),  # the header's search, its on-load pending
                    ("set_sort", "price-low"), ("load",), ("hydrated", True))
    assert (state.search, state.category) == ("oil", "")
    assert [p.name for p in state.products] == ["Palm Oil 1L", "Olive Oil 500ml"]


def test_an_early_tap_whose_load_never_came_does_not_hide_the_next_address(rice_and_oil):
    state = _events(("at", "/products"), ("hydrated", False), ("apply_search", "oil"),
                    # the page's on-load was cancelled (the shopper went to a product page)
                    ("at", "/products/abc"), ("hydrated", False), ("hydrated", True),
                    ("at", "/products?category=rice"), ("hydrated", False), ("load",), ("hydrated", True))
    assert (state.search, state.category) == ("", "rice")
    assert [p.name for p in state.products] == ["Basmati Rice 1kg", "Jasmine Rice 5kg"]


def test_an_early_next_page_tap_is_not_bounded_by_pages_not_yet_counted(make_product):
    for n in range(12):
        make_product(name=f"Page Item {n:02d}")
    state = _events(("at", "/products"), ("hydrated", False), ("go_to_page", 2), ("load",),
                    ("hydrated", True))
    assert state.page == 2
