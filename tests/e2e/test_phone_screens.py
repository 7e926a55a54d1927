"""Screens on a cheap phone (390 × 844), from a probe that measured and looked at 81 of them:
each test failed before its fix."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .account_helpers import toast
from .conftest import unique
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
