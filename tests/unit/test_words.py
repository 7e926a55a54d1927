"""Issue 32, item 13: the words a shopper in Accra reads (GMT, towns and brands capitalised,
"Cancelled by you")."""

from datetime import datetime, timezone

from discount_deals.display import brand_name, ghana_time
from discount_deals.models import OrderEvent
from discount_deals.services.places import place_name
from discount_deals.state.order_views import address_text, timeline_entry


def test_towns_are_written_as_on_a_letter():
    assert place_name("accra") == "Accra"
    assert place_name("  sekondi-takoradi ") == "Sekondi-Takoradi"
    assert place_name("East Legon") == "East Legon"  # typed with capitals: kept
    assert address_text({"line1": "12 Oxford St", "city": "kumasi", "country": "Ghana"}) == (
        "12 Oxford St, Kumasi, Ghana")


def test_brands_and_accra_times():
    assert brand_name("shoprite") == "Shoprite"
    assert brand_name("palace hypermarket") == "Palace Hypermarket"
    assert ghana_time(datetime(2026, 12, 1, 9, 5, tzinfo=timezone.utc)) == "1 Dec 2026, 09:05 GMT"


def test_a_customer_cancelling_reads_cancelled_by_you():
    event = OrderEvent(order_id="o", kind="status", from_value="pending", to_value="cancelled", actor_id="u1",
                       created_at=datetime(2026, 12, 1, 9, 0))
    assert timeline_entry(event, "u1").note == "Cancelled by you"
    by_shop = OrderEvent(order_id="o", kind="status", from_value="pending", to_value="cancelled", actor_id="admin",
                         created_at=datetime(2026, 12, 1, 9, 0))
    assert timeline_entry(by_shop, "u1").note != "Cancelled by you"
