"""Products the admin takes off sale (hidden or deleted) while a shopper's cart or checkout is
open: the summary totals only what can be bought, the shopper is told which product went (by
name, guest or signed in), never "not enough stock" nor "try again", and nothing is ordered."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from discount_deals.models import Product
from discount_deals.services import catalog

from .account_helpers import add_address, toast
from .conftest import sign_in, unique
from .test_checkout import fill_cart, open_checkout, orders_of, totals

RETRY = "Failed to update quantity. Please try again."


def cart_lines(page: Page):
    return page.get_by_role("list", name="Cart items").get_by_role("listitem")


def summary(page: Page):
    return page.locator("dl").first


def hide(live_server, product) -> None:
    with live_server.session() as session:
        session.get(Product, product.id).is_available = False


def delete(live_server, live_user, product) -> None:
    admin, _ = live_user(role="admin")
    with live_server.session() as session:
        catalog.delete_product(session, admin, product.id)


def plus(page: Page, product):
    return cart_lines(page).filter(has_text=product.name).get_by_role(
        "button", name=f"Increase quantity of {product.name}")


def signed_in_with_three_lines(page: Page, live_user, live_product, live_server):
    """A signed-in shopper with an address and a cart of rice ($10), a fan ($30) and a kettle ($5)."""
    user, _ = live_user()
    rice = live_product(name=unique("Kept Rice"), price="10.00")
    fan = live_product(name=unique("Hidden Fan"), price="30.00")
    kettle = live_product(name=unique("Gone Kettle"), price="5.00")
    fill_cart(live_server, user, (rice, 1), (fan, 1), (kettle, 1))
    with live_server.session() as session:
        add_address(session, user)
    sign_in(page, user)
    return user, rice, fan, kettle


def test_a_guest_is_told_which_products_went_and_pays_only_for_the_rest(page: Page, live_product, live_server,
                                                                        live_user):
    rice, fan, kettle = (live_product(name=unique(kind), price=price)
                         for kind, price in (("Kept Rice", "10.00"), ("Hidden Fan", "30.00"), ("Gone Kettle", "5.00")))
    entries = [{"product": {"id": p.id, "name": p.name}, "quantity": 1} for p in (rice, fan, kettle)]
    page.goto("/no-such-page-for-storage")
    page.evaluate("c => localStorage.setItem('cart-storage', c)", json.dumps({"state": {"cart": entries}, "version": 0}))
    page.goto("/cart")
    expect(cart_lines(page)).to_have_count(3)
    expect(summary(page)).to_contain_text("Subtotal$45.00")

    delete(live_server, live_user, kettle)
    plus(page, kettle).click()
    expect(toast(page, f"{kettle.name} is no longer available.")).to_be_visible()
    expect(cart_lines(page).filter(has_text=kettle.name)).to_have_count(0)

    hide(live_server, fan)
    plus(page, fan).click()
    expect(toast(page, f"{fan.name} is no longer available.")).to_be_visible()
    line = cart_lines(page).filter(has_text=fan.name)
    expect(line).to_contain_text("No longer available")  # still there, marked, with its way out
    expect(summary(page)).to_contain_text("Subtotal$10.00")
    expect(page.get_by_text("Add $40.01 more for free shipping")).to_be_visible()
    expect(page.get_by_text(RETRY)).to_have_count(0)
    line.get_by_role("button", name=f"Remove {fan.name} (no longer available)").click()
    expect(cart_lines(page)).to_have_count(1)

    # A product deleted while the cart was closed: the next visit names it.
    delete(live_server, live_user, rice)
    page.reload()
    expect(toast(page, f"{rice.name} is no longer available and was removed from your cart.")).to_be_visible()
    expect(page.get_by_text("Your cart is empty")).to_be_visible()


def test_a_signed_in_cart_totals_what_can_be_bought_and_checkout_says_why_not(page: Page, live_user, live_product,
                                                                              live_server):
    user, rice, fan, kettle = signed_in_with_three_lines(page, live_user, live_product, live_server)
    page.goto("/cart")
    expect(cart_lines(page)).to_have_count(3)

    delete(live_server, live_user, kettle)
    plus(page, kettle).click()
    expect(toast(page, f"{kettle.name} is no longer available.")).to_be_visible()
    expect(cart_lines(page)).to_have_count(2)
    expect(page.get_by_text(RETRY)).to_have_count(0)

    hide(live_server, fan)
    page.get_by_role("button", name="Refresh Cart").click()
    expect(cart_lines(page).filter(has_text=fan.name)).to_contain_text("No longer available")
    expect(summary(page)).to_contain_text("Subtotal$10.00")
    expect(page.get_by_text("$16.79", exact=True)).to_be_visible()
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(toast(page, f"{fan.name} is no longer available. Remove it from your cart to check out.")).to_be_visible()
    expect(toast(page, "Checkout Error")).to_be_visible()
    expect(page.get_by_text("Not enough stock")).to_have_count(0)
    assert orders_of(live_server, user) == []


def test_place_order_names_a_line_hidden_or_deleted_since_the_review(page: Page, live_user, live_product,
                                                                     live_server):
    user, rice, fan, kettle = signed_in_with_three_lines(page, live_user, live_product, live_server)
    open_checkout(page)
    place = page.get_by_role("button", name="Place order")

    hide(live_server, fan)
    place.click()
    expect(toast(page, f"{fan.name} is no longer available. Remove it from your cart to check out.")).to_be_visible()
    expect(page.get_by_text("Not enough stock")).to_have_count(0)
    review = page.get_by_role("list", name="Order lines").get_by_role("listitem")
    expect(review.filter(has_text=fan.name)).to_contain_text("No longer available")
    expect(totals(page)).to_contain_text("Subtotal$15.00")  # the hidden line is outside the totals
    review.filter(has_text=fan.name).get_by_role("button", name=f"Remove {fan.name} (no longer available)").click()
    expect(review).to_have_count(2)

    delete(live_server, live_user, kettle)
    place.click()
    expect(toast(page, f"{kettle.name} is no longer available and was removed from your cart.")).to_be_visible()
    expect(toast(page, "Your order changed")).to_be_visible()
    assert orders_of(live_server, user) == []

    delete(live_server, live_user, rice)
    place.click()
    expect(toast(page, f"{rice.name} is no longer available and was removed from your cart.")).to_be_visible()
    expect(page.locator("[data-sonner-toast]").filter(has_text="Cart is empty")).to_have_count(0)  # not the bare refusal
    assert orders_of(live_server, user) == []


def test_a_price_that_moves_while_the_cart_is_open_is_named(page: Page, live_product, live_server):
    """Probe 80: the admin raised a price by half while the cart was open; the shopper's next
    tap said only "Quantity updated successfully!" and the line and total quietly took the new price."""
    oil = live_product(name=unique("Moving Price Oil"), price="10.00")
    entries = [{"product": {"id": oil.id, "name": oil.name}, "quantity": 1}]
    page.goto("/no-such-page-for-storage")
    page.evaluate("c => localStorage.setItem('cart-storage', c)", json.dumps({"state": {"cart": entries}, "version": 0}))
    page.goto("/cart")
    expect(summary(page)).to_contain_text("Subtotal$10.00")

    with live_server.session() as session:
        row = session.get(Product, oil.id)
        row.price = row.effective_price = 15
    plus(page, oil).click()
    expect(toast(page, f"{oil.name} now costs $15.00 (was $10.00).")).to_be_visible()
    expect(summary(page)).to_contain_text("Subtotal$30.00")


def test_a_price_that_moved_since_the_cart_is_named_at_checkout(page: Page, live_user, live_product, live_server):
    """Probe 80: a sale that ended between the cart and checkout showed the new total there with
    no word of why it changed."""
    user = live_user()[0]
    oil = live_product(name=unique("Checkout Moving Oil"), price="10.00")
    with live_server.session() as session:
        add_address(session, user)
    fill_cart(live_server, user, (oil, 1))
    sign_in(page, user)
    page.goto("/cart")
    expect(summary(page)).to_contain_text("Subtotal$10.00")
    with live_server.session() as session:
        row = session.get(Product, oil.id)
        row.price = row.effective_price = 12
    page.get_by_role("button", name="Proceed to Checkout").first.click()
    expect(toast(page, f"{oil.name} now costs $12.00 (was $10.00).")).to_be_visible()
