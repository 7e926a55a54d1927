"""Only the shop's own host names are answered (web/hosts.py): any other Host gets a 400 and no
link or redirect on it; a websocket upgrade for another host is refused (DNS rebinding)."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from discount_deals.config.settings import get_settings

from ..builders.checkout import MOMO, fill_cart, place
from ..builders.shop import add_address


@pytest.fixture
def hosts(use_settings):
    return use_settings


@pytest.mark.parametrize("host", ["evil.example", "evil.example:3000", "testserver.evil.example", "", "a b"])
def test_another_host_gets_a_400(client, host):
    response = client.get("/api/products/", headers={"Host": host})
    assert response.status_code == 400
    assert "location" not in response.headers


@pytest.mark.parametrize("host", ["localhost", "localhost:3000", "127.0.0.1:3000", "[::1]:3000", "testserver"])
def test_loopback_and_the_listed_hosts_are_answered(client, host):
    response = client.get("/api/products/", headers={"Host": host})
    assert response.status_code == 200, host


def test_a_checkout_sent_to_another_host_places_nothing(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(stock=3), 1))
    refused = client.post("/api/orders/checkout/", json=MOMO, headers={**customer_headers, "Host": "evil.example"})
    assert refused.status_code == 400
    assert client.get("/api/orders/", headers=customer_headers).json()["count"] == 0
    order = place(client, customer_headers, MOMO)
    assert order["payment_url"].startswith("http://testserver/api/payments/fake/")


def test_the_fake_provider_sends_the_shopper_back_to_the_shop_only(client, customer, customer_headers, make_product):
    add_address(customer, is_default=True)
    fill_cart(client, customer_headers, (make_product(stock=3), 1))
    order = place(client, customer_headers, MOMO)
    page = order["payment_url"].removeprefix("http://testserver")
    assert client.post(page + "approve/", headers={"Host": "evil.example"}, follow_redirects=False).status_code == 400
    approved = client.post(page + "approve/", follow_redirects=False)
    assert approved.headers["location"].startswith(f"http://testserver/orders/{order['id']}")


def test_the_public_url_and_listed_hosts_are_answered(client, hosts):
    hosts(DD_PUBLIC_URL="https://shop.example.com", DD_ALLOWED_HOSTS="192.168.1.20:3000, *.shop.example")
    for host in ("shop.example.com", "192.168.1.20:3000", "m.shop.example", "localhost:3000"):
        assert client.get("/api/products/", headers={"Host": host}).status_code == 200, host
    for host in ("testserver", "evil.example", "shop.example", "192.168.1.21"):
        assert client.get("/api/products/", headers={"Host": host}).status_code == 400, host


def test_a_wrong_host_list_is_refused_by_the_settings(hosts):
    with pytest.raises(ValueError, match="DD_ALLOWED_HOSTS"):
        hosts(DD_ALLOWED_HOSTS="shop.example.com, http://x/")
        get_settings()


def test_a_websocket_to_another_host_is_refused_before_it_is_accepted(client):
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(
        "/_event/?EIO=4&transport=websocket", headers={"Host": "evil.example", "Origin": "http://evil.example"}
    ):
        pass
    assert refused.value.code == 1008
