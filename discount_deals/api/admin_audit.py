"""The audit trail, read-only: ``GET /admin/audit/`` (a DRF page, newest first) and one event.

Admins only (others 403, no token 401). There is no way to change or delete an event: other
methods answer 405.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from fastapi import Query, Request
from pydantic import BaseModel, Field

from ..models import AuditEvent
from ..services import ValidationFailed, audit
from ..services.moments import as_utc
from .deps import AdminUser, SessionDep
from .pagination import Page, build_page, page_request
from .routing import ApiRouter
from .schemas import PAST_THE_END, admin_errors, answer

router = ApiRouter(tags=["admin"])

AUDIT_PAGE_SIZE = 50
ERRORS = admin_errors("Invalid filter")


class AuditEventOut(BaseModel):
    id: str
    actor: str | None = Field(description="The acting user's id (null: the shop itself or the command line)")
    actor_label: str = Field(description="Who acted, readable: an email, or the shop's own name")
    action: str = Field(description='What was done, e.g. "product.update"')
    action_label: str
    target_type: str = Field(description="product, category, user, order, coupon, pickup_store")
    target_id: str | None
    target_label: str = Field(description="The target's name when the event was recorded")
    changes: dict[str, Any] = Field(description="{field: [before, after]} for the fields that changed")
    created_at: datetime


def event_json(event: AuditEvent) -> dict[str, Any]:
    return AuditEventOut(
        id=event.id,
        actor=event.actor_id,
        actor_label=event.actor_label,
        action=event.action,
        action_label=audit.action_label(event.action),
        target_type=event.target_type,
        target_id=event.target_id,
        target_label=event.target_label,
        changes=event.changes or {},
        created_at=event.created_at,
    ).model_dump(mode="json")


def _day_or_moment(raw: str, name: str) -> date | datetime | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        if "T" in text or " " in text:
            # In UTC here: a moment UTC cannot write (0001-01-01T00:00+14:00) is refused like a typo.
            return as_utc(datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text))
        return date.fromisoformat(text)
    except ValueError:
        message = "Use a date such as 2026-11-23 or a date and time such as 2026-11-23T10:00:00Z."
        raise ValidationFailed(f"Invalid {name}. {message}", fields={name: [message]}) from None


def filters_from(actor: str, action: str, target_type: str, target_id: str, date_from: str,
                 date_to: str) -> audit.AuditFilters:
    start, end = _day_or_moment(date_from, "date_from"), _day_or_moment(date_to, "date_to")
    return audit.AuditFilters(
        actor=actor,
        action=action,
        target_type=target_type,
        target_id=target_id,
        date_from=start if not isinstance(start, datetime) else None,
        date_to=end if not isinstance(end, datetime) else None,
        since=start if isinstance(start, datetime) else None,
        until=end if isinstance(end, datetime) else None,
    )


@router.get("/admin/audit/", response_model=Page[AuditEventOut],
            responses={**ERRORS, **PAST_THE_END})
def list_events(
    request: Request,
    session: SessionDep,
    user: AdminUser,
    actor: Annotated[str, Query(description="The acting user's id or email")] = "",
    action: Annotated[str, Query(description='e.g. "product.update"')] = "",
    target_type: Annotated[str, Query(description="product, category, user, order, coupon, pickup_store")] = "",
    target_id: Annotated[str, Query(description="The changed object's id")] = "",
    date_from: Annotated[str, Query(description="From this day (UTC, included) or moment")] = "",
    date_to: Annotated[str, Query(description="Through this day (UTC, included), or until this moment")] = "",
):
    """Who changed what, newest first (50 per page unless ``page_size``)."""
    page = page_request(request, default_size=AUDIT_PAGE_SIZE)
    filters = filters_from(actor, action, target_type, target_id, date_from, date_to)
    events, count = audit.list_events(session, user, filters, offset=page.offset, limit=page.page_size)
    return build_page(request, page, count, [event_json(event) for event in events])


@router.get(
    "/admin/audit/{event_id}/",
    response_model=AuditEventOut,
    responses={**ERRORS, 404: answer("No such event")},
)
def get_event(event_id: str, session: SessionDep, user: AdminUser):
    return event_json(audit.get_event(session, user, event_id))
