"""A product page's reviews (issue 34): the average and count, the newest reviews ("More reviews"
for the next ones), and for a customer who received the product a form to post or update theirs.
The rules are in ``services.reviews``; this state only shows them and sends the form."""

from __future__ import annotations

import asyncio

import reflex as rx

from ...db import session_scope, write_session
from ...display import ReviewItem, review_item, review_summary_text, stars_text
from ...models import User
from ...services import ErrorCode, NotFound, ServiceError
from ...services import reviews as review_service
from ..account.session import per_user
from ..actions import busy_call
from ..forms import form_text, show_form_values
from ..guards import current_user

PAGE_SIZE = 5
POSTED = ("Review posted", "Thank you: other shoppers can read it now.", "success")
UPDATED = ("Review updated", None, "success")
HIDDEN_NOTE = "The shop has hidden your review: other shoppers do not see it."


def _read(product_id: str, user: User | None, pages: int) -> tuple[review_service.ProductReviews, object, bool]:
    with session_scope() as session:
        found = review_service.product_reviews(session, product_id, limit=PAGE_SIZE * pages)
        mine, may_review = (None, False)
        if user is not None:
            mine, may_review = review_service.my_review(session, session.get(User, user.id), product_id)
        return found, mine, may_review


def _post(user: User, product_id: str, form: dict) -> bool:
    with write_session() as session:
        _review, created = review_service.post_review(session, session.get(User, user.id), product_id, form)
        return created


@per_user
class ReviewsState(rx.State):
    product_id: str = ""
    reviews: list[ReviewItem] = []
    summary_text: str = ""
    stars_on: str = ""
    stars_off: str = ""
    review_count: int = 0
    rating: float = 0.0
    pages: int = 1
    can_review: bool = False
    has_mine: bool = False
    mine_hidden: bool = False
    # The form starts from the customer's review; ``form_version`` remounts its fields (browser_owned).
    form_rating: int = 0
    form_text: str = ""
    form_version: int = 0
    form_error: str = ""
    posting: bool = False

    @rx.var
    def has_more(self) -> bool:
        return self.review_count > len(self.reviews)

    def _forget(self) -> None:
        self.product_id, self.reviews, self.summary_text, self.review_count = "", [], "", 0
        self.stars_on, self.stars_off, self.pages = "", "", 1
        self.can_review, self.has_mine, self.mine_hidden = False, False, False
        self.form_rating, self.form_text, self.form_error = 0, "", ""
        self.form_version += 1

    def _show(self, found: review_service.ProductReviews, mine, may_review: bool, *, saved: bool = False) -> None:
        self.reviews = [review_item(view) for view in found.reviews]
        self.review_count, self.rating = found.review_count, found.rating
        self.summary_text = review_summary_text(found.rating, found.review_count)
        self.stars_on, self.stars_off = stars_text(found.rating) if found.review_count else ("", "")
        self.can_review = may_review or mine is not None
        self.has_mine, self.mine_hidden = mine is not None, bool(mine is not None and mine.is_hidden)
        rating, text = (mine.rating, mine.text) if mine is not None else (0, "")
        show_form_values(self, {"form_rating": rating, "form_text": text}, saved=saved)

    async def _refresh(self, user: User | None, *, saved: bool = False) -> None:
        try:
            found, mine, may_review = await asyncio.to_thread(_read, self.product_id, user, self.pages)
        except NotFound:
            self._forget()
            return
        self._show(found, mine, may_review, saved=saved)

    async def _load_for(self, product_id: str, user: User | None) -> None:
        """The product page's load (``state.shop.product``, in its one event): the first reviews,
        and the caller's own."""
        if product_id != self.product_id:
            self._forget()
            self.product_id = product_id
        self.pages = 1
        if product_id:
            await self._refresh(user)

    @rx.event
    async def more(self):
        """"More reviews": the next few, newest first."""
        if not self.product_id or not self.has_more:
            return
        self.pages += 1
        await self._refresh(await current_user(self))

    async def _post(self, user: User, form: dict):
        """"Post review" / "Update review": the stars chosen and the text typed (the product
        page's ``post_review`` event runs this, then shows the product's new rating)."""
        product_id = self.product_id
        # Text as the browser sent it ("" for anything else: a crafted event's list or number).
        values = {"rating": form_text(form, "rating"), "text": form_text(form, "text")}
        self.form_error = ""

        def refused(exc: ServiceError):
            # A bad field is said under the form (no toast); any other refusal is toasted.
            self.form_error = exc.detail
            return [] if exc.code == ErrorCode.REVIEW_INVALID else None

        async for update in busy_call(
            self, "posting", lambda: _post(user, product_id, values),
            success=lambda created: POSTED if created else UPDATED,
            failure=("Review not posted", None),
            on_refusal=refused,
        ):
            yield update
        if not self.form_error:
            await self._refresh(user, saved=True)
