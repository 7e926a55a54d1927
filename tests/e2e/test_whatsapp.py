"""WhatsApp where shoppers are (issue 34 item 6): with DD_WHATSAPP_NUMBER set (the live server's
is 024 123 9999), "Chat with us on WhatsApp" on the product, cart and order pages opens the shop's
chat with the product, the cart or the order number typed in; an order offers "Share on WhatsApp"."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from .account_helpers import insert_order, toast
from .conftest import sign_in

SHOP_CHAT = "https://wa.me/233241239999?text="


def chat_text(page: Page) -> str:
    link = page.get_by_role("link", name="Chat with us on WhatsApp")
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    assert href.startswith(SHOP_CHAT), href
    return parse_qs(urlsplit(href).query)["text"][0]


def test_the_product_and_cart_pages_open_a_chat_about_what_is_shown(page: Page, live_product):
    item = live_product(price="7.50")
    page.goto(f"/products/{item.id}")
    expect(page.get_by_role("heading", name=item.name)).to_be_visible()
    assert item.name in chat_text(page)
    page.get_by_role("button", name="Add to Cart").first.click()
    expect(toast(page, f"{item.name} has been added to your cart.")).to_be_visible()
    page.goto("/cart")
    expect(page.get_by_text(item.name).first).to_be_visible()
    assert f"1 x {item.name}" in chat_text(page)


def test_an_order_page_chats_about_the_order_and_offers_sharing(page: Page, live_server, shopper):
    user, _ = shopper()
    with live_server.session() as session:
        order = insert_order(session, user)
        order_id = order.id
    sign_in(page, user)
    page.goto(f"/orders/{order_id}")
    expect(page.get_by_role("heading", name=f"Order #{order_id[:8]}")).to_be_visible()
    assert f"my order #{order_id[:8]}" in chat_text(page)
    share = page.get_by_role("link", name="Share on WhatsApp")
    expect(share).to_be_visible()
    assert (share.get_attribute("href") or "").startswith("https://wa.me/?text=")
