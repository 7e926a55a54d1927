"""/sitemap.xml and /robots.txt: every visible product, kept current after catalogue writes."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from sqlalchemy import event

from discount_deals import models
from discount_deals.db import get_engine, session_scope
from discount_deals.web import sitemap
from discount_deals.state.shop.catalog import MAX_SLUG

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def locs(client, path: str = "/sitemap.xml") -> list[str]:
    response = client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/xml")
    return [node.text for node in ElementTree.fromstring(response.content).findall(".//s:loc", NS)]


@pytest.fixture
def products(make_category, make_product):
    food = make_category("Food")
    make_category("Empty")
    return {
        "rice": make_product("Rice", "10.00", category=food),
        "beans": make_product("Beans", "4.00", category=food, stock=0),
        "secret": make_product("Secret", "5.00", category=food, status="inactive"),
        "gone": make_product("Gone", "5.00", category=food, is_available=False),
    }


def test_the_sitemap_lists_the_pages_categories_and_visible_products(client, products):
    found = locs(client)
    base = "http://testserver"
    assert found[:5] == [f"{base}/", f"{base}/products", f"{base}/test-home", f"{base}/login", f"{base}/register"]
    assert f"{base}/products?category=food" in found
    assert f"{base}/products?category=empty" not in found  # nothing to show there
    assert f"{base}/products/{products['rice'].id}" in found and f"{base}/products/{products['beans'].id}" in found
    assert f"{base}/products/{products['secret'].id}" not in found
    assert f"{base}/products/{products['gone'].id}" not in found
    assert all("/cart" not in url and "/admin" not in url for url in found)
    lastmods = re.findall(r"<lastmod>([^<]+)</lastmod>", client.get("/sitemap.xml").text)
    assert lastmods and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) for day in lastmods)


def test_catalogue_writes_through_the_api_show_at_once(client, products, admin_headers):
    assert locs(client)  # cached now
    body = {"name": "New Kettle", "price": "25.00", "category": "food", "description": "Boils", "stock": 3}
    created = client.post("/api/products/", json=body, headers=admin_headers)
    assert created.status_code == 201, created.text
    new_id = created.json()["data"]["id"]
    assert f"http://testserver/products/{new_id}" in locs(client)
    hidden = client.patch(f"/api/products/{new_id}/", json={"status": "inactive"}, headers=admin_headers)
    assert hidden.status_code == 200, hidden.text
    assert f"http://testserver/products/{new_id}" not in locs(client)
    rows = [{"name": "Bulk Tea", "description": "Tea", "price": "3.00", "category": "food", "image_url": "/x.webp"}]
    uploaded = client.post("/api/products/bulk-upload/", json={"products": rows}, headers=admin_headers)
    assert uploaded.status_code in (200, 201), uploaded.text
    tea_id = uploaded.json()["created"][0]["id"]
    assert f"http://testserver/products/{tea_id}" in locs(client)
    assert client.delete(f"/api/products/{products['rice'].id}", headers=admin_headers).status_code in (200, 204)
    assert f"http://testserver/products/{products['rice'].id}" not in locs(client)


def test_a_rolled_back_write_keeps_the_cache(client, products, session):
    before = locs(client)
    cached = sitemap._cache
    from discount_deals.models import Product

    session.add(Product(name="Never", name_key="never", price=1, effective_price=1, category_id=products["rice"].category_id))
    session.flush()
    session.rollback()
    assert sitemap._cache is cached and locs(client) == before


def test_a_large_catalogue_is_split_into_parts_listed_by_an_index(client, products, monkeypatch):
    monkeypatch.setattr(sitemap, "URLS_PER_FILE", 4)
    sitemap.invalidate()
    index = client.get("/sitemap.xml")
    parts = [node.text for node in ElementTree.fromstring(index.content).findall("s:sitemap/s:loc", NS)]
    assert parts == ["http://testserver/sitemap-1.xml", "http://testserver/sitemap-2.xml"]
    assert len(locs(client, "/sitemap-1.xml")) == 4 and len(locs(client, "/sitemap-2.xml")) == 4
    assert client.get("/sitemap-3.xml").status_code == 404
    assert client.get("/sitemap-0.xml").status_code == 404


def test_public_url_is_used_when_configured(client, products, monkeypatch):
    from discount_deals.config.settings import get_settings

    monkeypatch.setenv("DD_PUBLIC_URL", "https://deals.example.com")
    get_settings.cache_clear()
    try:
        sitemap.invalidate()
        assert locs(client)[0] == "https://deals.example.com/"
        robots = client.get("/robots.txt")
        assert "Sitemap: https://deals.example.com/sitemap.xml" in robots.text
    finally:
        monkeypatch.delenv("DD_PUBLIC_URL")
        get_settings.cache_clear()
        sitemap.invalidate()


def test_robots_txt_points_to_the_sitemap_and_keeps_private_pages_out(client):
    robots = client.get("/robots.txt")
    assert robots.status_code == 200 and robots.headers["content-type"].startswith("text/plain")
    lines = robots.text.splitlines()
    assert lines[0] == "User-agent: *"
    for path in ("/api/", "/cart", "/profile", "/orders", "/admin", "/favorites"):
        assert f"Disallow: {path}" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines


# --- found by a probe ---------------------------------------------------------------------------


def test_robots_and_the_sitemap_answer_head(client, products):
    for path in ("/robots.txt", "/sitemap.xml"):
        answer = client.head(path)
        assert answer.status_code == 200 and answer.content == b"", path


def test_made_up_hosts_do_not_grow_the_cache(client, products, session):
    # Without DD_PUBLIC_URL each Host header (any port) kept a whole document for 5 minutes.
    for port in range(6000, 6050):
        assert client.get("/sitemap.xml", headers={"Host": f"testserver:{port}"}).status_code == 200
    assert len(sitemap._current(session).xml) <= sitemap.MAX_DOCUMENTS



def test_the_listing_reads_a_categorys_whole_slug(client, make_category, make_product):
    # The sitemap links /products?category=<slug> with slugs of up to 140 characters; the
    # storefront cut the parameter at 120 and showed an empty listing.
    slug = "s" * 140
    make_product("Long", "5.00", category=make_category("Long one", slug=slug))
    assert f"http://testserver/products?category={slug}" in locs(client)
    assert MAX_SLUG >= len(slug)


def test_a_write_committed_while_the_sitemap_is_built_is_not_lost(client, products):
    # The build stored the list it had read over the invalidation that came meanwhile, so a
    # product hidden then stayed listed for 5 minutes. Here another connection hides Rice and
    # commits while the build reads the products (the database's own hook, not ours).
    rice_url = f"http://testserver/products/{products['rice'].id}"
    hidden = []

    def hide_rice_midway(_conn, _cursor, statement, *_args):
        if not hidden and "FROM product" in statement and "updated_at" in statement:
            hidden.append(True)
            with session_scope() as other:
                other.get(models.Product, products["rice"].id).status = "inactive"

    sitemap.invalidate()
    event.listen(get_engine(), "before_cursor_execute", hide_rice_midway)
    try:
        locs(client)  # SQLite's read still sees Rice (its snapshot); PostgreSQL's already does not
    finally:
        event.remove(get_engine(), "before_cursor_execute", hide_rice_midway)
    assert hidden and rice_url not in locs(client)
