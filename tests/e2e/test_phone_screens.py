"""Screens on a cheap phone (390 × 844), from a probe that measured and looked at 81 of them:
each test failed before its fix."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .account_helpers import toast
from .conftest import sign_in, unique
from .test_checkout import _admin, _open, _place_cash_order, at_checkout
from .test_slow_network import PHONE

LONG_NAME = "Cantu Shea Butter Leave-In Conditioning Repair Cream 340g Jar"

NOTHING_CUT = "el => el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1"


def test_the_admins_order_page_fits_a_phone_with_a_long_product_name(page: Page, live_user, live_product,
                                                                     live_server):
    """Its items ran off the screen: the page was 449 px wide for "Cantu Shea Butter Leave-In
    Conditioner", up to 816 px for longer names."""
    _customer, _item, order = _place_cash_order(live_server, live_user, live_product, name=unique(LONG_NAME))
    page.set_viewport_size(PHONE)
    _admin(page, live_user)
    _open(page, order)
    expect(page.get_by_role("heading", name=f"Order #{order.id[:8]}")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_checkouts_review_shows_a_long_name_whole(page: Page, live_user, live_product, live_server):
    """"Review your order" cut every name to one line ("Royal Aroma Premium…"): the size at its
    end could not be seen on the last screen before paying."""
    page.set_viewport_size(PHONE)
    name = unique(LONG_NAME)
    at_checkout(page, live_user, live_product, live_server, price="9.00", stock=5, quantity=1, name=name)
    shown = page.locator("main li p").filter(has_text=name)
    expect(shown).to_be_visible()
    assert shown.evaluate(NOTHING_CUT), "the name is cut"


def test_a_refused_mobile_money_number_stays_said_in_sight(page: Page, slow_network, live_user, live_product,
                                                           live_server):
    """Tapped at once after typing "12345": the reason under the field cleared within a second
    (the typing pause's event came after the refusal), the field 183 px above the screen, and the
    toast said "Mobile money number required" of a number typed."""
    page.set_viewport_size(PHONE)
    at_checkout(page, live_user, live_product, live_server, price="9.00", stock=5, quantity=1)
    page.get_by_text("Mobile money", exact=True).click()
    field = page.get_by_label("Mobile money number")
    field.fill("12345")
    page.get_by_role("button", name="Place order").click()
    said = toast(page, "Check the mobile money number")
    expect(said).to_be_visible()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_be_in_viewport()
    # The toast's words at WCAG AA on its pink (sonner's red read 4.35:1): #b00000.
    assert said.evaluate("el => getComputedStyle(el).color") == "rgb(176, 0, 0)"
    slow_network.wait_quiet(quiet_s=1.0)  # the typing pause's event has been sent and answered
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert").filter(has_text="mobile")).to_be_visible()


def test_the_tab_a_link_opens_is_in_sight_in_the_phones_row_of_tabs(page: Page, live_user):
    """/admin?tab=activity left the Activity tab at x = 1,658 px of a 390 px screen."""
    page.set_viewport_size(PHONE)
    _admin(page, live_user)
    page.goto("/admin?tab=activity")
    chosen = page.get_by_role("tab", name="Activity")
    expect(chosen).to_have_attribute("aria-selected", "true")
    expect(chosen).to_be_in_viewport()


def test_an_admin_on_a_phone_meets_the_products_before_the_empty_form(page: Page, live_user, live_product):
    """The Products and Coupons tabs put their forms first: on a phone an admin scrolled past
    1,100 px of empty fields to every product they came to change. The list comes first there,
    with a link down to the form; a wide screen keeps the form on the left."""
    item = live_product(name=unique("Phone-first Gari"), price="7.00", stock=4)
    page.set_viewport_size(PHONE)
    sign_in(page, live_user(role="admin")[0])
    page.goto(f"/admin?tab=products&q={item.name}")
    listed = page.get_by_role("heading", name="Products (1)")
    form = page.get_by_role("form", name="Add New Product")
    expect(listed).to_be_visible()
    assert listed.bounding_box()["y"] < form.bounding_box()["y"]
    assert listed.bounding_box()["y"] < PHONE["height"]  # in sight as the tab opens
    page.get_by_role("link", name="Add a product").click()
    expect(form.get_by_label("Name")).to_be_in_viewport()
    page.get_by_role("listitem").filter(has_text=item.name).get_by_role("button", name=f"Edit {item.name}").click()
    expect(page.get_by_role("form", name="Edit Product").get_by_label("Name")).to_have_value(item.name)
    expect(page.get_by_role("form", name="Edit Product")).to_be_in_viewport()
    page.set_viewport_size({"width": 1440, "height": 900})
    expect(page.get_by_role("link", name="Add a product")).to_be_hidden()
    box = page.get_by_role("form", name="Edit Product").bounding_box()
    assert box["x"] < page.get_by_role("heading", name="Products (1)").bounding_box()["x"]  # the form on the left
