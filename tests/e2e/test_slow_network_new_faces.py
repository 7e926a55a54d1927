"""The faces added for issues 33 and 34 on a phone network: a tap is one round trip there too
(posting a review, taking the deal-alert offer, asking for a return), counted at the proxy with a
steady 200 ms round trip, and none fetches code."""

from __future__ import annotations

import re
from datetime import date

from playwright.sync_api import Page, expect

from .account_helpers import toast
from .conftest import sign_in, unique
from .test_checkout import at_checkout
from .test_returns import delivered_momo_order
from .test_reviews import delivered
from .test_slow_network import PHONE, STEADY, one_round_trip, ready_for_taps


def test_posting_a_review_is_one_round_trip(page: Page, slow_network, live_server, live_user, live_product):
    product = live_product(name=unique("Slow Review Gari"))
    user, _ = live_user()
    delivered(live_server, user, product)
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto(f"/products/{product.id}")
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)
    form = page.get_by_role("form", name="Your review")
    form.get_by_role("radio", name="4 stars").check()
    form.get_by_label("Your review (optional)").fill("Good value.")
    slow_network.wait_quiet()

    mark = slow_network.mark()
    form.get_by_role("button", name="Post review").click()
    expect(toast(page, "Review posted")).to_be_visible()
    expect(page.get_by_role("region", name="Reviews").get_by_text("4.0 (1 review)")).to_be_visible()
    slow_network.wait_quiet()
    one_round_trip(slow_network, mark, "post review")


def test_taking_the_deal_alert_offer_is_one_round_trip(page: Page, slow_network, shopper, live_product):
    user, _ = shopper()
    product = live_product(name=unique("Slow Offer Milo"))
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto(f"/products?search={product.name}")
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)

    mark = slow_network.mark()
    page.get_by_role("button", name=f"Add {product.name} to favorites").click()
    offer = page.get_by_role("dialog", name="Get deal alerts?")
    expect(offer).to_be_visible()
    slow_network.wait_quiet()
    one_round_trip(slow_network, mark, "first favourite (with the offer)")

    mark = slow_network.mark()
    offer.get_by_role("button", name="By SMS").click()
    expect(toast(page, "Deal alerts on")).to_be_visible()
    slow_network.wait_quiet()
    one_round_trip(slow_network, mark, "deal alerts by SMS")


def test_asking_for_a_return_is_one_round_trip(page: Page, slow_network, live_server, live_user, live_product):
    user, _ = live_user()
    milo = live_product(name=unique("Slow Return Milo"), price="12.00", stock=5)
    order = delivered_momo_order(live_server, user, [(milo, 2)])
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto(f"/orders/{order.id}")
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)

    mark = slow_network.mark()
    page.get_by_role("button", name="Return items").click()
    form = page.get_by_role("form", name="Return items")
    expect(form).to_be_visible()
    slow_network.wait_quiet()
    opened = slow_network.since(mark).round_trips
    form.locator(f"select[name='qty-{milo.id}']").select_option("1")
    form.get_by_label("Why are you returning them?").fill("Dented tin")
    slow_network.wait_quiet()

    mark = slow_network.mark()
    form.get_by_role("button", name="Send return request").click()
    expect(toast(page, "Return requested")).to_be_visible()
    expect(page.locator("section[aria-label='Returns']")).to_contain_text("Requested")
    slow_network.wait_quiet()
    one_round_trip(slow_network, mark, "return request")
    assert opened <= 1, f"opening the return form: {opened} round trips"


def test_login_and_register_say_they_are_busy_from_the_tap(page: Page, slow_network, live_user):
    """On a phone network the shop's answer comes 100-800 ms after a tap: the button says
    "Logging in..." (and takes no second tap) from the tap itself, not one round trip later,
    and goes back once the answer is in, a refusal too."""
    user, password = live_user()
    page.set_viewport_size(PHONE)
    page.goto("/register")
    ready_for_taps(page, slow_network)
    slow_network.hold()
    page.get_by_role("button", name="Create Account").click()
    expect(page.get_by_role("button", name="Creating account...")).to_be_disabled()
    slow_network.release()
    expect(page.get_by_text("First name is required", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Create Account")).to_be_enabled()

    page.goto("/login")
    ready_for_taps(page, slow_network)
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(password)
    slow_network.hold()
    page.get_by_role("button", name="Login", exact=True).click()
    expect(page.get_by_role("button", name="Logging in...")).to_be_disabled()
    slow_network.release()
    expect(toast(page, "Welcome back!")).to_be_visible()


def test_the_profile_forms_say_they_are_busy_from_the_tap(page: Page, slow_network, live_user):
    user, _ = live_user(date_of_birth=date(1994, 3, 6), gender="female")  # the form requires every field
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto("/profile")
    expect(page.get_by_label("First Name")).to_have_value(user.first_name)
    ready_for_taps(page, slow_network)
    slow_network.wait_quiet()
    mark = slow_network.mark()
    slow_network.hold()
    page.get_by_role("button", name="Save Changes").click()
    expect(page.get_by_role("button", name="Saving...")).to_be_disabled()
    slow_network.release()
    expect(toast(page, "Profile updated")).to_be_visible()
    expect(page.get_by_role("button", name="Save Changes")).to_be_enabled()
    slow_network.wait_quiet()
    one_round_trip(slow_network, mark, "save changes")  # busy at the tap costs no exchange of its own

    page.get_by_role("tab", name="Addresses").click()
    page.get_by_label("Line 1").fill("7 Slow Lane")
    page.get_by_label("City").fill("Kumasi")
    page.get_by_label("Country").fill("Ghana")
    slow_network.hold()
    page.get_by_role("button", name="Add Address").click()
    expect(page.get_by_role("button", name="Adding...")).to_be_disabled()
    slow_network.release()
    expect(toast(page, "Address added")).to_be_visible()
    expect(page.get_by_text("7 Slow Lane")).to_be_visible()


def test_place_order_says_it_is_busy_from_the_tap(page: Page, slow_network, live_user, live_product, live_server):
    page.set_viewport_size(PHONE)
    at_checkout(page, live_user, live_product, live_server, price="9.00", stock=5, quantity=1)
    ready_for_taps(page, slow_network)
    slow_network.hold()
    place = page.get_by_role("button", name="Place order")
    place.click()
    expect(place).to_be_disabled()
    expect(page.get_by_text("Placing order...")).to_be_visible()
    slow_network.release()
    expect(toast(page, "Order placed")).to_be_visible()


def tapped_once(page: Page, network, button, title: str, what: str) -> None:
    """``button`` tapped: its toast, the button gone, all in one round trip fetching no code."""
    mark = network.mark()
    button.click()
    expect(toast(page, title)).to_be_visible()
    expect(button).to_have_count(0)
    network.wait_quiet()
    one_round_trip(network, mark, what)


def open_admin_order(page: Page, order_id: str) -> None:
    """The back office's page of one order, found by its number."""
    page.goto(f"/admin?tab=orders&q={order_id[:8]}")
    page.get_by_role("button", name=f"View order #{order_id[:8]}").click()


def test_refunding_a_cancelled_paid_order_is_one_round_trip(page: Page, slow_network, live_server, live_user,
                                                            live_product):
    """The admin's "Refund $…" on a phone network: busy at once, then refunded, in one round trip
    (the provider's call runs on the server, off the tab's lock)."""
    from discount_deals.models import Order

    admin, _ = live_user(role="admin")
    shopper, _ = live_user()
    order = delivered_momo_order(live_server, shopper, [(live_product(price="12.00", stock=5), 1)])
    with live_server.session() as session:
        row = session.get(Order, order.id)
        row.status, row.delivered_at, row.attention = "cancelled", None, "refund_due"
        row.attention_note = "The order was cancelled after money was received."
        session.add(row)
    page.set_viewport_size(PHONE)
    sign_in(page, admin)
    open_admin_order(page, order.id)
    refund = page.get_by_role("button", name="Refund $12.96")
    expect(refund).to_be_visible()
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)

    tapped_once(page, slow_network, refund, "Refund recorded", "refund a cancelled order")


def test_withdrawing_a_return_and_resolving_a_flag_are_one_round_trip(page: Page, slow_network,
                                                                       live_server, live_user, live_product):
    """This sitting's taps on a phone network: the shopper's "Withdraw request", and the admin's
    "Mark resolved" on a flagged order, each answered in one round trip, fetching no code."""
    from discount_deals.models import Order, User
    from discount_deals.services import returns

    shopper, _ = live_user()
    item = live_product(name=unique("Slow Withdraw Gari"), price="6.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(item, 2)])
    with live_server.session() as session:
        returns.request_return(session, session.get(User, shopper.id), order.id,
                               [{"product_id": item.id, "quantity": 1}], "One too many")
        row = session.get(Order, order.id)
        row.attention, row.attention_note = "pickup_store_changed", "The store moved."
        session.add(row)
    page.set_viewport_size(PHONE)
    sign_in(page, shopper)
    page.goto(f"/orders/{order.id}")
    withdraw = page.get_by_role("button", name=re.compile("^Withdraw the return of "))
    expect(withdraw).to_be_visible()
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)
    tapped_once(page, slow_network, withdraw, "Return withdrawn", "withdraw a return")

    admin, _ = live_user(role="admin")
    sign_in(page, admin)
    open_admin_order(page, order.id)
    resolve = page.get_by_role("button", name="Mark resolved")
    expect(resolve).to_be_visible()
    ready_for_taps(page, slow_network)
    tapped_once(page, slow_network, resolve, "Flag resolved", "mark a flag resolved")


def test_back_and_forward_within_the_listing_are_one_round_trip(page: Page, slow_network, live_product):
    """This sitting's Back on a phone network: on a list opened from a link, Back to the address
    it loaded and Forward again each show their page in one round trip, fetching no code."""
    word = unique("Backtrip").split()[-1].replace("-", "")
    items = [live_product(name=f"Backtrip {word} {n:02d}", price=f"{10 + n}.00", stock=5) for n in range(12)]
    page.set_viewport_size(PHONE)
    page.goto(f"/products?search={word}&sort=name")
    ready_for_taps(page, slow_network)
    slow_network.use(STEADY)
    first = page.locator("main article h3").first
    page.get_by_role("button", name="Page 2", exact=True).click()
    expect(first).to_have_text(items[10].name)
    slow_network.wait_quiet()
    for step, shown in ((page.go_back, items[0].name), (page.go_forward, items[10].name)):
        mark = slow_network.mark()
        step()
        expect(first).to_have_text(shown)
        slow_network.wait_quiet()
        one_round_trip(slow_network, mark, step.__name__)
