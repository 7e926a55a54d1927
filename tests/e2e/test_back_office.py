"""Issue 16's back office in Chromium: the Activity tab (the audit trail), the Coupons tab, the
product list's deal windows, status filter and one-step restock, and the CSV exports.

Each test signs in a fresh admin and checks the screen's texts and the server's database.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import AuditEvent, Coupon, Order, PickupStore, Product
from discount_deals.services.orders import status as lifecycle

from .account_helpers import insert_order
from .conftest import sign_in, unique
from .test_admin import choose_tab, open_admin, toast


def events_for(live_server, target_id: str) -> list[AuditEvent]:
    with live_server.session() as session:
        return list(session.exec(select(AuditEvent).where(AuditEvent.target_id == target_id)).all())


# --- Activity --------------------------------------------------------------------------------------


def test_activity_shows_who_changed_what_filters_and_links_to_the_target(page: Page, live_user, live_server,
                                                                          live_product, e2e_category):
    product = live_product(price="12.50")
    admin = open_admin(page, live_user, "Products")
    page.get_by_label("Search products").fill(product.name)
    row = page.get_by_role("list", name="Products").get_by_role("listitem").filter(has_text=product.name)
    row.get_by_role("button", name=f"Edit {product.name}").click()
    expect(page.get_by_label("Name", exact=True)).to_have_value(product.name)
    page.get_by_label("Price", exact=True).fill("14.00")
    page.get_by_role("button", name="Update Product").click()
    expect(toast(page, "Product updated")).to_be_visible()
    [event] = events_for(live_server, product.id)
    assert (event.action, event.actor_id, event.changes["price"]) == ("product.update", admin.id, ["12.50", "14.00"])

    choose_tab(page, "Activity")
    expect(page.get_by_role("heading", name="Activity")).to_be_visible()
    page.get_by_label("Who (email)").fill(admin.email)
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_text("1 event", exact=True)).to_be_visible()
    entry = page.get_by_role("list", name="Activity events").get_by_role("listitem").first
    expect(entry.get_by_text("Product updated", exact=True)).to_be_visible()
    expect(entry.get_by_text(f"By {admin.email}", exact=False)).to_be_visible()
    expect(entry.get_by_role("list", name="Changes")).to_contain_text("Price: 12.50 → 14.00")

    # Another action filter hides it; clearing the filters shows everything again.
    page.get_by_label("Action").select_option("coupon.create")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_text("No activity matches these filters")).to_be_visible()
    page.get_by_role("button", name="Clear filters").click()
    expect(page.get_by_label("Who (email)")).to_have_value("")
    expect(page.get_by_role("list", name="Activity events").get_by_role("link", name=product.name).first).to_be_visible()

    # The event links to the product: the Products tab, searched for it.
    page.get_by_label("Who (email)").fill(admin.email)
    page.get_by_role("button", name="Apply filters").click()
    expect(page.get_by_text("1 event", exact=True)).to_be_visible()
    page.get_by_role("list", name="Activity events").get_by_role("link", name=product.name).click()
    expect(page).to_have_url(re.compile(r"/admin\?tab=products&q="))
    expect(page.get_by_role("tab", name="Products", exact=True)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_label("Search products")).to_have_value(product.name)
    expect(page.get_by_role("heading", name="Products (1)")).to_be_visible()


def test_activity_is_refused_to_customers(page: Page, live_user):
    from .conftest import sign_in

    customer, _ = live_user()
    sign_in(page, customer)
    page.goto("/admin?tab=activity")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", name="Activity")).to_have_count(0)


# --- Coupons ---------------------------------------------------------------------------------------


def coupon_named(live_server, code: str) -> Coupon | None:
    with live_server.session() as session:
        return session.exec(select(Coupon).where(Coupon.code == code)).first()


def test_create_list_and_deactivate_a_coupon(page: Page, live_user, live_server):
    admin = open_admin(page, live_user, "Coupons")
    code = unique("E2E").replace(" ", "").replace("-", "_").upper()
    expect(page.get_by_role("heading", name="Create Coupon")).to_be_visible()

    # A refusal is shown per field and nothing is stored.
    page.get_by_label("Code").fill(code)
    page.get_by_label("Value").fill("150")
    page.get_by_role("button", name="Create Coupon").click()
    expect(toast(page, "value: Percentage must be above 0 and at most 100.")).to_be_visible()
    assert coupon_named(live_server, code) is None

    expires = (datetime.now(UTC) + timedelta(days=30)).date()
    page.get_by_label("Code").fill(code.lower())
    page.get_by_label("Type").select_option("fixed")
    page.get_by_label("Value").fill("5")
    page.get_by_label("Expires on").fill(expires.isoformat())
    page.get_by_label("Usage limit").fill("50")
    page.get_by_label("Minimum basket").fill("25")
    page.get_by_role("button", name="Create Coupon").click()
    expect(toast(page, "Coupon created")).to_be_visible()
    expect(toast(page, f"{code} is ready to use.")).to_be_visible()
    expect(page.get_by_label("Code")).to_have_value("")  # the form is cleared

    stored = coupon_named(live_server, code)
    assert stored is not None
    assert (stored.kind, stored.value, stored.usage_limit, stored.min_subtotal, stored.active) == (
        "fixed", Decimal("5.00"), 50, Decimal("25.00"), True)
    assert stored.expires_at.date() == expires + timedelta(days=1)

    page.get_by_label("Search coupons").fill(code)
    row = page.get_by_role("list", name="Coupons").get_by_role("listitem").filter(has_text=code)
    expect(row).to_have_count(1)
    expect(row.get_by_text("$5.00 off", exact=True)).to_be_visible()
    expect(row.get_by_text("Active", exact=True)).to_be_visible()
    expect(row).to_contain_text("Used 0 of 50 · Minimum basket $25.00")

    row.get_by_role("button", name=f"Deactivate {code}").click()
    expect(toast(page, "Coupon deactivated")).to_be_visible()
    expect(row.get_by_text("Deactivated", exact=True)).to_be_visible()
    assert coupon_named(live_server, code).active is False
    page.get_by_label("Show").select_option("active")
    expect(page.get_by_text("No coupons found")).to_be_visible()
    page.get_by_label("Show").select_option("inactive")
    row.get_by_role("button", name=f"Reactivate {code}").click()
    expect(toast(page, "Coupon reactivated")).to_be_visible()
    assert coupon_named(live_server, code).active is True

    actions = [e.action for e in events_for(live_server, stored.id)]
    assert sorted(actions) == ["coupon.activate", "coupon.create", "coupon.deactivate"]
    assert all(e.actor_id == admin.id for e in events_for(live_server, stored.id))


# --- products: deal windows, status filter, restock, export ------------------------------------------


def test_deal_windows_status_filter_and_one_step_restock(page: Page, live_user, live_server, live_product):
    now = datetime.now(UTC)
    scheduled = live_product(unique("Deal Soon"), price="10.00", discount_price="6.00",
                             discount_start=now + timedelta(days=2))
    expired = live_product(unique("Deal Over"), price="10.00", discount_price="6.00",
                           discount_end=now - timedelta(days=1))
    low = live_product(unique("Nearly Gone"), stock=2)
    open_admin(page, live_user, "Products")
    products = page.get_by_role("list", name="Products")

    page.get_by_label("Search products").fill(scheduled.name)
    expect(products.get_by_role("listitem").filter(has_text=scheduled.name).get_by_text(
        re.compile(r"^Scheduled: starts "))).to_be_visible()
    page.get_by_label("Search products").fill(expired.name)
    expect(products.get_by_role("listitem").filter(has_text=expired.name).get_by_text(
        re.compile(r"^Expired: ended "))).to_be_visible()

    page.get_by_label("Search products").fill("")
    page.get_by_label("Show").select_option("low_stock")
    row = products.get_by_role("listitem").filter(has_text=low.name)
    expect(row.get_by_text("2 in stock", exact=True)).to_be_visible()
    row.get_by_label(f"Units to add to {low.name}").fill("18")
    row.get_by_role("button", name=f"Restock ({low.name})").click()
    expect(toast(page, f"{low.name} now has 20 in stock.")).to_be_visible()
    with live_server.session() as session:
        assert session.get(Product, low.id).stock == 20
    expect(products.get_by_role("listitem").filter(has_text=low.name)).to_have_count(0)  # no longer low
    [event] = events_for(live_server, low.id)
    assert (event.action, event.changes) == ("product.restock", {"stock": [2, 20]})


def downloaded(page: Page, button: str, tmp_path) -> tuple[str, str]:
    """What pressing ``button`` downloads: its file name and its text."""
    with page.expect_download() as info:
        page.get_by_role("button", name=button).click()
    info.value.save_as(tmp_path / "download.csv")
    return info.value.suggested_filename, (tmp_path / "download.csv").read_text()


def test_the_products_export_downloads_a_csv(page: Page, live_user, live_product, tmp_path):
    product = live_product(unique("=Exported"))
    open_admin(page, live_user, "Products")
    filename, text = downloaded(page, "Export CSV", tmp_path)
    assert re.fullmatch(r"products-\d{4}-\d{2}-\d{2}\.csv", filename)
    assert text.splitlines()[0].startswith("name,description,brand,price,discount_price")
    assert f"'{product.name}," in text  # formula-like names are escaped


def test_the_register_of_receipts_and_credit_notes_downloads_from_the_orders_tab(page: Page, live_user, tmp_path):
    open_admin(page, live_user, "Orders")
    filename, text = downloaded(page, "Receipts & credit notes", tmp_path)
    assert re.fullmatch(r"documents-\d{4}-\d{2}-\d{2}\.csv", filename)
    assert text.splitlines()[0].startswith("number,kind,issued_at,corrects,order_id")


def test_hiding_a_store_flags_the_orders_still_to_collect_there(page: Page, live_user, live_server):
    """A store closed with an order still to collect: the toast says so, the order is flagged
    "Pickup store changed", and "Mark resolved" clears the flag once the customer is sorted."""
    admin, _password = live_user(role="admin")
    shopper, _ = live_user()
    name = unique("Melcom Spintex")
    with live_server.session() as session:
        store = PickupStore(name=name, retailer="melcom", address="Spintex Road", city="Accra")
        session.add(store)
        session.flush()
        order = insert_order(session, shopper, status="processing", delivery_method="pickup", pickup_store_id=store.id,
                             pickup_store={"name": name, "address": "Spintex Road", "city": "Accra"})
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, admin)
    page.goto("/admin?tab=stores")
    listed = page.get_by_role("list", name="Pickup stores").get_by_role("listitem").filter(has_text=name)
    listed.get_by_role("button", name=f"Hide {name}").click()
    expect(toast(page, "Store hidden from checkout")).to_contain_text("1 order still to collect there is flagged in Orders.")
    page.goto(f"/admin?tab=orders&q={order.id[:8]}")
    page.get_by_role("button", name=f"View order #{order.id[:8]}").click()
    flag = page.get_by_role("alert").filter(has_text="Pickup store changed")
    expect(flag).to_contain_text(f"{name} was closed (hidden from checkout) before this order was collected")
    flag.get_by_role("button", name="Mark resolved").click()
    expect(toast(page, "Flag resolved")).to_be_visible()
    expect(page.get_by_role("alert").filter(has_text="Pickup store changed")).to_have_count(0)
    with live_server.session() as session:
        assert session.get(Order, order.id).attention is None


def test_a_phones_back_closes_an_order_opened_in_the_back_office(page: Page, live_user, live_server):
    """Probe 78: Back on a phone with an order open left the back office (to the storefront, or
    to the login form) instead of going back to the list; Forward opens the order again."""
    admin, _password = live_user(role="admin")
    shopper, _ = live_user()
    with live_server.session() as session:
        order = insert_order(session, shopper)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, admin)
    page.goto("/products")
    page.goto(f"/admin?tab=orders&q={order.id[:8]}")
    page.get_by_role("button", name=f"View order #{order.id[:8]}").click()
    heading = page.get_by_role("heading", name=f"Order #{order.id[:8]}")
    expect(heading).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/admin\?tab=orders&open={order.id}$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/admin\?tab=orders&q="))
    expect(page.get_by_role("list", name="Orders")).to_be_visible()
    expect(heading).to_have_count(0)
    page.go_forward()
    expect(heading).to_be_visible()
    page.reload()  # the address names the order: a reload (or a shared link) opens it
    expect(heading).to_be_visible()
    page.get_by_role("button", name="Back to orders").click()
    expect(page.get_by_role("list", name="Orders")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/admin\?tab=orders$"))


def test_a_payment_that_came_in_after_the_order_was_opened_stops_its_cancel(page: Page, live_user, live_server):
    """Probe: the back office showed a mobile-money order "Awaiting payment"; the customer paid;
    "Cancel order" on the unchanged page cancelled an order its customer had just paid (a refund
    due). The cancel is refused in the app's words, and the page now shows it paid."""
    admin, _password = live_user(role="admin")
    shopper, _ = live_user()
    with live_server.session() as session:
        order = insert_order(session, shopper, payment_method="mobile_money", payment_status="awaiting_payment")
    sign_in(page, admin)
    page.goto(f"/admin?tab=orders&q={order.id[:8]}")
    page.get_by_role("button", name=f"View order #{order.id[:8]}").click()
    main = page.locator("#main")
    expect(main.get_by_role("heading", name=f"Order #{order.id[:8]}")).to_be_visible()
    expect(main.get_by_text("Awaiting payment", exact=True)).to_be_visible()
    with live_server.session() as session:  # the customer's MoMo payment comes in
        lifecycle.set_payment_status(session, session.get(Order, order.id), "paid", label="payment provider")

    page.get_by_role("button", name="Cancel order").click()
    page.get_by_role("button", name="Confirm: cancel order").click()
    expect(toast(page, "Could not update the order")).to_contain_text(
        "The order was changed meanwhile. Reload it and try again.")
    expect(main.get_by_text("Paid", exact=True)).to_be_visible()
    expect(main.get_by_text("Awaiting payment", exact=True)).to_have_count(0)
    expect(main.get_by_text("Pending", exact=True)).to_be_visible()
    with live_server.session() as session:
        row = session.get(Order, order.id)
        assert (row.status, row.payment_status, row.attention) == ("pending", "paid", None)
