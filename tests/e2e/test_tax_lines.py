"""Each tax an order was charged, one row each on its page (issue 33, item 2), at a phone's width.

The server runs with the default DD_TAX=spec; an order placed under DD_TAX=ghana is written with
the lines it would have kept (orders keep their lines, whatever the settings say later)."""

from __future__ import annotations

from decimal import Decimal

from playwright.sync_api import Page, expect

from discount_deals.models import Cart, CartItem
from discount_deals.services.taxes import TAX_PARTS, TaxRule, split_tax

from .account_helpers import insert_order
from .conftest import sign_in


def test_the_order_page_shows_vat_nhil_and_getfund(page: Page, live_server, live_user):
    user, _password = live_user()
    with live_server.session() as session:
        order = insert_order(session, user, total="12.00", lines=(("Milo 400g", 1, "10.00"),))
        order.subtotal, order.tax = Decimal("10.00"), Decimal("2.00")
        order.tax_lines = [line.as_json() for line in split_tax(Decimal("2.00"), TaxRule(TAX_PARTS["ghana"]))]
        session.add(order)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, user)
    page.goto(f"/orders/{order.id}")
    totals = page.locator("dl[aria-label='Order total']")
    expect(totals).to_contain_text("VAT (15%)$1.50")
    expect(totals).to_contain_text("NHIL (2.5%)$0.25")
    expect(totals).to_contain_text("GETFund levy (2.5%)$0.25")
    expect(totals).not_to_contain_text("Tax$")


def test_the_cart_shows_the_spec_tax_as_one_row(page: Page, live_server, live_product, live_user):
    user, _password = live_user()
    product = live_product(price="10.00")
    with live_server.session() as session:
        cart = Cart(user_id=user.id)
        session.add(cart)
        session.flush()
        session.add(CartItem(cart_id=cart.id, product_id=product.id, quantity=1))
    sign_in(page, user)
    page.goto("/cart")
    expect(page.locator("dl").first).to_contain_text("Tax$0.80")
