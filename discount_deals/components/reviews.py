"""The product page's reviews (issue 34): the average and count, the newest reviews with the
reviewer's first name and "Verified purchase", "More reviews", and a buyer's form. The first HTML
(``web/first_html/markup.reviews_section``) draws the same section for guests with the same classes.
A review's text is shown as text: Reflex escapes it (nothing here sets inner HTML)."""

from __future__ import annotations

import reflex as rx

from ..display import ReviewItem
from ..models.reviews import MAX_REVIEW_TEXT
from ..state.shop.product import ProductPageState
from ..state.shop.reviews import HIDDEN_NOTE
from ..state.shop.reviews import ReviewsState as R
from . import card_style as S
from .ui import FIELD_INPUT, FIELD_LABEL, browser_owned, button_class

STAR_CHOICES = (1, 2, 3, 4, 5)


def review_entry(review: ReviewItem) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.span(review.reviewer, class_name=S.REVIEW_NAME),
            rx.el.span("Verified purchase", class_name=S.VERIFIED),
            class_name=S.REVIEW_HEAD,
        ),
        rx.el.div(
            rx.el.span(
                rx.el.span(review.stars_on, class_name=S.STAR_ON),
                rx.el.span(review.stars_off, class_name=S.STAR_OFF),
                aria_hidden="true",
                class_name=S.STARS,
            ),
            rx.el.span("Rated ", review.rating, " out of 5", class_name=S.SR_ONLY),
            rx.el.span(review.date_text),
            class_name=S.REVIEW_META,
        ),
        rx.cond(review.text != "", rx.el.p(review.text, class_name=S.REVIEW_TEXT)),
        class_name=S.REVIEW,
    )


def _star_choice(stars: int) -> rx.Component:
    label = "1 star" if stars == 1 else f"{stars} stars"
    return rx.el.label(
        rx.el.input(
            type="radio",
            name="rating",
            value=str(stars),
            required=True,
            aria_label=label,
            class_name="h-4 w-4 accent-orange-700",
            **browser_owned(f"review-star-{stars}", R.form_rating == stars, R.form_version, checked=True),
        ),
        rx.el.span(f"{stars}", rx.el.span("★", class_name=S.STAR_ON), aria_hidden="true"),
        class_name="inline-flex h-10 min-w-[3.25rem] cursor-pointer items-center justify-center gap-1 rounded-md "
        "border border-gray-300 bg-white px-2 text-sm font-medium text-gray-900 has-[:checked]:border-orange-700 "
        "has-[:checked]:bg-orange-50",
    )


def review_form() -> rx.Component:
    return rx.el.form(
        rx.el.h3(
            rx.cond(R.has_mine, "Your review", "Review this product"),
            class_name="text-lg font-semibold text-gray-900",
        ),
        rx.cond(R.mine_hidden, rx.el.p(HIDDEN_NOTE, class_name="text-sm text-gray-700")),
        rx.el.fieldset(
            rx.el.legend("Your rating", class_name=FIELD_LABEL),
            rx.el.div(*[_star_choice(stars) for stars in STAR_CHOICES], class_name="flex flex-wrap gap-2"),
        ),
        rx.el.div(
            rx.el.label("Your review (optional)", html_for="review-text", class_name=FIELD_LABEL),
            rx.el.textarea(
                id="review-text",
                name="text",
                rows=4,
                max_length=MAX_REVIEW_TEXT,
                placeholder="What did you like or not like?",
                class_name=FIELD_INPUT,
                **browser_owned("review-text", R.form_text, R.form_version),
            ),
        ),
        rx.cond(R.form_error != "", rx.el.p(R.form_error, role="alert", class_name="text-sm text-red-700")),
        rx.el.button(
            rx.cond(R.has_mine, "Update review", "Post review"),
            type="submit",
            disabled=R.posting,
            class_name=button_class("primary", "md", "self-start"),
        ),
        on_submit=ProductPageState.post_review,
        reset_on_submit=False,
        aria_label="Your review",
        class_name="mt-4 flex flex-col gap-3 rounded-lg border border-gray-200 bg-gray-50 p-4",
    )


def reviews_section() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Reviews", class_name=S.SECTION_TITLE),
        rx.el.div(
            rx.cond(
                R.review_count > 0,
                rx.el.span(
                    rx.el.span(R.stars_on, class_name=S.STAR_ON),
                    rx.el.span(R.stars_off, class_name=S.STAR_OFF),
                    aria_hidden="true",
                    class_name=S.STARS,
                ),
            ),
            rx.el.span(R.summary_text, class_name=S.REVIEW_SUMMARY_TEXT),
            class_name=S.REVIEW_SUMMARY,
        ),
        rx.cond(R.can_review, review_form()),
        rx.el.ul(rx.foreach(R.reviews, review_entry), class_name=S.REVIEW_LIST),
        rx.cond(
            R.has_more,
            rx.el.button(
                "More reviews", type="button", on_click=R.more, class_name=button_class("outline", "md", "mt-4")
            ),
        ),
        id="reviews",
        aria_label="Reviews",
        class_name=S.REVIEWS,
    )
