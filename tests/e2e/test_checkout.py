"""The checkout page, mobile money through the fake provider, the order page's cancel, and the
admin Orders tab, in Chromium against the production server (issue 14; SPEC §4, §8)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import Order, OrderEvent, PickupStore, Product, User
from discount_deals.services import cart as cart_service

from ..conftest import ROOT
from .account_helpers import add_address, login_form, toast
from .conftest import sign_in, unique

SCREENSHOTS = ROOT / "test-results" / "screenshots"
ORDER_URL = re.compile(r"/orders/[0-9a-f-]{36}(\?.*)?$")
ADDRESS_REQUIRED = "You cannot proceed to checkout without an address. Please set your address in your profile."


def fill_cart(live_server, user, *lines) -> None:
    with live_server.session() as session:
        for product, quantity in lines:
            cart_service.add_item(session, user, product.id, quantity)


def orders_of(live_server, user) -> list[Order]:
    with live_server.session() as session:
        return list(session.exec(select(Order).where(Order.user_id == user.id)).all())


def stock(live_server, product) -> int:
    with live_server.session() as session:
        return session.get(Product, product.id).stock


def store_named(live_server, name: str) -> PickupStore:
    with live_server.session() as session:
        return session.exec(select(PickupStore).where(PickupStore.name == name)).one()


def open_checkout(page: Page) -> None:
    page.goto("/checkout")
    expect(page.get_by_role("heading", name="Checkout", exact=True)).to_be_visible()
    expect(page.locator("dl[aria-label='Order total']")).to_contain_text("Total")


def at_checkout(page: Page, live_user, live_product, live_server, *, price: str, stock: int, quantity: int,
                name: str | None = None):
    """A signed-in customer with a saved address and ``quantity`` of a new product (named
    ``name``, when given) in the cart, on /checkout: (user, product)."""
    user, _ = live_user()
    item = live_product(price=price, stock=stock, **({"name": name} if name else {}))
    fill_cart(live_server, user, (item, quantity))
    with live_server.session() as session:
        add_address(session, user)
    sign_in(page, user)
    open_checkout(page)
    return user, item


def totals(page: Page):
    return page.locator("dl[aria-label='Order total']")


def test_guests_log_in_first_and_come_back_to_checkout(page: Page, live_user, live_product):
    user, password = live_user()
    item = live_product(name=unique("Guest Milo"), price="8.00", stock=5)
    page.goto(f"/products?search={item.name}")
    page.locator("main article").filter(has_text=item.name).get_by_role("button", name="Add to Cart").click()
    expect(toast(page, f"{item.name} has been added to your cart.")).to_be_visible()
    page.goto("/cart")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(toast(page, "Login Required")).to_be_visible()
    expect(toast(page, "Please log in to proceed with checkout.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/login\?redirectTo=/checkout$"))
    login_form(page, user.email, password)
    expect(page).to_have_url(re.compile(r"/checkout$"))
    expect(page.get_by_role("list", name="Order lines")).to_contain_text(item.name)
    expect(totals(page)).to_contain_text("Subtotal$8.00")


def test_a_new_customer_without_an_address_collects_and_pays_cash(page: Page, live_user, live_product, live_server):
    user, _ = live_user()
    rice = live_product(name=unique("Pickup Rice"), price="15.00", discount_price="12.00", stock=6)
    fill_cart(live_server, user, (rice, 2))
    sign_in(page, user)
    page.goto("/cart")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(page).to_have_url(re.compile(r"/checkout$"))
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)

    expect(page.get_by_text("No saved address yet: add the address to deliver to.")).to_be_visible()
    expect(page.get_by_role("form", name="Add a new address")).to_be_visible()  # inline, no detour
    # 24.00 + 5.99 delivery + 1.92 tax.
    expect(totals(page)).to_contain_text("Delivery$5.99")
    expect(totals(page)).to_contain_text("Total$31.91")
    expect(totals(page)).to_contain_text("You save$6.00")

    page.get_by_text("Pickup at a partner store").click()
    expect(page.get_by_role("radio", name=re.compile("Pickup at a partner store"))).to_be_checked()
    expect(totals(page)).to_contain_text("PickupFree")
    expect(totals(page)).to_contain_text("Total$25.92")
    # Issue 32: pickup speaks of the store and of paying there, not of a rider or a delivery.
    expect(page.get_by_text("The store calls this number when your order is ready.")).to_be_visible()
    expect(page.get_by_text("The rider calls this number to find you.")).to_have_count(0)
    expect(page.get_by_role("radio", name=re.compile("Pay at pickup"))).to_be_checked()
    expect(page.get_by_role("radio", name=re.compile("Cash on delivery"))).to_have_count(0)
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Pickup store required")).to_be_visible()
    expect(page.locator("#checkout-store-error")).to_have_text("Pickup store required")  # at the store list
    stores = page.get_by_role("list", name="Pickup stores")
    expect(stores.get_by_role("listitem")).to_have_count(6)  # seeded: three Shoprite, three Melcom
    stores.get_by_text("Melcom Adum").click()
    expect(page.get_by_role("radio", name=re.compile("Melcom Adum"))).to_be_checked()
    expect(page.locator("#checkout-store-error")).to_have_count(0)
    expect(page.get_by_text("Pay in cash when you collect your order.").first).to_be_visible()
    page.get_by_role("button", name="Place order").click()

    expect(toast(page, "Order placed")).to_be_visible()
    expect(toast(page, "Your order has been placed. You pay when you collect it.")).to_be_visible()
    page.wait_for_url(ORDER_URL)
    assert [url for url in navigations if "/orders/" not in url] == []  # never left /checkout before the order
    expect(page.get_by_text("Melcom Adum")).to_be_visible()
    expect(page.get_by_text("Pay at pickup")).to_be_visible()
    expect(page.get_by_role("list", name="Order timeline")).to_contain_text("Order placed")
    (order,) = orders_of(live_server, user)
    assert (order.delivery_method, order.payment_method, order.payment_status) == (
        "pickup", "cash_on_delivery", "pay_on_delivery")
    assert order.pickup_store_id == store_named(live_server, "Melcom Adum").id
    assert order.address is None and order.total == Decimal("25.92")
    assert stock(live_server, rice) == 4


def test_an_address_added_inline_is_chosen_for_home_delivery(page: Page, live_user, live_product, live_server):
    user, _ = live_user()
    item = live_product(price="30.00", stock=3)
    fill_cart(live_server, user, (item, 2))
    sign_in(page, user)
    open_checkout(page)
    page.get_by_role("button", name="Place order").click()  # the address form is still empty
    expect(toast(page, "Address Required")).to_be_visible()
    expect(toast(page, ADDRESS_REQUIRED)).to_be_visible()
    form = page.get_by_role("form", name="Add a new address")
    expect(form.get_by_text("Enter the city or town.")).to_be_visible()
    form.get_by_label("Area and street").fill("14 Oxford Street")
    form.get_by_label("City or town").fill("Accra")
    form.get_by_label("Region").select_option("Greater Accra")
    form.get_by_role("button", name="Add Address").click()
    expect(toast(page, "Address added")).to_be_visible()
    saved = page.get_by_role("list", name="Saved addresses")
    expect(saved.get_by_role("radio", name=re.compile("14 Oxford Street"))).to_be_checked()
    expect(page.get_by_role("form", name="Add a new address")).to_have_count(0)
    expect(totals(page)).to_contain_text("DeliveryFree")  # 60.00 is over 50
    page.get_by_text("Pickup at a partner store").click()  # the home card still says what it costs
    expect(totals(page)).to_contain_text("PickupFree")
    expect(page.locator("label[for='delivery-home'] > span").last).to_have_text("Free")
    page.get_by_text("Home delivery", exact=True).click()
    expect(page.get_by_text("The rider calls this number to find you.")).to_be_visible()
    expect(totals(page)).to_contain_text("DeliveryFree")
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Order placed")).to_be_visible()
    page.wait_for_url(ORDER_URL)
    expect(page.get_by_text("14 Oxford Street, Accra, Greater Accra, Ghana")).to_be_visible()
    (order,) = orders_of(live_server, user)
    assert order.address["line1"] == "14 Oxford Street" and order.total == Decimal("64.80")
    assert order.contact_phone == "+233245550100"  # the account's number, prefilled


def test_an_address_typed_at_checkout_survives_a_refresh_and_back(page: Page, live_user, live_product, live_server):
    # Probe 78: on a slow network a refresh, or Back to the cart and Forward, emptied the new
    # address (the phone fields kept theirs).
    user, _ = live_user()
    fill_cart(live_server, user, (live_product(price="30.00", stock=3), 1))
    sign_in(page, user)
    open_checkout(page)
    form = page.get_by_role("form", name="Add a new address")
    form.get_by_label("Area and street").fill("14 Oxford Street")
    form.get_by_label("Landmark or directions").fill("Opposite the Shell station")
    form.get_by_label("City or town").fill("Accra")
    form.get_by_label("Region").select_option("Greater Accra")
    page.reload()
    form = page.get_by_role("form", name="Add a new address")
    expect(form.get_by_label("Area and street")).to_have_value("14 Oxford Street")
    expect(form.get_by_label("Landmark or directions")).to_have_value("Opposite the Shell station")
    expect(form.get_by_label("City or town")).to_have_value("Accra")
    expect(form.get_by_label("Region")).to_have_value("Greater Accra")
    page.goto("/cart")
    page.go_back()
    expect(page.get_by_role("form", name="Add a new address").get_by_label("City or town")).to_have_value("Accra")
    page.get_by_role("form", name="Add a new address").get_by_role("button", name="Add Address").click()
    expect(toast(page, "Address added")).to_be_visible()
    assert page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('dd-draft:'))") == []


def test_a_logout_forgets_the_address_typed_at_checkout(page: Page, live_user, live_product, live_server):
    # Review 79: on a shared phone, the draft outlived the logout in the tab.
    user, _ = live_user()
    fill_cart(live_server, user, (live_product(price="30.00", stock=3), 1))
    sign_in(page, user)
    open_checkout(page)
    page.get_by_role("form", name="Add a new address").get_by_label("Area and street").fill("14 Oxford Street")
    drafts = "Object.keys(sessionStorage).filter(k => k.startsWith('dd-draft:')).length"
    page.wait_for_function(f"() => {drafts} === 1")
    page.get_by_role("button", name="Account menu").click()
    page.locator("#account-menu").get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/$"))
    page.wait_for_function(f"() => {drafts} === 0")


def _choose_mobile_money(page: Page, phone: str = "024 123 4567", network: str = "MTN MoMo") -> None:
    page.get_by_text("Mobile money", exact=True).click()
    page.get_by_label("Mobile money number").fill(phone)
    page.get_by_label("Network").select_option(label=network)


def test_a_double_click_on_place_order_places_one_order(page: Page, live_user, live_product, live_server):
    user, item = at_checkout(page, live_user, live_product, live_server, price="6.00", stock=4, quantity=2)
    button = page.get_by_role("button", name="Place order")
    expect(button).to_be_enabled()
    button.evaluate("b => { b.click(); b.click(); }")  # two clicks before any re-render can disable it
    page.wait_for_url(ORDER_URL)
    expect(page.get_by_text("Qty: 2")).to_be_visible()
    assert len(orders_of(live_server, user)) == 1
    assert stock(live_server, item) == 2


def test_place_order_in_a_second_checkout_tab_points_to_the_order_the_first_placed(
        page: Page, live_user, live_product, live_server):
    # Probe 78: checkout open in two tabs; after the first placed the order, the second's "Place
    # order" said only "Cart is empty", its header still counted the line, and nothing named the
    # order (a second order was the obvious next step).
    user, _item = at_checkout(page, live_user, live_product, live_server, price="6.00", stock=4, quantity=1)
    other = page.context.new_page()
    open_checkout(other)
    page.get_by_role("button", name="Place order").click()
    page.wait_for_url(ORDER_URL)
    (placed,) = orders_of(live_server, user)
    other.get_by_role("button", name="Place order").click()
    expect(toast(other, "Cart is empty")).to_be_visible()
    note = other.get_by_role("status").filter(has_text="was placed at")
    expect(note).to_contain_text(f"Your order #{placed.id[:8]} was placed at")
    expect(note.get_by_role("link", name="View order")).to_have_attribute("href", f"/orders/{placed.id}")
    expect(other.get_by_role("link", name=re.compile(r"^Cart"))).not_to_contain_text("1")
    assert len(orders_of(live_server, user)) == 1


def test_a_stock_conflict_is_a_checkout_error(page: Page, live_user, live_product, live_server):
    user, item = at_checkout(page, live_user, live_product, live_server, price="6.00", stock=4, quantity=3)
    with live_server.session() as session:
        session.get(Product, item.id).stock = 1
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Not enough stock")).to_be_visible()
    expect(toast(page, f"Not enough stock for {item.name}: only 1 left.")).to_be_visible()
    # The refusal re-priced the review: the line is marked, with its one-tap fix.
    line = page.get_by_role("list", name="Order lines").get_by_role("listitem").filter(has_text=item.name)
    expect(line).to_contain_text("Only 1 left")
    expect(line.get_by_role("button", name=f"Change {item.name} to 1 (what is left)")).to_be_visible()
    expect(page.get_by_role("button", name="Place order")).to_be_enabled()
    assert orders_of(live_server, user) == []


def at_the_cart_with_a_coupon_to_use(page: Page, live_user, live_product, live_server, word: str):
    """A 10 % coupon exists; a shopper with an address has one 20.00 item in the cart and is on
    /cart. Returns (code, user)."""
    from discount_deals.services.coupons import create_coupon

    code = unique(word).replace(" ", "").replace("-", "")
    with live_server.session() as session:
        create_coupon(session, code, percent="10")
    user, _ = live_user()
    fill_cart(live_server, user, (live_product(price="20.00", stock=4), 1))
    with live_server.session() as session:
        add_address(session, user)
    sign_in(page, user)
    page.goto("/cart")
    return code, user


def test_coupons_from_the_cart_are_checked_at_checkout(page: Page, live_user, live_product, live_server):
    code, user = at_the_cart_with_a_coupon_to_use(page, live_user, live_product, live_server, "SAVE")
    page.get_by_label("Coupon code").fill("NOSUCHCODE")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(page).to_have_url(re.compile(r"/checkout$"))
    expect(page.get_by_role("alert").filter(has_text="Invalid coupon code")).to_be_visible()
    expect(totals(page)).not_to_contain_text("Coupon")
    page.get_by_label("Coupon code").fill(code.lower())
    page.get_by_role("button", name="Apply").click()
    expect(toast(page, "Coupon applied")).to_be_visible()
    # 20.00 - 2.00 coupon + 5.99 delivery + 1.44 tax.
    expect(totals(page)).to_contain_text("Coupon-$2.00")
    expect(totals(page)).to_contain_text("Total$25.43")
    page.get_by_role("button", name="Place order").click()
    page.wait_for_url(ORDER_URL)
    (order,) = orders_of(live_server, user)
    assert (order.coupon_code, order.total) == (code.upper(), Decimal("25.43"))


# --- the admin Orders tab ----------------------------------------------------------------------------


def _admin(page: Page, live_user) -> User:
    admin, _ = live_user(role="admin")
    sign_in(page, admin)
    page.goto("/admin?tab=orders")
    expect(page.get_by_role("heading", name="Orders", exact=True)).to_be_visible()
    return admin


def _open(page: Page, order: Order) -> None:
    page.get_by_label("Search orders").fill(order.id[:8])
    row = page.get_by_role("list", name="Orders").get_by_role("listitem")
    expect(row).to_have_count(1)
    row.get_by_role("button", name=f"View order #{order.id[:8]}").click()
    expect(page.get_by_role("heading", name=f"Order #{order.id[:8]}")).to_be_visible()


def _place_cash_order(live_server, live_user, live_product, quantity: int = 2, name: str | None = None):
    """A customer places a home-delivery, cash order through the server's API (as the original client does)."""
    import httpx

    from discount_deals.services.auth.tokens import create_access_token

    customer, _ = live_user()
    item = live_product(price="11.00", stock=5, **({"name": name} if name else {}))
    fill_cart(live_server, customer, (item, quantity))
    with live_server.session() as session:
        add_address(session, customer)
    response = httpx.post(f"{live_server.url}/api/orders/checkout/", json={},
                          headers={"Authorization": f"Bearer {create_access_token(customer)}"}, timeout=30)
    assert response.status_code == 201, response.text
    with live_server.session() as session:
        order = session.get(Order, response.json()["id"])
    return customer, item, order


def test_admin_moves_an_order_to_delivered_and_cancels_another(page: Page, live_user, live_product, live_server):
    _customer, first_item, first = _place_cash_order(live_server, live_user, live_product)
    _customer2, second_item, second = _place_cash_order(live_server, live_user, live_product, 3)
    assert stock(live_server, second_item) == 2
    admin = _admin(page, live_user)
    newest = page.get_by_role("list", name="Orders").get_by_role("listitem").first
    expect(newest).to_contain_text(f"#{second.id[:8]}")  # newest first

    _open(page, first)
    actions = page.get_by_role("group", name="Change status")
    for action, shown in (("Start processing", "Processing"), ("Mark shipped", "Shipped"),
                          ("Mark delivered", "Delivered")):
        actions.get_by_role("button", name=action).click()
        expect(toast(page, f"Order #{first.id[:8]} is now {shown}.")).to_be_visible()
    expect(page.get_by_text("No further status changes.")).to_be_visible()
    timeline = page.get_by_role("list", name="Order timeline")
    expect(timeline).to_contain_text("Delivered")
    expect(timeline).to_contain_text(admin.email)
    with live_server.session() as session:
        assert session.get(Order, first.id).status == "delivered"
        moves = session.exec(
            select(OrderEvent.to_value, OrderEvent.actor_id).where(
                OrderEvent.order_id == first.id, OrderEvent.kind == "status")
            .order_by(OrderEvent.created_at)
        ).all()
    assert moves[1:] == [("processing", admin.id), ("shipped", admin.id), ("delivered", admin.id)]

    page.get_by_role("button", name="Back to orders").click()
    page.get_by_label("Status", exact=True).select_option("delivered")
    expect(page.get_by_role("list", name="Orders").get_by_role("listitem").filter(
        has_text=f"#{first.id[:8]}")).to_have_count(1)
    page.get_by_role("button", name="Clear filters").click()
    # The cleared filters come back from the server with the fields re-made empty: typing before
    # that lands in a field about to be replaced (seen once under load: the search was lost).
    expect(page.get_by_role("button", name="Clear filters")).to_have_count(0)

    _open(page, second)
    page.get_by_role("button", name="Cancel order").click()
    page.get_by_role("button", name="Confirm: cancel order").click()
    expect(toast(page, f"Order #{second.id[:8]} is now Cancelled.")).to_be_visible()
    with live_server.session() as session:
        assert session.get(Order, second.id).status == "cancelled"
    assert stock(live_server, second_item) == 5
    assert stock(live_server, first_item) == 3


def test_admins_add_and_hide_pickup_stores(page: Page, new_context, live_user, live_product, live_server):
    name = unique("Melcom Tema")
    admin, _ = live_user(role="admin")
    sign_in(page, admin)
    page.goto("/admin?tab=stores")
    form = page.get_by_role("heading", name="Add a pickup store").locator("xpath=..")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Retailer").fill("melcom")
    form.get_by_label("Address").fill("Community 1, Harbour Road")
    form.get_by_label("City").fill("Tema")
    form.get_by_label("Opening hours").fill("Mon-Sat 8:30-20:00")
    page.get_by_role("button", name="Add Store").click()
    expect(toast(page, "Store added")).to_be_visible()
    expect(form.get_by_label("Name")).to_have_value("")  # the form is emptied for the next store
    listed = page.get_by_role("list", name="Pickup stores").get_by_role("listitem").filter(has_text=name)
    expect(listed).to_contain_text("Shown at checkout")

    shopper, _ = live_user()
    fill_cart(live_server, shopper, (live_product(stock=3), 1))
    shop = new_context().new_page()
    sign_in(shop, shopper)
    open_checkout(shop)
    shop.get_by_text("Pickup at a partner store").click()
    expect(shop.get_by_role("list", name="Pickup stores")).to_contain_text(name)

    listed.get_by_role("button", name=f"Hide {name}").click()
    expect(toast(page, "Store hidden from checkout")).to_be_visible()
    expect(listed).to_contain_text("Hidden")
    with live_server.session() as session:
        assert session.exec(select(PickupStore).where(PickupStore.name == name)).one().is_active is False
    open_checkout(shop)
    shop.get_by_text("Pickup at a partner store").click()
    expect(shop.get_by_role("list", name="Pickup stores")).not_to_contain_text(name)


@pytest.mark.parametrize("size", [(390, 844), (1440, 900)])
def test_screenshots(page: Page, new_context, live_user, live_product, live_server, size):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    user, _ = live_user()
    fill_cart(live_server, user, (live_product(price="18.50", discount_price="14.99", stock=9), 2),
              (live_product(price="6.25", stock=9), 1))
    with live_server.session() as session:
        add_address(session, user, line2="Behind the mall", state="Greater Accra", postal_code="GA-100")
        add_address(session, user, line1="9 Harbour Road", city="Tema")
    sign_in(page, user)
    open_checkout(page)
    page.screenshot(path=str(SCREENSHOTS / f"checkout-{width}.png"), full_page=True)
    page.get_by_text("Pickup at a partner store").click()
    _choose_mobile_money(page)
    expect(page.get_by_role("list", name="Pickup stores")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"checkout-pickup-momo-{width}.png"), full_page=True)

    customer, _i, order = _place_cash_order(live_server, live_user, live_product)
    admin_page = new_context().new_page()
    admin_page.set_viewport_size({"width": width, "height": height})
    _admin(admin_page, live_user)
    expect(admin_page.get_by_role("list", name="Orders")).to_be_visible()
    admin_page.screenshot(path=str(SCREENSHOTS / f"admin-orders-{width}.png"), full_page=True)
    _open(admin_page, order)
    admin_page.get_by_role("button", name="Start processing").click()
    expect(toast(admin_page, "is now Processing")).to_be_visible()
    admin_page.screenshot(path=str(SCREENSHOTS / f"admin-order-{width}.png"), full_page=True)

    mine = new_context().new_page()
    mine.set_viewport_size({"width": width, "height": height})
    sign_in(mine, customer)
    mine.goto(f"/orders/{order.id}")
    expect(mine.get_by_role("list", name="Order timeline")).to_contain_text("Being prepared")
    mine.screenshot(path=str(SCREENSHOTS / f"order-timeline-{width}.png"), full_page=True)


def test_a_coupon_in_the_checkout_address_is_applied_and_the_address_tidied(page: Page, live_user, live_product,
                                                                             live_server):
    """The cart's "Proceed to Checkout" carries the typed coupon as /checkout?coupon=... (one round
    trip for the tap); the page applies it and puts the bar back to /checkout."""
    code, _user = at_the_cart_with_a_coupon_to_use(page, live_user, live_product, live_server, "LINK")
    page.get_by_label("Coupon code").fill(f"  {code.lower()} ")
    page.get_by_role("button", name="Proceed to Checkout").click()
    expect(totals(page)).to_contain_text("Coupon-$2.00")
    expect(page).to_have_url(re.compile(r"/checkout$"))
    expect(page.get_by_text(f"Coupon {code.lower()}")).to_be_visible()
