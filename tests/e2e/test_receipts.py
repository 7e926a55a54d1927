"""The printable receipt (issue 33, item 3) at a phone's width: linked from the order page once
the money is in, with each tax, "Print" and "Download PDF"; before that, "No receipt yet".
Written with the feature; run by the lead engineer with the browser suite."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from playwright.sync_api import Page, expect

from discount_deals.services.taxes import TAX_PARTS, TaxRule, split_tax

from ..conftest import ROOT
from .account_helpers import insert_order
from .conftest import sign_in

SCREENSHOTS = ROOT / "test-results" / "screenshots"


def paid_order(live_server, user, number: str | None):
    with live_server.session() as session:
        order = insert_order(session, user, total="12.00", lines=(("Milo 400g", 1, "10.00"),))
        order.subtotal, order.tax = Decimal("10.00"), Decimal("2.00")
        order.tax_lines = [line.as_json() for line in split_tax(Decimal("2.00"), TaxRule(TAX_PARTS["ghana"]))]
        if number:
            order.payment_status, order.receipt_number = "paid", number
            order.receipt_issued_at = datetime(2026, 11, 27, 9, 5, tzinfo=UTC)
        session.add(order)
    return order


def test_the_order_page_links_its_receipt_which_prints(page: Page, live_server, live_user):
    user, _password = live_user()
    order = paid_order(live_server, user, "DD-2026-900001")
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, user)
    page.goto(f"/orders/{order.id}")
    page.get_by_role("link", name="View receipt DD-2026-900001").click()
    page.wait_for_url(f"**/orders/{order.id}/receipt")
    expect(page.get_by_role("heading", name="Receipt DD-2026-900001")).to_be_visible()
    expect(page.get_by_text("27 Nov 2026, 09:05 GMT")).to_be_visible()
    totals = page.locator("dl[aria-label='Receipt total']")
    expect(totals).to_contain_text("VAT (15%)$1.50")
    expect(totals).to_contain_text("GETFund levy (2.5%)$0.25")
    expect(page.get_by_role("button", name="Print")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "receipt-390.png"), full_page=True)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download PDF").click()
    assert download.value.suggested_filename == "receipt-DD-2026-900001.pdf"
    # On paper the controls disappear.
    page.emulate_media(media="print")
    expect(page.get_by_role("button", name="Print")).to_be_hidden()


def test_an_unpaid_order_has_no_receipt_yet(page: Page, live_server, live_user):
    user, _password = live_user()
    order = paid_order(live_server, user, None)
    sign_in(page, user)
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_role("heading", name=f"Order #{order.id[:8]}")).to_be_visible()
    expect(page.get_by_role("link", name="View receipt")).to_have_count(0)
    page.goto(f"/orders/{order.id}/receipt")
    expect(page.get_by_role("heading", name="No receipt yet")).to_be_visible()
