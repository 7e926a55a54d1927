"""Long handlers do not hold the tab's state lock while they wait (background events).

Checkout pauses on "Redirecting to payment..." before it leaves for the payment provider.
Before, it slept holding the state lock, so every other event of the tab (and on Redis, of the
same session on any worker) waited behind it.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .account_helpers import add_address, toast
from .conftest import sign_in
from discount_deals.services import cart as cart_service


def test_the_page_answers_while_checkout_waits_for_payment(page: Page, live_user, live_product, live_server):
    user, _ = live_user()
    item = live_product(price="8.00", stock=3)
    with live_server.session() as session:
        add_address(session, user)
        cart_service.add_item(session, user, item.id, 1)
    sign_in(page, user)
    page.goto("/checkout")
    page.get_by_text("Mobile money", exact=True).click()
    page.get_by_label("Network").select_option(label="MTN MoMo")
    page.get_by_label("Mobile money number").fill("024 123 4567")
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Redirecting to payment...")).to_be_visible()
    # Another event of the same tab, sent during the payment wait, is handled at once ...
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_role("alert").filter(has_text="Enter a coupon code first.")).to_be_visible()
    # ... before the checkout handler has finished its steps and left the page.
    assert page.url.endswith("/checkout")
    # Then on to the order's payment step (issue 21: the order page says what the charge waits for).
    expect(page.get_by_role("region", name="Payment step")).to_be_visible()
