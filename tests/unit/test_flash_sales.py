"""Flash sales (issue 34 item 2): the countdown's words, the limit's words, and where they show."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from discount_deals.display import product_view
from discount_deals.models import Category, Product
from discount_deals.services.flash_sales import countdown_text, limit_in_force, limit_message
from discount_deals.state.admin.product_form import form_values, product_payload
from discount_deals.web.first_html import markup

END = datetime(2026, 11, 28, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("left", "text"),
    [
        (timedelta(hours=24, seconds=1), ""),  # more than a day left: no countdown yet
        (timedelta(hours=24), "Ends in 24h 0m"),  # from a day before
        (timedelta(hours=5, minutes=12, seconds=59), "Ends in 5h 12m"),  # minutes counted down
        (timedelta(hours=1), "Ends in 1h 0m"),
        (timedelta(minutes=59, seconds=59), "Ends in 59m"),
        (timedelta(seconds=20), "Ends in 1m"),  # never "0m" while the sale is on
        (timedelta(0), ""),  # the end is exclusive: over
        (-timedelta(hours=1), ""),
    ],
)
def test_the_countdown_shows_from_a_day_before_the_end(left, text):
    assert countdown_text(END, END - left) == text


def test_no_end_no_countdown():
    assert countdown_text(None, END) == ""


def _product(**fields) -> Product:
    values = {"name": "Milo 400g", "price": Decimal("20.00"), "discount_price": Decimal("12.00"),
              "effective_price": Decimal("12.00"), "category_id": "c1", "stock": 5, **fields}
    return Product(**values)


def test_the_limit_applies_only_while_the_discount_does():
    now = datetime.now(UTC)
    on = _product(per_customer_limit=2, discount_start=now - timedelta(hours=1), discount_end=now + timedelta(hours=2))
    assert limit_in_force(on) == 2
    assert limit_in_force(_product(per_customer_limit=2, discount_end=now - timedelta(seconds=1))) is None
    assert limit_in_force(_product(per_customer_limit=2, discount_start=now + timedelta(hours=1))) is None
    assert limit_in_force(_product(discount_end=now + timedelta(hours=1))) is None


def test_the_refusal_names_the_limit_and_what_was_bought():
    product = _product(per_customer_limit=2)
    assert limit_message(product, 2, 0) == "Flash sale: at most 2 per customer for Milo 400g."
    assert limit_message(product, 2, 1) == "Flash sale: at most 2 per customer for Milo 400g. You have already bought 1."


def test_a_card_and_the_product_page_show_the_countdown_and_the_limit():
    now = datetime.now(UTC)
    ends = now + timedelta(hours=5, minutes=12, seconds=30)
    view = product_view(_product(per_customer_limit=2, discount_end=ends), Category(id="c1", name="Drinks", slug="d"))
    assert view.ends_text == "Ends in 5h 12m"
    assert view.ends_at == ends.isoformat()
    assert view.limit_text == "Limit 2 per customer"

    card = markup.product_card(view, 0)
    assert f'data-ends-at="{ends.isoformat()}"' in card and ">Ends in 5h 12m</span>" in card
    page = markup.product_detail(view, tags=[], category_href="/", whatsapp_url="", related=[])
    assert "Ends in 5h 12m" in page and "Limit 2 per customer" in page


def test_nothing_shows_far_from_the_end_or_without_a_sale():
    now = datetime.now(UTC)
    far = product_view(_product(per_customer_limit=3, discount_end=now + timedelta(days=3)), None)
    assert (far.ends_text, far.ends_at, far.limit_text) == ("", "", "Limit 3 per customer")
    over = product_view(_product(per_customer_limit=3, discount_end=now - timedelta(minutes=1)), None)
    assert (over.ends_text, over.limit_text) == ("", "")
    assert "data-ends-at" not in markup.product_card(far, 0)
    assert "Limit" not in markup.product_detail(over, tags=[], category_href="/", whatsapp_url="", related=[])


def test_the_admin_form_carries_the_limit():
    filled = {"product_name": "Milo", "product_price": "20", "product_category": "c1",
              "product_discount_price": "12", "product_per_customer_limit": " 2 "}
    assert product_payload(filled)["per_customer_limit"] == "2"
    # Blank is sent as None, which clears the cap (left out, an update keeps it: the original client's way).
    assert product_payload({**filled, "product_per_customer_limit": " "})["per_customer_limit"] is None
    assert form_values(_product(per_customer_limit=2)).per_customer_limit == "2"
    assert form_values(_product()).per_customer_limit == ""
