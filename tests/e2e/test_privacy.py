"""Issue 32, item 16: the footer's legal links lead to real pages; a customer downloads their data
and closes their account from the profile (orders kept, anonymised)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from discount_deals.models import User

from .account_helpers import toast
from .conftest import sign_in


def test_the_footer_links_to_the_legal_pages(page: Page):
    page.goto("/")
    footer = page.locator("footer")
    for name, path, words in (("Privacy Policy", "/privacy", "Data Protection Act, 2012 (Act 843)"),
                              ("Terms of Service", "/terms", "Free returns within 30 days"),
                              ("Cookie Policy", "/cookies", "no advertising or tracking cookies")):
        footer.get_by_role("link", name=name).click()
        expect(page).to_have_url(re.compile(path + "$"))
        expect(page.get_by_role("heading", level=1, name=name)).to_be_visible()
        expect(page.locator("main")).to_contain_text(words)
    page.goto("/privacy")
    for heading in ("What we keep", "Why we keep it", "How long", "Contact"):
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()


def test_a_customer_downloads_their_data_and_closes_the_account(page: Page, live_user, live_server):
    user, password = live_user()
    sign_in(page, user)
    page.goto("/profile?tab=data")
    expect(page.get_by_role("tab", name="Your data")).to_have_attribute("aria-selected", "true")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my data").click()
    data = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert data["account"]["email"] == user.email and data["orders"] == []

    form = page.get_by_role("form", name="Close my account")
    form.get_by_label("Your password").fill("not-my-password")
    form.get_by_role("button", name="Close my account").click()
    expect(form.get_by_role("alert")).to_have_text("Your password is not correct.")
    form.get_by_label("Your password").fill(password)
    form.get_by_role("button", name="Close my account").click()
    expect(toast(page, "Account closed")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("header")).not_to_contain_text(user.first_name)
    assert page.evaluate("() => localStorage.getItem('accessToken')") is None
    with live_server.session() as session:
        row = session.get(User, user.id)
        assert (row.is_active, row.first_name) == (False, "") and row.email.endswith("@deleted.invalid")
