"""Returns and refunds in the browser (issue 33, item 4), at a phone's width: a shopper returns
part of a delivered order from its page, an admin approves, receives and refunds it in the
Returns tab (mobile money through the fake provider, in a background event), and the shopper
sees "Refunded" and opens the credit note.

Screenshots at 390 × 844 of the receipt, the return request, the order's Returns box, the
Returns tab and the credit note go to test-results/screenshots/ (to DD_SHOTS_DIR when set)."""

from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from discount_deals.models import Order, OrderItem, Payment, ReturnRequest, User
from discount_deals.services import returns
from discount_deals.models.base import utcnow
from discount_deals.services.taxes import SPEC_TAX, split_tax
from discount_deals.config.settings import get_settings

from ..conftest import ROOT
from .account_helpers import toast
from .conftest import sign_in, unique

PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("DD_SHOTS_DIR") or ROOT / "test-results" / "screenshots")


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")  # the sticky header where it belongs: at the top
    page.screenshot(path=str(SHOTS / name), full_page=True)


def fits_the_screen(page: Page) -> None:
    """Nothing runs off a 390 px screen sideways."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def delivered_momo_order(live_server, user, lines, phone: str = "+233241234567") -> Order:
    """A delivered order of ``lines`` ((product, quantity), ...) paid by mobile money through the
    fake provider (a test payment), with its receipt, written into the server's database."""
    subtotal = sum((product.price * quantity for product, quantity in lines), Decimal("0.00"))
    tax = (subtotal * SPEC_TAX.rate).quantize(Decimal("0.01"))  # the spec's 8 %, kept as its line
    reference = unique("DD-e2e-ret").replace(" ", "-")
    number = f"DD-2026-{abs(hash(reference)) % 900000 + 100000:06d}"
    with live_server.session() as session:
        now = utcnow()
        order = Order(user_id=user.id, status="delivered", delivered_at=now, item_count=sum(q for _p, q in lines),
                      subtotal=subtotal, tax=tax, tax_lines=[line.as_json() for line in split_tax(tax, SPEC_TAX)],
                      total=subtotal + tax, payment_method="mobile_money", payment_status="paid",
                      payment_network="mtn", payment_phone=phone, payment_reference=reference,
                      payment_test=True, receipt_number=number, receipt_issued_at=now, contact_phone="+233241234567",
                      address={"line1": "1 Oxford Street", "city": "Accra", "country": "Ghana"})
        session.add(order)
        session.flush()
        for product, quantity in lines:
            session.add(OrderItem(order_id=order.id, product_id=product.id, name=product.name,
                                  unit_price=product.price, original_price=product.price, quantity=quantity,
                                  line_total=product.price * quantity))
        session.add(Payment(order_id=order.id, provider="fake", reference=reference, amount=subtotal + tax,
                            currency=get_settings().currency.code, status="success"))
    return order


def admin_page(browser: Browser, live_server, admin) -> Page:
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    page = context.new_page()
    sign_in(page, admin)
    return page


def order_page_shows_its_refund(admin_tab: Page, short: str, title: str, refund: str, total: Decimal,
                                *, opened: bool = False) -> None:
    """The back office's page of the order says what its returns (or its cancellation) gave back:
    each return with its credit note, and the total less the refunds."""
    if not opened:
        admin_tab.goto("/admin?tab=orders")
        admin_tab.get_by_label("Search orders").fill(short)
        admin_tab.get_by_role("button", name=f"View order #{short}").click()
    box = admin_tab.locator(f"section[aria-label='{title}']")
    expect(box.get_by_role("heading", name=title)).to_be_visible()
    expect(box).to_contain_text(f"Refunded: {refund}")
    expect(box.get_by_role("link", name=re.compile(r"Credit note CN-\d{4}-\d{6}"))).to_be_visible()
    totals = admin_tab.locator("dl").filter(has_text="Total after refunds")
    expect(totals).to_contain_text(f"-{refund}")
    expect(totals).to_contain_text(f"${total - Decimal(refund[1:]):.2f}")
    fits_the_screen(admin_tab)
    shot(admin_tab, f"admin-order-{title.lower()}-390.png")


def test_a_shopper_returns_part_of_an_order_and_an_admin_refunds_it(page: Page, browser: Browser, live_server,
                                                                     live_user, live_product):
    shopper, _password = live_user()
    admin, _admin_password = live_user(role="admin")
    milo = live_product(name=unique("Milo 400g tin"), price="12.00", stock=5)
    rice = live_product(name=unique("Jasmine rice 5kg"), price="5.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(milo, 2), (rice, 3)])
    short = order.id[:8]
    page.set_viewport_size(PHONE)
    sign_in(page, shopper)

    # The receipt, printable at a phone's width.
    page.goto(f"/orders/{order.id}/receipt")
    expect(page.get_by_role("heading", name=f"Receipt {order.receipt_number}")).to_be_visible()
    fits_the_screen(page)
    shot(page, "receipt-390.png")

    # The order page: until when returns are open, and "Return items".
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_text(re.compile(r"^Returns open until \d{1,2} \w{3} \d{4}, \d\d:\d\d GMT$"))).to_be_visible()
    page.get_by_role("button", name="Return items").click()
    form = page.get_by_role("form", name="Return items")
    expect(form).to_be_visible()
    form.locator(f"select[name='qty-{milo.id}']").select_option("1")
    form.get_by_label("Why are you returning them?").fill("One tin was dented")
    fits_the_screen(page)
    shot(page, "return-request-390.png")
    form.get_by_role("button", name="Send return request").click()
    expect(toast(page, "Return requested")).to_be_visible()
    returns_box = page.locator("section[aria-label='Returns']")
    expect(returns_box).to_contain_text("Requested")
    expect(returns_box).to_contain_text(f"1 × {milo.name}")
    expect(returns_box).to_contain_text(re.compile(r"Estimated refund: \$\d+\.\d\d"))
    amount = re.search(r"Estimated refund: (\$\d+\.\d\d)", returns_box.inner_text()).group(1)
    expect(page.get_by_role("form", name="Return items")).to_have_count(0)
    fits_the_screen(page)
    shot(page, "order-returns-390.png")

    # The back office's Returns tab: approve, receive, refund (mobile money, the fake provider).
    admin_tab = admin_page(browser, live_server, admin)
    admin_tab.goto("/admin?tab=returns")
    row = admin_tab.locator("li").filter(has_text=f"Order #{short}")
    expect(row).to_contain_text("Requested")
    expect(row).to_contain_text("Reason: One tin was dented")
    expect(row).to_contain_text("Mobile money")
    expect(row).to_contain_text("Test payment")
    fits_the_screen(admin_tab)
    shot(admin_tab, "admin-returns-390.png")
    row.get_by_role("button", name=f"Approve return for order #{short}").click()
    expect(row).to_contain_text("Approved")
    row.get_by_role("button", name=f"Mark received return for order #{short}").click()
    expect(row).to_contain_text("Received")
    row.get_by_role("button", name=f"Refund return for order #{short}").click()
    expect(toast(admin_tab, "Refund made")).to_be_visible()
    expect(row).to_contain_text("Refunded")
    expect(row.get_by_role("link", name=re.compile(r"CN-\d{4}-\d{6}"))).to_be_visible()
    admin_tab.get_by_label("Status").select_option("refunded")
    expect(admin_tab.locator("li").filter(has_text=f"Order #{short}")).to_contain_text("Refunded")
    order_page_shows_its_refund(admin_tab, short, "Returns", amount, order.total)
    admin_tab.context.close()

    # The shopper sees it refunded and opens the credit note.
    page.reload()
    expect(returns_box).to_contain_text("Refunded")
    expect(returns_box).to_contain_text(f"Refunded: {amount}")
    returns_box.get_by_role("link", name=re.compile(r"Credit note CN-")).click()
    page.wait_for_url(re.compile(r"/returns/[^/]+/credit-note$"))
    expect(page.get_by_role("heading", name=re.compile(r"Credit note CN-\d{4}-\d{6}"))).to_be_visible()
    expect(page.get_by_text(f"Corrects receipt {order.receipt_number}")).to_be_visible()
    expect(page.locator("dl[aria-label='Credit note total']")).to_contain_text(amount)
    expect(page.get_by_text(re.compile(r"Refunded by mobile money \(MTN\).*TEST PAYMENT: no money moved"))).to_be_visible()
    fits_the_screen(page)
    shot(page, "credit-note-390.png")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download PDF").click()
    assert re.fullmatch(r"credit-note-CN-\d{4}-\d{6}\.pdf", download.value.suggested_filename)


def test_someone_elses_credit_note_is_not_found(page: Page, live_server, live_user, live_product):
    owner, _password = live_user()
    stranger, _other = live_user()
    milo = live_product(price="12.00", stock=5)
    order = delivered_momo_order(live_server, owner, [(milo, 1)])
    sign_in(page, stranger)
    page.goto(f"/orders/{order.id}")
    expect(page.get_by_role("heading", name="Failed to load order.")).to_be_visible()
    expect(page.get_by_role("button", name="Return items")).to_have_count(0)
    page.goto("/returns/no-such-return/credit-note")
    expect(page.get_by_role("heading", name="Oops! Page not found")).to_be_visible()


def test_a_line_whose_product_was_deleted_goes_back_from_the_order_page(page: Page, live_server, live_user,
                                                                       live_product):
    """The catalogue dropped the product after the sale; the shopper still holds it. Its line is
    offered by its name (the form names it by the order line's id) and the return goes through."""
    shopper, _password = live_user()
    gone = live_product(name=unique("Palm oil 1L"), price="9.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(gone, 2)])
    with live_server.session() as session:
        item = session.exec(select(OrderItem).where(OrderItem.order_id == order.id)).one()
        item_id = item.id
        item.product_id = None  # as deleting the product leaves its lines (ON DELETE SET NULL)
        session.add(item)
    page.set_viewport_size(PHONE)
    sign_in(page, shopper)
    page.goto(f"/orders/{order.id}")
    page.get_by_role("button", name="Return items").click()
    form = page.get_by_role("form", name="Return items")
    expect(form).to_contain_text(gone.name)
    form.locator(f"select[name='qty-{item_id}']").select_option("2")
    form.get_by_label("Why are you returning them?").fill("Leaking")
    form.get_by_role("button", name="Send return request").click()
    expect(toast(page, "Return requested")).to_be_visible()
    expect(page.locator("section[aria-label='Returns']")).to_contain_text(f"2 × {gone.name}")


def test_a_cancelled_paid_order_is_refunded_from_its_page_with_a_credit_note(page: Page, browser: Browser,
                                                                               live_server, live_user, live_product):
    """The back office's "Refund GH₵…" on a cancelled, paid order sends the money (the fake
    provider) and issues a credit note, which the shopper then opens from the order's page."""
    shopper, _password = live_user()
    admin, _admin_password = live_user(role="admin")
    milo = live_product(name=unique("Milo 400g tin"), price="12.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(milo, 2)])
    with live_server.session() as session:  # cancelled after it was paid: its money is owed back
        row = session.get(Order, order.id)
        row.status, row.delivered_at = "cancelled", None
        row.attention, row.attention_note = "refund_due", "The order was cancelled after money was received."
        session.add(row)
    short = order.id[:8]
    back_office = admin_page(browser, live_server, admin)
    back_office.goto("/admin?tab=orders")
    back_office.get_by_label("Search orders").fill(short)
    back_office.get_by_role("button", name=f"View order #{short}").click()
    refund_button = back_office.get_by_role("button", name=re.compile(r"^Refund \$25\.92$"))
    expect(refund_button).to_be_visible()
    fits_the_screen(back_office)
    shot(back_office, "admin-cancelled-refund-390.png")
    refund_button.click()
    expect(toast(back_office, "Refund recorded")).to_be_visible()
    expect(refund_button).to_have_count(0)
    order_page_shows_its_refund(back_office, short, "Refund", "$25.92", Decimal("25.92"), opened=True)
    back_office.context.close()

    page.set_viewport_size(PHONE)
    sign_in(page, shopper)
    page.goto(f"/orders/{order.id}")
    returns_box = page.locator("section[aria-label='Refund']")  # a cancelled order's: no "Returns"
    expect(returns_box.get_by_role("heading", name="Refund")).to_be_visible()
    expect(returns_box).to_contain_text("Refunded: $25.92")
    returns_box.get_by_role("link", name=re.compile(r"Credit note CN-")).click()
    expect(page.get_by_role("heading", name=re.compile(r"Credit note CN-\d{4}-\d{6}"))).to_be_visible()
    expect(page.get_by_text(f"Corrects receipt {order.receipt_number}")).to_be_visible()
    expect(page.get_by_text("Reason for the refund: The order was cancelled after it was paid.")).to_be_visible()
    expect(page.locator("dl[aria-label='Credit note total']")).to_contain_text("$25.92")
    shot(page, "cancelled-refund-credit-note-390.png")


def test_a_refund_the_provider_refuses_is_paid_in_cash_from_the_returns_tab(browser: Browser, live_server, live_user,
                                                                           live_product):
    """A wallet that takes no refunds (the fake provider's 024 123 9999): the mobile-money refund
    is refused, and "Refund in cash" beside the retry settles the return with a credit note."""
    shopper, _password = live_user()
    admin, _admin_password = live_user(role="admin")
    sardines = live_product(name=unique("Sardines tin"), price="12.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(sardines, 2)], phone="+233241239999")
    with live_server.session() as session:
        ret = returns.request_return(session, session.get(User, shopper.id), order.id,
                                     [{"product_id": sardines.id, "quantity": 1}], "The tin was dented").ret
        returns.approve(session, session.get(User, admin.id), ret.id)
        returns.receive(session, session.get(User, admin.id), ret.id)
    short = order.id[:8]
    back_office = admin_page(browser, live_server, admin)
    back_office.goto("/admin?tab=returns")
    row = back_office.locator("li").filter(has_text=f"Order #{short}")
    row.get_by_role("button", name=f"Refund return for order #{short}").click()
    expect(toast(back_office, "Refund not made")).to_be_visible()
    expect(row).to_contain_text("cannot receive refunds")
    row.get_by_role("button", name=f"Refund in cash return for order #{short}").click()
    expect(toast(back_office, "Refunded in cash")).to_be_visible()
    expect(row).to_contain_text("Refunded")
    expect(row.get_by_role("button", name=re.compile("Refund"))).to_have_count(0)
    expect(row.get_by_role("link", name=re.compile(r"CN-\d{4}-\d{6}"))).to_be_visible()
    fits_the_screen(back_office)
    shot(back_office, "admin-refund-in-cash-390.png")
    with live_server.session() as session:
        settled = session.get(ReturnRequest, ret.id)
        assert (settled.status, settled.refund_method, settled.refund_amount) == ("refunded", "cash", Decimal("12.96"))
        assert session.get(Order, order.id).refunded_total == Decimal("12.96")
    back_office.context.close()


def test_a_shopper_withdraws_a_return_request_from_the_order_page(page: Page, live_server, live_user, live_product):
    """There was no way to take a request back: an admin had to reject it ("not approved")."""
    shopper, _password = live_user()
    gari = live_product(name=unique("Gari 1kg bag"), price="6.00", stock=5)
    order = delivered_momo_order(live_server, shopper, [(gari, 2)])
    with live_server.session() as session:
        ret = returns.request_return(session, session.get(User, shopper.id), order.id,
                                     [{"product_id": gari.id, "quantity": 1}], "Ordered one too many").ret
    page.set_viewport_size(PHONE)
    sign_in(page, shopper)
    page.goto(f"/orders/{order.id}")
    box = page.locator("section[aria-label='Returns']")
    expect(box).to_contain_text("Requested")
    box.get_by_role("button", name=re.compile("^Withdraw the return of ")).click()
    expect(toast(page, "Return withdrawn")).to_be_visible()
    expect(box).to_contain_text("Withdrawn")
    expect(box.get_by_role("button", name=re.compile("^Withdraw"))).to_have_count(0)
    expect(page.get_by_role("button", name="Return items")).to_be_visible()  # its items may be asked for again
    with live_server.session() as session:
        assert session.get(ReturnRequest, ret.id).status == "withdrawn"
