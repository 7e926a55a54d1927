"""The admin product form's translation into service fields (SPEC §5 "Admin product form")."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from discount_deals.models import Product
from discount_deals.services.catalog import comma_list
from discount_deals.state.admin.product_form import (
    NO_CATEGORY,
    form_values,
    parse_stock_text,
    product_payload,
)

FILLED = {
    "product_name": "  Kettle ",
    "product_price": "20",
    "product_category": "cat-1",
    "product_description": "1.7 litres",
    "product_brand": "melcom",
    "product_image_url": "",
    "product_tags": " kitchen, ,electric ,",
    "product_related_products": "",
    "product_stock": "7 units",
    "product_status": "inactive",
    "product_is_available": True,
    "product_is_featured": "on",
    "product_discount_price": " ",
    "product_discount_start": "",
    "product_discount_end": "2026-12-01T10:00",
    "product_rating": "",
}


def test_required_name_price_and_category():
    assert product_payload({}) is None
    for missing in ("product_name", "product_price", "product_category"):
        assert product_payload({**FILLED, missing: "  "}) is None
    assert product_payload({**FILLED, "product_category": NO_CATEGORY}) is None


def test_payload_trims_lists_parses_stock_and_omits_blank_discounts():
    payload = product_payload(FILLED)
    assert payload == {
        "name": "Kettle",
        "description": "1.7 litres",
        "brand": "melcom",
        "price": "20",
        "image_url": "",  # the service puts the placeholder picture in
        "category": "cat-1",
        "tags": ["kitchen", "electric"],
        "related_products": [],
        "stock": 7,
        "status": "inactive",
        "is_available": True,
        "is_featured": True,
        "discount_end": "2026-12-01T10:00",
        "per_customer_limit": None,  # always sent: blank clears a sale's cap (absent, an update keeps it)
    }
    unchecked = product_payload({**FILLED, "product_is_available": False, "product_is_featured": None})
    assert (unchecked["is_available"], unchecked["is_featured"]) == (False, False)


def test_stock_is_the_leading_whole_number_or_zero():
    assert [parse_stock_text(t) for t in ("", "abc", "12", " 3.9", "-2", "+4")] == [0, 0, 12, 3, -2, 4]
    assert comma_list(" a,, b ,c ") == ["a", "b", "c"]


def test_edit_mode_fills_the_form_from_a_product():
    product = Product(
        name="Kettle", description="d", brand="melcom", price=Decimal("20.00"), discount_price=Decimal("15.5"),
        discount_start=datetime(2026, 11, 30, 9, 5, tzinfo=UTC), discount_end=None, image_url="/k.png",
        category_id="cat-1", tags=["a", "b"], related_products=["p1"], stock=3, rating=4.0, status="active",
        is_available=False, is_featured=True, effective_price=Decimal("15.50"),
    )
    values = form_values(product)
    assert (values.price, values.discount_price, values.discount_start, values.discount_end) == (
        "20.00", "15.50", "2026-11-30T09:05", ""
    )
    assert (values.tags, values.related_products, values.stock, values.rating) == ("a, b", "p1", "3", "4")
    assert (values.category, values.is_available, values.is_featured) == ("cat-1", False, True)


def test_the_products_low_stock_filter_says_it_leaves_sold_out_ones_to_their_own():
    """It read "Low stock (5 or fewer)" as the overview's heading does, yet found 3 where the
    overview counted 4: the sold-out ones are the "Out of stock" filter's."""
    from discount_deals.state.admin.product_form import STATUS_FILTERS

    labels = dict(STATUS_FILTERS)
    assert (labels["low_stock"], labels["out_of_stock"]) == ("Low stock (1 to 5 left)", "Out of stock")
