"""Message preferences and the one-click unsubscribe (issue 22); the password reset is
:mod:`.password_reset`.

- ``GET`` / ``PATCH /users/me/notifications/``: how the caller hears from the shop.
- ``POST /notifications/unsubscribe/?token=...``: RFC 8058 one-click unsubscribe (no login).
- ``POST /users/email-change/undo/`` ``{"token"}``: the link a changed email or phone sends to
  the old ones (issue 32): the old ones come back and every session ends (no login).
"""

from __future__ import annotations

from typing import Any

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field

from ..services.messages import preferences
from ..services.users import contact_change
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .openapi import declares
from .routing import ApiRouter
from .schemas import SIGNED_OUT, Message, answer, documented

router = ApiRouter(tags=["notifications"])


class UndoChangeIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["token"]})

    token: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=4096))


class PreferencesIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    order_updates: str | None = Field(None, json_schema_extra=documented(enum=list(preferences.ORDER_CHOICES)))
    deal_alerts: str | None = Field(None, json_schema_extra=documented(enum=list(preferences.DEAL_CHOICES)))
    account_email: bool | None = None
    cart_reminders: bool | None = None
    deal_emails: bool | None = None


class PreferencesOut(BaseModel):
    order_updates: str = Field(description="sms, email, both or off (the default: sms when a number is known)")
    deal_alerts: str = Field(description="off (the default), sms (one a day at most, the rest by email) or email")
    account_email: bool = Field(description="Security notices by email (password changed, login paused)")
    cart_reminders: bool = Field(description="One reminder about a cart left untouched (SMS or email); on by default")
    deal_emails: bool = Field(description="With deal alerts by SMS, the day's further alerts by email; off once a deal "
                                          "email's unsubscribe link is used, on again when chosen")
    sms_number: str | None = Field(description="Where texts go (E.164), from the profile's phone number")


@router.get("/users/me/notifications/", response_model=PreferencesOut, responses=SIGNED_OUT)
def read_preferences(session: SessionDep, user: CurrentUser) -> dict[str, Any]:
    return preferences.preferences_of(session, user).as_dict()


@router.patch(
    "/users/me/notifications/",
    response_model=PreferencesOut,
    responses={400: answer("An unknown choice, or SMS without a mobile number"), **SIGNED_OUT},
    summary="Choose how order updates, deal alerts and account notices reach you, and whether carts remind you",
)
def update_preferences(body: PreferencesIn, session: WriteSessionDep, user: CurrentUser) -> dict[str, Any]:
    return preferences.update_preferences(session, user, body.model_dump(exclude_none=True)).as_dict()


@router.post(
    "/notifications/unsubscribe/",
    response_model=Message,
    responses={400: answer("Not a valid unsubscribe link")},
    summary="One-click unsubscribe (RFC 8058) from the emails of one topic; no login",
)
@declares(400)
def unsubscribe(session: WriteSessionDep, token: str = Query("", max_length=200)):
    topic = preferences.unsubscribe(session, token)
    return {"detail": f"You will no longer get {topic} by email."}


@router.post(
    "/users/email-change/undo/",
    response_model=Message,
    responses={400: answer("An invalid or expired undo link (code undo_invalid), or the old email taken since "
                           "(undo_email_taken)")},
    summary="Undo a change of email or phone with the link sent to the old ones; every session of the account ends",
)
def undo_email_change(body: UndoChangeIn, session: WriteSessionDep):
    contact_change.undo_contact_change(session, body.token)
    return {"detail": contact_change.UNDONE}
