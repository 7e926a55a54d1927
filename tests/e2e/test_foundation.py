"""The foundation's pages in a real browser against the production server."""

import re
import urllib.request

from playwright.sync_api import Page, expect


def test_home_shows_the_heading(page: Page):
    page.goto("/")
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()


def test_unknown_route_shows_not_found_and_links_home(page: Page, live_server):
    page.goto("/no-such-page")
    expect(page.get_by_text("Oops! Page not found")).to_be_visible()
    page.get_by_role("link", name="Return to Home").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", name="Discover Amazing Deals")).to_be_visible()
    # The 404 is logged on the server.
    log = live_server.log_path.read_text()
    assert "404 page not found: /no-such-page" in log


def test_api_health_answers(live_server):
    with urllib.request.urlopen(f"{live_server.url}/api/health") as response:
        assert response.status == 200
        assert b'"database":"ok"' in response.read()


def test_pages_are_served_without_a_slash_redirect(live_server):
    """/products is answered directly (a redirect costs a phone one more round trip)."""
    import http.client
    from urllib.parse import urlparse

    address = urlparse(live_server.url)
    for path, status in (("/products", 200), ("/cart", 200), ("/no-such-page", 404), ("/api/health", 200)):
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        connection.request("GET", path)
        response = connection.getresponse()
        assert response.status == status, path
        connection.close()
