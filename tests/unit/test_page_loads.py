"""Which events a page load costs (issue 23): the shop's busiest pages do the header's work
(session, cart and favourites badges) inside their own on-load event; every other page runs the
header's event first. Either way each page does it exactly once."""

from __future__ import annotations

import inspect

from discount_deals import routes


def _load_events(route: str) -> list:
    from discount_deals.discount_deals import app

    return app.get_load_events(route)


def test_home_the_listing_and_a_product_page_load_in_one_event_that_also_fills_the_header():
    from discount_deals.state.shop.header import does_header_work

    for route in (routes.HOME, routes.PRODUCTS, "/products/1b4e28ba-2fa1-11d2-883f-0016d3cca427"):
        handlers = _load_events(route)
        assert len(handlers) == 1, route
        assert does_header_work(handlers[0]), route
        assert inspect.isasyncgenfunction(handlers[0].fn)


def test_every_other_page_runs_the_headers_event_once_before_its_own():
    from discount_deals.discount_deals import PAGES
    from discount_deals.state.shop.header import HeaderState, does_header_work

    folded = {routes.HOME, routes.TEST_HOME, routes.PRODUCTS, routes.PRODUCT_DETAIL}
    for route, _component, _title, on_load in PAGES:
        if route in folded:
            continue
        handlers = _load_events(route if route != "404" else "/no-such-page")
        assert handlers[0] is HeaderState.load or handlers[0].fn is HeaderState.load.fn, route
        assert sum(does_header_work(h) or h.fn is HeaderState.load.fn for h in handlers) == 1, route
        assert len(handlers) == 1 + len(on_load), route


def test_the_folded_load_keeps_the_pages_own_signature():
    """Reflex reads a handler's parameters from its signature: the wrapper keeps the page's."""
    from discount_deals.state.shop.catalog import ProductsState

    assert list(inspect.signature(ProductsState.load.fn).parameters) == ["self"]
