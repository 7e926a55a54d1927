"""A tap on the listing that the server runs before the page's own on-load event (CI, stop 43).

The browser sends the page's hydrate in its websocket's CONNECT packet; the on-load events it
leads to are queued on the server, carrying the address of that moment. A search typed while
the page connected could reach the queue first: it showed its results and put
``/products?search=…`` in the bar, then the late on-load read the old address (``/products``)
and put the whole catalogue back, emptying the box under the shopper's words.

The handlers run here as Reflex runs them, in the order the server's queue gave them.
"""

from __future__ import annotations

from reflex.state import State

from discount_deals.state.shop.catalog import ProductsState

from ..support.loops import run_coroutine as run


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
