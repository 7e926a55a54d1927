"""Absolute URLs follow DD_PUBLIC_URL, or trusted proxies' X-Forwarded-Proto/Host, never a client's Host."""

import pytest



@pytest.fixture
def setting(use_settings):
    return use_settings


@pytest.fixture
def two_pages(make_product):
    for n in range(3):
        make_product(name=f"Paged Product {n}", image_url="/api/media/p.webp")


def _page(client, **headers):
    body = client.get("/api/products/?page_size=2", headers=headers).json()
    return body["next"], body["results"][0]["image_url"]


def test_without_settings_urls_follow_the_request(client, two_pages):
    next_url, image = _page(client)
    assert next_url.startswith("http://testserver/api/products/")
    assert image == "http://testserver/api/media/p.webp"


def test_forwarded_headers_are_ignored_without_trusted_proxies(client, two_pages):
    next_url, image = _page(client, **{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"})
    assert next_url.startswith("http://testserver/")
    assert image.startswith("http://testserver/")


def test_public_url_decides_every_absolute_url(client, two_pages, setting):
    setting(DD_PUBLIC_URL="https://shop.example.com", DD_TRUSTED_PROXY_HOPS="1")
    next_url, image = _page(client, Host="shop.example.com", **{"X-Forwarded-Host": "evil.example"})
    assert next_url.startswith("https://shop.example.com/api/products/?")
    assert "page=2" in next_url
    assert image == "https://shop.example.com/api/media/p.webp"


def test_a_trusted_proxy_decides_scheme_and_host(client, two_pages, setting):
    setting(DD_TRUSTED_PROXY_HOPS="1", DD_ALLOWED_HOSTS="testserver,shop.example.com")
    # The client wrote its own values first; the proxy appended what it saw.
    headers = {"X-Forwarded-Proto": "http, https", "X-Forwarded-Host": "evil.example, shop.example.com:8443"}
    next_url, image = _page(client, **headers)
    assert next_url.startswith("https://shop.example.com:8443/api/products/?")
    assert image == "https://shop.example.com:8443/api/media/p.webp"


def test_malformed_forwarded_values_are_ignored(client, two_pages, setting):
    setting(DD_TRUSTED_PROXY_HOPS="1")
    next_url, _image = _page(client, **{"X-Forwarded-Proto": "gopher", "X-Forwarded-Host": "a/b@c"})
    assert next_url.startswith("http://testserver/")


def test_a_forwarded_host_the_site_does_not_answer_is_ignored(client, two_pages, setting):
    setting(DD_TRUSTED_PROXY_HOPS="1")
    next_url, image = _page(client, **{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"})
    assert next_url.startswith("https://testserver/") and image.startswith("https://testserver/")
