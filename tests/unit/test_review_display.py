"""How the product page words and draws reviews (issue 34): its summary line, the stars, the day,
and the back office's rows."""

from __future__ import annotations

from datetime import UTC, datetime

from discount_deals.display import ProductView, rated, review_count_text, review_item, review_summary_text, stars_text
from discount_deals.services.reviews import AdminReviewView, ReviewView, clean_text
from discount_deals.state.admin.reviews import review_row


def _view(**fields) -> ReviewView:
    moment = datetime(2026, 11, 5, 23, 30, tzinfo=UTC)
    return ReviewView(**{"id": "r1", "product_id": "p1", "rating": 4, "text": "<i>Nice</i>", "reviewer": "Ama",
                         "created_at": moment, "updated_at": moment, "is_hidden": False, **fields})


def test_the_summary_reads_the_average_and_the_count():
    assert review_summary_text(4.333, 12) == "4.3 (12 reviews)"
    assert review_summary_text(5.0, 1) == "5.0 (1 review)"
    assert review_summary_text(3.0, 0) == "No reviews yet"
    assert (review_count_text(0), review_count_text(1), review_count_text(1200)) == ("", "1 review", "1,200 reviews")


def test_stars_round_half_up_to_whole_stars():
    assert stars_text(4.5) == ("★★★★★", "")
    assert stars_text(4.4) == ("★★★★", "★")
    assert stars_text(0) == ("", "★★★★★")


def test_a_review_shows_the_day_in_ghana_and_its_text_as_it_is():
    item = review_item(_view())
    assert (item.reviewer, item.date_text, item.text, item.stars_on) == ("Ama", "5 Nov 2026", "<i>Nice</i>", "★★★★")


def test_the_back_office_row_says_who_and_when():
    row = review_row(AdminReviewView(_view(is_hidden=True), "Gari 1kg", "u1", "ama@example.com"))
    assert (row.product_name, row.email, row.when, row.is_hidden) == ("Gari 1kg", "ama@example.com",
                                                                     "5 Nov 2026, 23:30 GMT", True)


def test_review_text_loses_control_characters_but_keeps_its_lines():
    assert clean_text("  Good\r\nvalue\x00\x1b[31m\u202e\t \n") == "Good\nvalue[31m"


def test_a_new_review_rerates_the_page_without_touching_the_rest():
    view = rated(ProductView(id="p1", name="Gari", rating=2.0, rating_text="2.0"), 4.5, 2)
    assert (view.name, view.rating_text, view.stars_on, view.stars_off) == ("Gari", "4.5", "★★★★★", "")
    assert (view.review_count, view.review_count_text) == (2, "2 reviews")
