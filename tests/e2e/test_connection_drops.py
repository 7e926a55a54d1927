"""The connection drops in the middle of a tap, as a phone's does (a probe's findings, each
failing before its fix): what the shopper sees once it is back.

Two ways to lose a tap: its answer (the shop did it, the answer never came: the shop's answers
are held at the proxy, the network cut once the database shows the change), or the tap itself
(it left the phone and never reached the shop: the uplink is slowed, the network cut once the
proxy has seen the event leave). The outage lasts until the page says it is offline.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import Cart, CartItem, Order
from discount_deals.models.base import utcnow

from .account_helpers import insert_order, toast
from .conftest import sign_in, unique
from .test_checkout import ORDER_URL, _admin, _open, _place_cash_order, at_checkout
from ..support.waiting import until
from .test_slow_network import PHONE, badge, ready_for_taps


def _bar(page: Page):
    return page.locator("#offline-bar")


def _outage(page: Page, network) -> None:
    """The network is down until the page says so; then it comes back, and the page says so."""
    expect(_bar(page)).to_be_visible(timeout=15_000)
    network.go_online()
    expect(_bar(page)).to_be_hidden(timeout=30_000)
    network.wait_quiet(quiet_s=1.0)


def answer_lost(page: Page, network, tap, done) -> None:
    """Tap; once ``done()`` says the shop did it, cut the network (the answer is lost)."""
    network.wait_quiet()
    network.hold()
    tap()
    try:
        until(done, "the shop to do the tap")
    finally:
        network.go_offline()
        network.release()
    _outage(page, network)


def tap_lost(page: Page, network, tap, event: str) -> None:
    """Tap; once the proxy has seen ``event`` leave the browser, cut the network before it reaches the shop."""
    network.wait_quiet()
    network.delay_uplink(5.0)
    mark = network.mark()
    try:
        tap()
        until(lambda: any(event in sent for sent in network.since(mark).events), f"{event} sent")
        network.go_offline()
    finally:
        network.delay_uplink(0)
    _outage(page, network)


def _orders(live_server, user) -> list[Order]:
    with live_server.session() as session:
        return list(session.exec(select(Order).where(Order.user_id == user.id)).all())


def _cart(live_server, user) -> dict[str, int]:
    with live_server.session() as session:
        rows = session.exec(select(CartItem.product_id, CartItem.quantity).join(Cart, Cart.id == CartItem.cart_id)
                            .where(Cart.user_id == user.id)).all()
    return dict(rows)


def _at_checkout(page: Page, network, live_user, live_product, live_server, *, momo: bool = False):
    page.set_viewport_size(PHONE)
    user, _item = at_checkout(page, live_user, live_product, live_server, price="9.00", stock=5, quantity=1)
    if momo:
        page.get_by_text("Mobile money", exact=True).click()
        page.get_by_label("Mobile money number").fill("020 765 4321")
        expect(page.get_by_label("Network")).to_have_value("telecel")
    ready_for_taps(page, network)
    return user


def test_an_order_placed_as_the_connection_dropped_is_shown_once_it_is_back(page: Page, slow_network, live_user,
                                                                          live_product, live_server):
    """It showed "Your cart is empty" and nothing else: the obvious next step was a second order."""
    user = _at_checkout(page, slow_network, live_user, live_product, live_server)
    answer_lost(page, slow_network, page.get_by_role("button", name="Place order").click,
                lambda: _orders(live_server, user))
    expect(page).to_have_url(ORDER_URL, timeout=30_000)
    expect(toast(page, "Order placed")).to_be_visible()
    [order] = _orders(live_server, user)
    assert order.id in page.url


def test_a_mobile_money_order_placed_as_the_connection_dropped_goes_to_its_payment(page: Page, slow_network,
                                                                                  live_user, live_product,
                                                                                  live_server):
    """A guard: a drop during the payment pause (PAYMENT_WAIT_S) already ended there, the redirect
    coming after it; the way back to the order is the same as for cash (the test above)."""
    user = _at_checkout(page, slow_network, live_user, live_product, live_server, momo=True)

    def payment_started() -> bool:
        rows = _orders(live_server, user)
        return bool(rows) and bool(rows[0].payment_reference)

    answer_lost(page, slow_network, page.get_by_role("button", name=re.compile("^Place order")).click,
                payment_started)
    expect(page).to_have_url(ORDER_URL, timeout=30_000)
    expect(page.get_by_role("region", name="Payment step")).to_be_visible()
    assert len(_orders(live_server, user)) == 1


def test_a_place_order_lost_on_the_way_can_be_tapped_again_and_places_one_order(page: Page, slow_network, live_user,
                                                                               live_product, live_server):
    """"Placing order..." stayed for good: only a reload got out of it."""
    user = _at_checkout(page, slow_network, live_user, live_product, live_server)
    tap_lost(page, slow_network, page.get_by_role("button", name="Place order").click, "place_order")
    assert _orders(live_server, user) == []
    again = page.get_by_role("button", name="Place order")
    expect(again).to_be_enabled()
    again.click()
    expect(page).to_have_url(ORDER_URL, timeout=30_000)
    assert len(_orders(live_server, user)) == 1


def _login_typed(page: Page, network, live_user):
    """A customer's email and password typed on /login, the app live: its Login button."""
    user, password = live_user()
    page.set_viewport_size(PHONE)
    page.goto("/login")
    ready_for_taps(page, network)
    page.get_by_label("Email").fill(user.email)
    page.get_by_label("Password").fill(password)
    return page.get_by_role("button", name="Login", exact=True)


def test_a_login_lost_on_the_way_lets_the_shopper_try_again(page: Page, slow_network, live_user):
    login = _login_typed(page, slow_network, live_user)
    tap_lost(page, slow_network, login.click, "submit")
    expect(login).to_be_enabled()
    login.click()
    expect(page).not_to_have_url(re.compile("/login"), timeout=30_000)


def test_an_add_to_cart_lost_on_the_way_leaves_the_badge_as_the_cart_is(page: Page, slow_network, live_user,
                                                                       live_product, live_server):
    """The badge said "Cart, 1 item" over an empty cart until the next tap or a reload."""
    user, _ = live_user()
    item = live_product(name=unique("Lost Gari"), stock=9)
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto(f"/products/{item.id}")
    ready_for_taps(page, slow_network)
    tap_lost(page, slow_network, page.get_by_role("button", name=f"Add to Cart: {item.name}").click, "add_")
    assert _cart(live_server, user) == {}
    expect(badge(page, "Cart")).to_have_accessible_name("Cart")


def test_the_offline_bar_is_in_sight_at_the_place_order_button(page: Page, slow_network, live_user, live_product,
                                                               live_server):
    """It sat at the page's top, 1,229 px above a shopper scrolled down to "Place order"."""
    _at_checkout(page, slow_network, live_user, live_product, live_server)
    page.get_by_role("button", name="Place order").scroll_into_view_if_needed()
    slow_network.go_offline()
    expect(_bar(page)).to_be_in_viewport()
    _outage(page, slow_network)


def test_an_order_open_in_the_back_office_stays_open_across_a_reconnection(page: Page, slow_network, live_user,
                                                                          live_product, live_server):
    """Every reconnection sent the admin back to the orders list."""
    _customer, _item, order = _place_cash_order(live_server, live_user, live_product)
    page.set_viewport_size(PHONE)
    _admin(page, live_user)
    _open(page, order)
    ready_for_taps(page, slow_network)
    heading = page.get_by_role("heading", name=f"Order #{order.id[:8]}")
    expect(heading).to_be_visible()
    slow_network.go_offline()
    _outage(page, slow_network)
    expect(heading).to_be_visible()
    page.get_by_role("button", name="Back to orders").click()
    expect(page.get_by_role("list", name="Orders")).to_be_visible()


def test_a_status_change_tapped_twice_offline_is_made_once_and_refused_never(page: Page, slow_network, live_user,
                                                                            live_product, live_server):
    """Both taps were sent once back: the second answered "Cannot change an order from processing
    to processing." beside "Order updated"."""
    _customer, _item, order = _place_cash_order(live_server, live_user, live_product)
    page.set_viewport_size(PHONE)
    _admin(page, live_user)
    _open(page, order)
    ready_for_taps(page, slow_network)
    start = page.get_by_role("group", name="Change status").get_by_role("button", name="Start processing")
    slow_network.go_offline()
    expect(_bar(page)).to_be_visible(timeout=15_000)
    start.click()
    start.click()
    _outage(page, slow_network)
    expect(toast(page, "Order updated")).to_be_visible()
    slow_network.wait_quiet(quiet_s=1.0)  # both taps answered (a refusal's toast would be up: not waited away)
    assert not [text for text in page.locator("[data-sonner-toast]").all_inner_texts() if "Could not update" in text]
    with live_server.session() as session:
        assert session.get(Order, order.id).status == "processing"


def _fill_registration(page: Page, email: str) -> None:
    page.get_by_label("First Name").fill("Kofi")
    page.get_by_label("Last Name").fill("Boateng")
    page.get_by_label("Username").fill(email.split("@")[0])
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("akwaaba-deals-7")
    page.get_by_label("Phone Number").fill("+233 24 000 0000")
    page.get_by_label("Date of Birth").fill("1990-05-01")
    page.get_by_label("Gender").select_option("male")


def test_an_account_created_as_the_connection_dropped_signs_in_when_sent_again(page: Page, slow_network,
                                                                              live_server):
    """The account was made, the tab not signed in (the browser's empty storage won at the
    reconnection), and sending the form again answered "A user with this email already exists"."""
    from discount_deals.models import User

    email = unique("kofi").replace(" ", "").replace("-", "").lower() + "@example.com"

    def accounts() -> list[User]:
        with live_server.session() as session:
            return list(session.exec(select(User).where(User.email == email)).all())

    page.set_viewport_size(PHONE)
    page.goto("/register")
    ready_for_taps(page, slow_network)
    _fill_registration(page, email)
    create = page.get_by_role("button", name="Create Account")
    answer_lost(page, slow_network, create.click, accounts)
    _fill_registration(page, email)  # what a shopper does, seeing the form again
    create.click()
    expect(toast(page, "Account created!")).to_be_visible()
    expect(page).not_to_have_url(re.compile("/register"))
    expect(page.get_by_role("button", name="Account menu")).to_be_visible()
    assert len(accounts()) == 1


def test_a_login_answered_as_the_connection_dropped_is_signed_in_once_it_is_back(page: Page, slow_network,
                                                                                 live_user):
    """The shop signed the tab in, the answer was lost, and the browser's empty storage won at the
    reconnection: the shopper stayed on /login, signed out, told nothing."""
    login = _login_typed(page, slow_network, live_user)
    tapped = time.monotonic()  # a login writes nothing to wait for: its answers, held, are
    answer_lost(page, slow_network, login.click, lambda: slow_network.answers_held_and_done(tapped))
    expect(page).not_to_have_url(re.compile("/login"), timeout=30_000)
    expect(page.get_by_role("button", name="Account menu")).to_be_visible()


def test_an_empty_checkout_points_to_the_order_just_placed(page: Page, live_user, live_server):
    """An outage longer than the server keeps a tab's state lost the way to the order placed as
    it began: the checkout showed "Your cart is empty" and nothing else, inviting a second order.
    It now names the order placed in the last half hour, with a link; an older one is not named."""
    user, _password = live_user()
    with live_server.session() as session:
        older = insert_order(session, user, created_at=utcnow() - timedelta(hours=2))
        just_placed = insert_order(session, user)
    page.set_viewport_size(PHONE)
    sign_in(page, user)
    page.goto("/checkout")
    expect(page.get_by_role("heading", name="Your cart is empty")).to_be_visible()
    note = page.get_by_role("status").filter(has_text="was placed at")
    expect(note).to_contain_text(re.compile(rf"^Your order #{just_placed.id[:8]} was placed at \d{{1,2}}:\d\d GMT\. View order$"))
    note.get_by_role("link", name="View order").click()
    page.wait_for_url(f"**/orders/{just_placed.id}")
    with live_server.session() as session:  # half an hour on: neither is named
        session.get(Order, just_placed.id).created_at = utcnow() - timedelta(minutes=31)
    page.goto("/checkout")
    expect(page.get_by_role("heading", name="Your cart is empty")).to_be_visible()
    expect(page.get_by_role("link", name="Continue Shopping")).to_be_visible()
    # The tab's state shows the last note until the page's load has looked again: wait for it.
    expect(page.locator("main").get_by_text("was placed at")).to_have_count(0)
    assert older.id[:8] not in page.content()
