"""What the back office's new screens show, computed from the rows (no browser needed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace

from discount_deals.models import AuditEvent, Coupon
from discount_deals.state.admin.activity import activity_row, change_lines, target_href
from discount_deals.state.admin.product_form import deal_text, restock_fields
from discount_deals.state.admin.coupons import coupon_payload, coupon_row

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
END = datetime(2026, 12, 8, 18, 30, tzinfo=UTC)


def product(**fields):
    values = {"price": Decimal("10.00"), "discount_price": Decimal("7.00"), "discount_start": START,
              "discount_end": END}
    return SimpleNamespace(**{**values, **fields})


def test_deal_text_names_the_window():
    assert deal_text(product(), START - timedelta(seconds=1)) == ("scheduled", "Scheduled: starts 1 Dec 2026 09:00 GMT")
    assert deal_text(product(), START) == ("active", "Deal on until 8 Dec 2026 18:30 GMT")
    assert deal_text(product(discount_end=None), START) == ("active", "Deal on since 1 Dec 2026 09:00 GMT")
    assert deal_text(product(discount_start=None, discount_end=None), START) == ("", "")
    assert deal_text(product(), END) == ("expired", "Expired: ended 8 Dec 2026 18:30 GMT")
    assert deal_text(product(discount_price=None), START) == ("", "")


def test_restock_fields_from_the_row_form():
    assert restock_fields({"product_id": "p1", "units": " 12 "}) == ("p1", "12")
    assert restock_fields({"product_id": ["x"], "units": 3}) == ("", "")


def test_change_lines():
    lines = change_lines({
        "price": ["12.50", "14.00"],
        "name": [None, "Rice"],
        "stock": [4, None],
        "tags": [[], ["a", "b"]],
        "is_featured": [False, True],
        "description": ["", "x" * 200],
    })
    assert lines[:5] == ["Price: 12.50 → 14.00", "Name: Rice", "Stock: 4 (removed)", "Tags: (none) → a, b",
                         "Featured: no → yes"]
    assert lines[5].startswith("Description: (blank) → xxx") and lines[5].endswith("…")
    many = change_lines({f"f{n}": [n, n + 1] for n in range(20)})
    assert len(many) == 13 and many[-1] == "… and 8 more"


def test_activity_rows_link_to_their_target():
    def event(**fields):
        values = {"id": "e1", "actor_id": None, "actor_label": "ama@example.com", "action": "product.update",
                  "target_type": "product", "target_id": "p1", "target_label": "Rice & Beans", "changes": {},
                  "created_at": START}
        return AuditEvent(**{**values, **fields})

    assert target_href(event()) == "/admin?tab=products&q=Rice+%26+Beans"
    assert target_href(event(target_type="order", target_id="abcdef12-3456", target_label="Order #abcdef12")) == (
        "/admin?tab=orders&q=abcdef12")
    assert target_href(event(target_type="category")) == "/admin?tab=categories"
    assert target_href(event(target_type="product", target_id=None, target_label="5 products")) == (
        "/admin?tab=products")
    row = activity_row(event(changes={"price": ["1.00", "2.00"]}))
    assert (row.action_label, row.target_type, row.when) == ("Product updated", "Product", "1 Dec 2026, 09:00:00 GMT")
    assert row.changes == ["Price: 1.00 → 2.00"]


def test_change_lines_say_ids_times_codes_and_addresses_in_words():
    """The Activity tab showed what was stored: whole ids, ISO times, "ready_for_pickup", and an
    address as a Python dict."""
    lines = change_lines({
        "category_id": ["3f2a1b2c-1111-2222-3333-444455556666", "9e8d7c6b-1111-2222-3333-444455556666"],
        "status": ["processing", "ready_for_pickup"],
        "address": [None, {"line1": "1 Oxford St", "line2": "", "city": "Accra", "country": "Ghana"}],
        "discount_end": [None, "2026-12-01T09:00:00+00:00"],
        "email": [None, "ama_b@example.com"],
        "related_products": [[], ["3f2a1b2c-1111-2222-3333-444455556666"]],
    })
    assert lines == ["Category: #3f2a1b2c → #9e8d7c6b", "Status: processing → ready for pickup",
                     "Address: 1 Oxford St, Accra, Ghana", "Discount end: 1 Dec 2026, 09:00 GMT",
                     "Email: ama_b@example.com", "Related products: (none) → #3f2a1b2c"]


def test_coupon_rows_and_form():
    now = datetime.now(UTC)
    percent = Coupon(id="c1", code="TEN", kind="percent", value=Decimal("12.50"), active=True, used_count=3,
                     usage_limit=10, expires_at=now + timedelta(days=1), min_subtotal=Decimal("20.00"))
    row = coupon_row(percent)
    assert (row.effect, row.status_text, row.usage_text, row.minimum_text) == (
        "12.5% off", "Active", "Used 3 of 10", "Minimum basket $20.00")
    assert row.expires_text.startswith("Valid until ")
    fixed = Coupon(id="c2", code="FIVE", kind="fixed", value=Decimal("5.00"), active=False, used_count=1,
                   usage_limit=None, expires_at=None, min_subtotal=None)
    row = coupon_row(fixed)
    assert (row.effect, row.status, row.status_text, row.usage_text, row.minimum_text, row.expires_text) == (
        "$5.00 off", "inactive", "Deactivated", "Used 1 time, no limit", "Any basket", "No expiry")
    used_up = Coupon(id="c3", code="GONE", kind="fixed", value=Decimal("1"), active=True, used_count=2, usage_limit=2)
    assert coupon_row(used_up).status_text == "Used up"
    assert coupon_payload({"coupon_code": " ten ", "coupon_kind": "fixed", "coupon_value": "5", "coupon_expires": "",
                           "coupon_usage_limit": "", "coupon_min_subtotal": " 20 "}) == {
        "code": "ten", "kind": "fixed", "value": "5", "expires_at": None, "usage_limit": None, "min_subtotal": "20"}
