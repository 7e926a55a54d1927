"""The first HTML of /, /products and /products/{id} over plain HTTP (no browser, no script).

The production build's page shells are replaced by small ones of the same shape; the browser
tests (tests/e2e/test_product_page.py) run the real build.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from discount_deals.web.first_html import shell

HEAD = '<head><meta charSet="utf-8"/><title>{title}</title><meta content="/og-image.png" property="og:image"/></head>'


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en">{HEAD.format(title=title)}<body><a href="#main">Skip to content</a>'
        f'<main id="main">{body}</main>'
        '<script type="module" async="">import("/assets/entry.client-1.js");</script></body></html>'
    )


def _slot(name: str, placeholder: str = '<div class="skeleton"></div>') -> str:
    return f'<div class="rx-Html" data-ssr-slot="{name}">{placeholder}</div>'


@pytest.fixture
def build(tmp_path: Path, monkeypatch) -> Path:
    """A production build's folder with page shells shaped as React Router writes them."""
    (tmp_path / "products" / "__shell__").mkdir(parents=True)
    (tmp_path / "index.html").write_text(
        _page(
            "Discount Deals | Discover Amazing Deals",
            "<h1>Discover Amazing Deals</h1>" + _slot("featured") + _slot("brand-count-shoprite") + _slot("brand-count-melcom"),
        )
    )
    (tmp_path / "products.html").write_text(
        _page("All Products | Discount Deals", "<h1>All Products</h1>" + _slot("listing-count") + _slot("listing"))
    )
    (tmp_path / "products" / "__shell__.html").write_text(
        _page("Product | Discount Deals", _slot("product")).replace('href="#main"', 'href="/products/__shell__/#main"')
    )
    monkeypatch.setattr(shell, "static_dir", lambda: tmp_path)
    return tmp_path


@pytest.fixture
def catalogue(make_category, make_product):
    food = make_category("Food & Drink")
    other = make_category("Tools")
    rice = make_product(
        "Jasmine Rice 5kg", "18.50", "10.18", category=food, brand="shoprite", image_url="/api/media/rice.webp",
        tags=["rice", "staples"], description="Fragrant <long> grain", rating=4.0, stock=3, is_featured=True,
    )
    return {
        "rice": rice,
        "beans": make_product("Beans 1kg", "4.00", "3.00", category=food, brand="melcom", is_featured=True),
        "oil": make_product("Oil 1L", "9.00", category=food, brand="shoprite", stock=0),
        "drill": make_product("Drill", "90.00", category=other, brand="makro"),
        "hidden": make_product("Secret", "5.00", category=food, status="inactive"),
        "unavailable": make_product("Gone", "5.00", category=food, is_available=False),
    }


def _json_ld(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', html).group(1))


def _meta(html: str, key: str) -> str:
    match = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', html)
    assert match, f"no {key} in the page"
    return match.group(1)


def test_a_product_page_names_the_product_before_any_script_runs(client, build, catalogue):
    rice = catalogue["rice"]
    response = client.get(f"/products/{rice.id}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    html = response.text
    assert "<title>Jasmine Rice 5kg | Discount Deals</title>" in html
    assert "<h1" in html and ">Jasmine Rice 5kg</h1>" in html
    assert "$10.18" in html and "$18.50" in html and "You save $8.32 (45%)" in html
    assert 'src="/api/media/rice.webp"' in html
    assert "Fragrant &lt;long&gt; grain" in html and "<long>" not in html
    assert ">rice</li>" in html and ">staples</li>" in html and "3 in stock" in html
    url = f"http://testserver/products/{rice.id}"
    assert _meta(html, "description").startswith("Jasmine Rice 5kg for $10.18 (was $18.50, save 45%)")
    assert _meta(html, "og:type") == "product"
    assert _meta(html, "og:title") == "Jasmine Rice 5kg | Discount Deals"
    assert _meta(html, "og:url") == url
    assert _meta(html, "og:image") == "http://testserver/api/media/rice.webp"
    assert _meta(html, "twitter:card") == "summary_large_image"
    assert _meta(html, "twitter:image") == "http://testserver/api/media/rice.webp"
    assert f'<link rel="canonical" href="{url}"' in html
    assert html.count('property="og:image"') == 1  # the build's relative default is gone
    data = _json_ld(html)
    assert data["@type"] == "Product" and data["name"] == "Jasmine Rice 5kg" and data["sku"] == rice.id
    assert data["brand"] == {"@type": "Brand", "name": "shoprite"} and data["category"] == "Food & Drink"
    assert data["offers"] == {
        "@type": "Offer",
        "url": url,
        "price": "10.18",
        "priceCurrency": "USD",
        "availability": "https://schema.org/InStock",
        "itemCondition": "https://schema.org/NewCondition",
    }
    # Share link, related products (same category, in stock), and the shell's links made the page's own.
    assert "https://wa.me/?text=Jasmine%20Rice%205kg%20for%20%2410.18" in html
    assert "Related products" in html and "Beans 1kg" in html and "Oil 1L" not in html and "Drill" not in html
    assert f'href="/products/{rice.id}/#main"' in html and "__shell__" not in html


def test_an_out_of_stock_product_is_offered_as_out_of_stock(client, build, catalogue):
    html = client.get(f"/products/{catalogue['oil'].id}").text
    assert _json_ld(html)["offers"]["availability"] == "https://schema.org/OutOfStock"
    assert "Out of Stock</button>" in html and "Out of stock" in html


@pytest.mark.parametrize("window", ["scheduled", "expired"])
def test_a_discount_outside_its_window_is_not_advertised(client, build, make_product, window):
    now = datetime.now(UTC)
    start, end = (now + timedelta(days=3), None) if window == "scheduled" else (now - timedelta(days=9), now - timedelta(days=2))
    product = make_product("Palm Oil 5L", "25.00", "10.00", discount_start=start, discount_end=end)
    html = client.get(f"/products/{product.id}").text
    assert _meta(html, "product:price:amount") == "25.00"
    assert _json_ld(html)["offers"]["price"] == "25.00"
    assert _meta(html, "description").startswith("Palm Oil 5L for $25.00 at Discount Deals")
    assert "$10.00" not in html and "You save" not in html
    assert client.get(f"/api/products/{product.id}").json()["data"]["discount_state"] == window


def test_a_sale_price_is_offered_until_its_window_closes(client, build, make_product):
    """Search engines keep showing a price until told it ends: a sale's offer names the day its
    window closes; an open-ended sale and a plain price name none (and a price outside its window
    is not advertised, above)."""
    end = datetime.now(UTC) + timedelta(days=4)
    sale = make_product("Milo Tin", "25.00", "19.50", discount_start=datetime.now(UTC) - timedelta(days=1),
                        discount_end=end)
    offer = _json_ld(client.get(f"/products/{sale.id}").text)["offers"]
    assert (offer["price"], offer["priceValidUntil"]) == ("19.50", end.date().isoformat())
    open_ended = make_product("Sugar 1kg", "9.00", "7.00")
    plain = make_product("Salt 1kg", "3.00")
    for product in (open_ended, plain):
        assert "priceValidUntil" not in _json_ld(client.get(f"/products/{product.id}").text)["offers"]
    # a sale that ends at midnight is on until the day before (the window's end is not in it)
    midnight = datetime.combine(end.date(), datetime.min.time(), tzinfo=UTC)
    to_midnight = make_product("Rice 5kg", "30.00", "25.00", discount_start=datetime.now(UTC) - timedelta(days=1),
                               discount_end=midnight)
    offer = _json_ld(client.get(f"/products/{to_midnight.id}").text)["offers"]
    assert offer["priceValidUntil"] == (midnight - timedelta(days=1)).date().isoformat()


def test_currency_code_and_public_url_come_from_the_settings(client, build, catalogue, monkeypatch):
    from discount_deals.config.settings import get_settings

    monkeypatch.setenv("DD_CURRENCY", "ghs")
    monkeypatch.setenv("DD_PUBLIC_URL", "https://deals.example.com")
    get_settings.cache_clear()
    try:
        html = client.get(f"/products/{catalogue['rice'].id}").text
        refused = client.get(f"/products/{catalogue['rice'].id}", headers={"Host": "evil.example"})
    finally:
        monkeypatch.delenv("DD_CURRENCY")
        get_settings.cache_clear()
    assert _json_ld(html)["offers"]["priceCurrency"] == "GHS"
    assert _meta(html, "product:price:currency") == "GHS"
    assert "GH₵" in html and "$" + str(catalogue["rice"].price) not in html
    assert _meta(html, "og:url") == f"https://deals.example.com/products/{catalogue['rice'].id}"
    assert "testserver" not in html
    assert refused.status_code == 400 and "evil.example" not in refused.text


@pytest.mark.parametrize("which", ["hidden", "unavailable", None])
def test_unknown_or_hidden_products_answer_404_with_the_not_found_page(client, build, catalogue, which):
    product_id = catalogue[which].id if which else "no-such-product"
    response = client.get(f"/products/{product_id}")
    assert response.status_code == 404
    assert "Oops! Page not found" in response.text and "Return to Home" in response.text
    assert "<title>Page not found | Discount Deals</title>" in response.text
    assert '<meta name="robots" content="noindex"' in response.text
    assert "Secret" not in response.text and "Gone" not in response.text


def test_a_hostile_product_id_is_escaped(client, build, catalogue):
    response = client.get('/products/"><script>alert(1)<')
    assert response.status_code == 404
    assert "<script>alert(1)" not in response.text


def test_products_first_html_holds_the_first_page_of_the_default_listing(client, build, catalogue):
    html = client.get("/products").text
    names = re.findall(r'<h3 class="[^"]*"><a class="[^"]*" href="/products/[^"]+">([^<]+)</a></h3>', html)
    assert names == ["Beans 1kg", "Drill", "Jasmine Rice 5kg", "Oil 1L"]
    assert 'data-ssr-slot="listing-count">Showing 4 of 4 products</div>' in html
    assert "Showing 0 of 0" not in html
    assert html.count('fetchpriority="high"') == 1
    assert _meta(html, "og:url") == "http://testserver/products"
    # The same with the trailing slash; a filtered listing keeps the skeleton (the app's query fills it).
    assert client.get("/products/").text.count("<article") == 4
    filtered = client.get("/products?brand=melcom").text
    assert "<article" not in filtered and '<div class="skeleton"></div>' in filtered


def test_home_first_html_holds_the_featured_deals_and_brand_counts(client, build, catalogue):
    html = client.get("/").text
    featured = re.findall(r'<h3 class="[^"]*"><a class="[^"]*" href="/products/[^"]+">([^<]+)</a></h3>', html)
    assert featured == ["Jasmine Rice 5kg", "Beans 1kg"]  # the biggest saving first
    assert 'data-ssr-slot="brand-count-shoprite"><span class="block text-sm text-gray-600">2 products</span>' in html
    assert 'data-ssr-slot="brand-count-melcom"><span class="block text-sm text-gray-600">1 products</span>' in html


def test_pages_are_gzipped_when_accepted_and_head_has_no_body(client, build, catalogue):
    response = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip" and response.headers["vary"] == "Accept-Encoding"
    assert "Discover Amazing Deals" in response.text  # httpx inflates it
    raw = client.get("/", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in raw.headers and int(raw.headers["content-length"]) == len(raw.content)
    head = client.head(f"/products/{catalogue['rice'].id}")
    assert head.status_code == 200 and head.content == b""
    assert response.headers["cache-control"] == "no-cache"


def test_pages_are_brotli_compressed_when_accepted_and_keep_their_policy(client, build, catalogue):
    """Brotli is ~12 % smaller than gzip for these pages; the policy still hashes their scripts."""
    import brotli

    from discount_deals.web import csp

    for path in ("/", f"/products/{catalogue['rice'].id}"):
        response = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br", "Accept": "text/html"})
        assert response.headers["content-encoding"] == "br", path
        html = brotli.decompress(response.read()) if not response.text.startswith("<") else response.content
        hashes = csp.inline_script_hashes(html)
        assert hashes and all(h in response.headers["content-security-policy"] for h in hashes), path
    refused = client.get("/", headers={"Accept-Encoding": "br;q=0, gzip"})
    assert refused.headers["content-encoding"] == "gzip"


def test_the_boot_script_waits_for_the_first_paint(client, build, catalogue):
    html = client.get("/products").text
    assert '<script type="module"' not in html and "requestAnimationFrame(" in html


def test_without_a_production_build_the_request_goes_on(client, catalogue, monkeypatch):
    monkeypatch.setattr(shell, "static_dir", lambda: None)
    response = client.get(f"/products/{catalogue['rice'].id}")
    # The API app alone has no pages behind it: not our page, and no crash.
    assert response.status_code == 404 and "Jasmine Rice" not in response.text


def test_other_paths_are_not_touched(client, build, catalogue):
    assert client.get("/api/health/").status_code in (200, 503)
    assert client.get("/products/a/b").status_code == 404  # not a product page
    assert client.post("/products").status_code in (404, 405)


# --- issue 20: the policy is the renderer's, compression by the library, prices by pricing -----------


def _script_src(response) -> set[str]:
    policy = response.headers["content-security-policy"]
    script_src = next(part for part in policy.split("; ") if part.startswith("script-src "))
    return {source for source in script_src.split()[1:] if source.startswith("'sha256-")}


def test_a_filled_pages_policy_lists_the_scripts_its_renderer_put_there(client, build, catalogue):
    """The renderer knows the page's inline scripts (the shell file's, the boot loader, the
    JSON-LD): the policy lists those and the boot module the loader inserts, nothing read back."""
    from discount_deals.web import csp

    for path in ("/", "/products", f"/products/{catalogue['rice'].id}", "/products/no-such-product"):
        response = client.get(path, headers={"Accept-Encoding": "br"})
        boot_module = csp.script_hash('import("/assets/entry.client-1.js");')
        assert _script_src(response) == {*csp.inline_script_hashes(response.content), boot_module}, path


def test_zstd_is_not_used_and_head_answers_with_the_get_headers(client, build, catalogue):
    """Chrome accepts zstd, which makes these pages bigger than brotli: brotli it is. A HEAD
    request gets the headers of the GET (its encoding and length), without the body."""
    path = f"/products/{catalogue['rice'].id}"
    get = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert get.headers["content-encoding"] == "br"
    head = client.head(path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert head.content == b""
    for name in ("content-encoding", "content-length", "vary", "content-security-policy"):
        assert head.headers[name] == get.headers[name], name


def test_cards_price_a_discount_only_inside_its_window(client, build, make_product):
    """Related products' cards on a product page, like the page itself, show services.pricing's price."""
    now = datetime.now(UTC)
    scheduled = make_product("Scheduled Soap", "8.00", "4.00", discount_start=now + timedelta(days=2))
    expired = make_product("Expired Soap", "8.00", "4.00", discount_end=now - timedelta(days=1))
    active = make_product("Active Soap", "8.00", "6.00")
    host = make_product("Host", "1.00", related_products=[scheduled.id, expired.id, active.id])
    html = client.get(f"/products/{host.id}").text
    cards = dict(re.findall(r'href="/products/[^"]+">([^<]+)</a></h3>(.*?)</article>', html))
    for name in ("Scheduled Soap", "Expired Soap"):
        assert "$8.00" in cards[name] and "$4.00" not in cards[name] and "Save" not in cards[name], name
    assert "$6.00" in cards["Active Soap"] and "Save $2.00" in cards["Active Soap"]
    assert html.count("-25%") == 1  # the active one's badge only


def test_a_picture_whose_scheme_is_in_capitals_is_not_put_behind_the_shop(client, build, make_product):
    # Found by a probe: "HTTPS://cdn..." became og:image "http://testserverHTTPS://cdn...".
    item = make_product("Capital rice", "5.00", image_url="HTTPS://cdn.example.com/rice.jpg")
    html = client.get(f"/products/{item.id}").text
    assert _meta(html, "og:image") == "HTTPS://cdn.example.com/rice.jpg"
    assert _json_ld(html)["image"] in ("HTTPS://cdn.example.com/rice.jpg", ["HTTPS://cdn.example.com/rice.jpg"])
