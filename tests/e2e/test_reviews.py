"""Reviews from buyers (issue 34 item 1) on a 390 × 844 phone: a customer who received a product
posts a review on its page and sees it with the stars, the average and "Verified purchase"; posting
again updates it; a guest reads the reviews without the form, and a review's text stays text.
Screenshots go to test-results/screenshots/ (and to DD_SHOTS_DIR, or /work/notes/shots-34/ when
that folder exists)."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import select

from discount_deals.models import OrderItem, Review
from discount_deals.services import reviews as review_service

from .account_helpers import insert_order, toast, whole_page_shot
from .conftest import sign_in, unique
from .test_product_page import hydrated

PHONE = {"width": 390, "height": 844}
NOTES_SHOTS = Path(os.environ.get("DD_SHOTS_DIR") or "/work/notes/shots-34")


def shoot(page: Page, name: str) -> Path:
    return whole_page_shot(page, name, NOTES_SHOTS)


def delivered(live_server, user, product) -> None:
    """A delivered order of ``product`` by ``user`` in the server's database."""
    with live_server.session() as session:
        order = insert_order(session, user, status="delivered", lines=())
        session.add(OrderItem(order_id=order.id, product_id=product.id, name=product.name, unit_price=product.price,
                              original_price=product.price, quantity=1, line_total=product.price))


def earlier_review(live_server, live_user, product, stars: int, text: str, first_name: str) -> None:
    reviewer, _password = live_user(first_name=first_name)
    delivered(live_server, reviewer, product)
    with live_server.session() as session:
        review_service.post_review(session, reviewer, product.id, {"rating": stars, "text": text})


def test_a_buyer_posts_a_review_and_sees_it_with_the_stars(page: Page, live_server, live_user, live_product):
    page.set_viewport_size(PHONE)
    product = live_product(name=unique("Reviewed Gari"), rating=2.0)
    earlier_review(live_server, live_user, product, 4, "Good gari, <b>crunchy</b>.\nWould buy again.", "Kofi")
    user, _password = live_user(first_name="Akosua", last_name="Boateng")
    delivered(live_server, user, product)
    sign_in(page, user)

    page.goto(f"/products/{product.id}")
    hydrated(page)
    reviews = page.get_by_role("region", name="Reviews")
    expect(reviews.get_by_text("4.0 (1 review)")).to_be_visible()
    expect(reviews.get_by_text("Kofi", exact=True)).to_be_visible()
    expect(reviews.get_by_text("Verified purchase")).to_have_count(1)
    # The text is shown as typed: the tag is text, not bold.
    expect(reviews.get_by_text("Good gari, <b>crunchy</b>.")).to_be_visible()
    expect(reviews.locator("b")).to_have_count(0)

    form = page.get_by_role("form", name="Your review")
    form.get_by_role("radio", name="5 stars").check()
    form.get_by_label("Your review (optional)").fill("Fresh and well packed. Delivery to Kumasi was quick.")
    form.get_by_role("button", name="Post review").click()
    expect(toast(page, "Review posted")).to_be_visible()
    expect(reviews.get_by_text("4.5 (2 reviews)")).to_be_visible()
    # The stars under the name follow at once (the page's shared view a second later).
    expect(page.locator("article").first.get_by_role("link", name="(2 reviews)")).to_be_visible()
    shoot(page, "reviews-product-page-390")
    expect(reviews.get_by_text("Akosua")).to_be_visible()
    expect(reviews.get_by_text("Boateng")).to_have_count(0)
    shown = reviews.get_by_role("list").get_by_text("Fresh and well packed. Delivery to Kumasi was quick.")
    expect(shown).to_be_visible()
    expect(reviews.get_by_text("Verified purchase")).to_have_count(2)
    expect(form.get_by_role("button", name="Update review")).to_be_visible()

    # Posting again updates the one review.
    expect(form.get_by_role("radio", name="5 stars")).to_be_checked()  # pre-filled with the review
    form.get_by_role("radio", name="3 stars").check()
    form.get_by_role("button", name="Update review").click()
    expect(toast(page, "Review updated")).to_be_visible()
    expect(reviews.get_by_text("3.5 (2 reviews)")).to_be_visible()
    with live_server.session() as session:
        mine = session.exec(select(Review).where(Review.user_id == user.id)).all()
        assert [(r.rating, r.text) for r in mine] == [(3, "Fresh and well packed. Delivery to Kumasi was quick.")]


def test_a_guest_reads_reviews_without_a_form_and_the_stars_show(page: Page, live_server, live_user, live_product):
    page.set_viewport_size(PHONE)
    product = live_product(name=unique("Reviewed Rice"), rating=1.0)
    earlier_review(live_server, live_user, product, 5, "Lovely rice", "Esi")
    earlier_review(live_server, live_user, product, 4, "", "Yaw")

    page.goto(f"/products/{product.id}")
    hydrated(page)
    shoot(page, "reviews-guest-390")
    article = page.locator("article").first  # the product's (related products are articles too)
    expect(article.get_by_text("Rated 4.5 out of 5")).to_be_attached()
    expect(article.get_by_role("link", name="(2 reviews)")).to_be_visible()
    reviews = page.get_by_role("region", name="Reviews")
    expect(reviews.get_by_text("4.5 (2 reviews)")).to_be_visible()
    expect(reviews.get_by_text("Lovely rice")).to_be_visible()
    expect(page.get_by_role("form", name="Your review")).to_have_count(0)
