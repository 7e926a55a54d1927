"""Admin Reviews tab (issue 34): every review, newest first, filtered to the published or hidden
ones, each hidden or shown again in one tap (services.reviews: audited, the rating recomputed)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import reflex as rx
from sqlmodel import Session

from ...db import write_session
from ...display import ReviewItem, ghana_time, review_item
from ...models import User
from ...services import reviews as review_service
from ..actions import busy_call
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList

ALL = "all"
SHOWN_FILTERS: list[tuple[str, str]] = [(ALL, "All reviews"), ("published", "Published"), ("hidden", "Hidden")]
HIDDEN_OF = {ALL: None, "published": False, "hidden": True}


@dataclasses.dataclass
class ReviewRow(ReviewItem):
    """A review as the product page shows it, with what the admin also reads: the product, the
    reviewer's email, the hour, and whether it is hidden."""

    product_name: str = ""
    email: str = ""
    when: str = ""
    is_hidden: bool = False


def review_row(item: review_service.AdminReviewView) -> ReviewRow:
    review = item.review
    return ReviewRow(
        **dataclasses.asdict(review_item(review)), product_name=item.product_name, email=item.email,
        when=ghana_time(review.created_at), is_hidden=review.is_hidden,
    )


@admin_tab("reviews")
class AdminReviewsState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin review list"
    FILTERS: ClassVar[dict] = {"shown_filter": (SHOWN_FILTERS, ALL)}
    shown_filter: str = ALL
    rows: list[ReviewRow] = []

    def _query(self, session: Session, admin: User) -> tuple[list[review_service.AdminReviewView], int]:
        return review_service.admin_reviews(session, admin, hidden=HIDDEN_OF.get(self.shown_filter),
                                            offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: review_service.AdminReviewView) -> ReviewRow:
        return review_row(item)

    @admin_event
    async def set_hidden(self, admin: User, review_id: str, hidden: bool):
        """Hide a review from its product's page and rating, or show it again."""

        def change() -> None:
            with write_session() as session:
                review_service.set_hidden(session, admin, review_id, bool(hidden))

        done = ("Review hidden", None) if hidden else ("Review shown again", None)
        async for update in busy_call(self, None, change, success=done, failure=("Error", "Could not change the review.")):
            yield update
        for update in self._reload(admin):
            yield update
