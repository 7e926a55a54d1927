"""Messages in the browser, against the production server and its message worker (which sends to
a real SMTP server the tests read): forgot password by email end to end, the profile's message
preferences (cart reminders among them), and the back office's Notifications tab with a resend."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import NotificationPreference, OutboxMessage

from ..support.mail import text_of
from .account_helpers import login_form, toast
from .conftest import sign_in


def _mail_to(live_mail, address: str, count: int = 1, timeout: float = 30):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = live_mail.mailbox.to(address)
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"no email to {address} within {timeout} s")


def test_forgot_password_by_email_end_to_end(page: Page, live_user, live_mail):
    # A customer without a phone number: their messages go by email (with one, SMS first).
    user, _password = live_user(phonenumber="")
    page.goto("/login")
    page.get_by_role("link", name="Forgot password?").click()
    expect(page.get_by_role("heading", name="Reset your password")).to_be_visible()
    page.get_by_label("Email", exact=True).fill(user.email)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("If an account matches")
    [mail] = _mail_to(live_mail, user.email)
    link = re.search(r"https?://\S+/reset-password\?token=\S+", text_of(mail)).group(0)
    page.goto("/reset-password" + link.split("/reset-password", 1)[1])  # the mail's link, on this server
    expect(page.get_by_text("Choose a new password.")).to_be_visible()
    page.get_by_label("New password", exact=True).fill("brand-new-1")
    page.get_by_label("New password again").fill("brand-new-1")
    page.get_by_role("button", name="Set new password").click()
    expect(page.get_by_role("status")).to_contain_text("Your password has been reset")
    page.get_by_role("link", name="Go to login").click()
    login_form(page, user.email, "brand-new-1")
    expect(toast(page, "Welcome back!")).to_be_visible()
    # The "password changed" notice follows.
    assert "Your password was changed" in _mail_to(live_mail, user.email, 2)[-1]["Subject"]


def test_profile_message_preferences(page: Page, shopper, live_server):
    user, _password = shopper()
    sign_in(page, user)
    page.goto("/profile")
    form = page.get_by_role("form", name="Message preferences")
    expect(form.get_by_text("Texts go to 024 123 4567.")).to_be_visible()
    expect(form.get_by_label("Order updates")).to_have_value("sms")
    form.get_by_label("Deal alerts").select_option("email")
    form.get_by_label("Order updates").select_option("both")
    form.get_by_role("button", name="Save Preferences").click()
    expect(toast(page, "Preferences saved")).to_be_visible()
    with live_server.session() as session:
        row = session.get(NotificationPreference, user.id)
        assert (row.order_updates, row.deal_alerts) == ("both", "email")
    page.reload()
    expect(page.get_by_role("form", name="Message preferences").get_by_label("Deal alerts")).to_have_value("email")


def test_profile_turns_cart_reminders_off_and_on(page: Page, shopper, live_server):
    # Written for issue 34 item 3; the lead engineer runs the browser suite.
    user, _password = shopper()
    sign_in(page, user)
    page.goto("/profile")
    form = page.get_by_role("form", name="Message preferences")
    reminders = form.get_by_label("Remind me about my cart")
    expect(reminders).to_be_checked()  # on by default
    reminders.uncheck()
    form.get_by_role("button", name="Save Preferences").click()
    expect(toast(page, "Preferences saved")).to_be_visible()
    with live_server.session() as session:
        assert session.get(NotificationPreference, user.id).cart_reminders is False
    page.reload()
    reminders = page.get_by_role("form", name="Message preferences").get_by_label("Remind me about my cart")
    expect(reminders).not_to_be_checked()
    reminders.check()
    page.get_by_role("form", name="Message preferences").get_by_role("button", name="Save Preferences").click()
    expect(toast(page, "Preferences saved")).to_be_visible()
    with live_server.session() as session:
        assert session.get(NotificationPreference, user.id).cart_reminders is True


def test_a_profile_save_keeps_a_deal_email_unsubscribe(page: Page, shopper, live_server):
    """An SMS fan unsubscribed from the day's deal emails by their link; saving the profile for
    another reason (cart reminders) sent "SMS" back, which brought the emails back."""
    user, _password = shopper()
    with live_server.session() as session:  # what the deal email's unsubscribe link leaves
        session.add(NotificationPreference(user_id=user.id, deal_alerts="sms", deal_emails=False))
    sign_in(page, user)
    page.goto("/profile")
    form = page.get_by_role("form", name="Message preferences")
    further = form.get_by_label("After the day's deal text, the rest to my inbox")
    expect(further).not_to_be_checked()
    form.get_by_label("Remind me about my cart").uncheck()
    form.get_by_role("button", name="Save Preferences").click()
    expect(toast(page, "Preferences saved")).to_be_visible()
    with live_server.session() as session:
        row = session.get(NotificationPreference, user.id)
        assert (row.deal_alerts, row.deal_emails, row.cart_reminders) == ("sms", False, False)
    page.reload()  # the form as the saved choices fill it (the save re-renders it)
    expect(further).not_to_be_checked()
    further.check()
    form.get_by_role("button", name="Save Preferences").click()
    expect(toast(page, "Preferences saved")).to_be_visible()
    with live_server.session() as session:
        assert session.get(NotificationPreference, user.id).deal_emails is True


def test_the_notifications_tab_resends_a_dead_message(page: Page, live_user, live_server, live_mail):
    admin, _password = live_user(role="admin")
    with live_server.session() as session:
        dead = OutboxMessage(channel="email", kind="order_shipped", recipient="kwame.e2e@example.com",
                             subject="Discount Deals: Order #abcd1234 on its way", body_text="Your order is on its way.",
                             status="dead", attempts=6, last_error="SMTP 451: try later")
        session.add(dead)
    sign_in(page, admin)
    page.goto("/admin?tab=notifications")
    page.get_by_label("Status").select_option("dead")
    row = page.get_by_role("listitem").filter(has_text="kwame.e2e@example.com")
    expect(row).to_contain_text("SMTP 451: try later")
    row.get_by_role("button", name="Show text").click()
    expect(row).to_contain_text("Your order is on its way.")
    row.get_by_role("button", name="Send again to kwame.e2e@example.com").click()
    expect(toast(page, "Message queued again")).to_be_visible()
    _mail_to(live_mail, "kwame.e2e@example.com")
    with live_server.session() as session:
        assert session.exec(select(OutboxMessage.status).where(OutboxMessage.id == dead.id)).one() == "sent"
