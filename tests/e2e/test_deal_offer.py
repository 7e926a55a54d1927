"""Deal alerts where shoppers are (issue 34 item 5): the first favourite offers them in one tap,
and the favourites page says whether they are on."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .account_helpers import toast
from .conftest import sign_in


def deal_alerts_of(live_server, user) -> str | None:
    from discount_deals.models import NotificationPreference

    with live_server.session() as session:
        row = session.get(NotificationPreference, user.id)
        return row.deal_alerts if row else None


def heart(page: Page, product) -> None:
    page.goto(f"/products?search={product.name}")
    page.get_by_role("button", name=f"Add {product.name} to favorites").click()
    expect(toast(page, "Added to favorites")).to_be_visible()


def test_the_first_favourite_offers_deal_alerts_in_one_tap(page: Page, live_server, shopper, live_product):
    user, _ = shopper()
    first, second = live_product(), live_product()
    sign_in(page, user)
    heart(page, first)
    offer = page.get_by_role("dialog", name="Get deal alerts?")
    expect(offer).to_be_visible()
    offer.get_by_role("button", name="By SMS").click()
    expect(toast(page, "Deal alerts on")).to_be_visible()
    expect(offer).to_have_count(0)
    assert deal_alerts_of(live_server, user) == "sms"
    heart(page, second)  # not the first any more: no second offer
    page.goto("/favorites")  # an offer made would still be open here (it is the server's state)
    expect(page.locator("#deal-alerts-state")).to_have_text("Deal alerts: by SMS.")
    expect(page.get_by_role("dialog", name="Get deal alerts?")).to_have_count(0)


def test_not_now_leaves_them_off_and_the_favourites_page_turns_them_on(page: Page, live_server, shopper,
                                                                       live_product):
    user, _ = shopper(phonenumber="")  # no mobile number: email is the one way offered
    product = live_product()
    sign_in(page, user)
    heart(page, product)
    offer = page.get_by_role("dialog", name="Get deal alerts?")
    expect(offer.get_by_role("button", name="By SMS")).to_have_count(0)
    offer.get_by_role("button", name="Not now").click()
    expect(offer).to_have_count(0)
    assert deal_alerts_of(live_server, user) in (None, "off")
    page.goto("/favorites")
    expect(page.locator("#deal-alerts-state")).to_have_text("Deal alerts are off.")
    page.get_by_role("button", name="By email").click()
    expect(toast(page, "Deal alerts on")).to_be_visible()
    expect(page.locator("#deal-alerts-state")).to_have_text("Deal alerts: by email.")
    assert deal_alerts_of(live_server, user) == "email"


def test_a_guest_is_not_offered_alerts(page: Page, live_product):
    heart(page, live_product())
    expect(page.get_by_role("dialog", name="Get deal alerts?")).to_have_count(0)
