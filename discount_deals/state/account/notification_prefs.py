"""How the signed-in customer hears from the shop (the profile's "Messages" card), through
services.messages.preferences."""

from __future__ import annotations

import asyncio

import reflex as rx

from ...db import session_scope, write_session
from ...models import User
from ...services.messages import preferences
from ...services.phones import display_phone
from ..actions import busy_call
from ..forms import form_checked, form_text, show_form_values
from ..guards import user_event
from .session import per_user

ORDER_OPTIONS = list(preferences.ORDER_CHOICES.items())
DEAL_OPTIONS = list(preferences.DEAL_CHOICES.items())


def _read(user: User) -> preferences.Preferences:
    with session_scope() as session:
        return preferences.preferences_of(session, session.get(User, user.id))


def _save(user: User, changes: dict) -> preferences.Preferences:
    with write_session() as session:
        return preferences.update_preferences(session, session.get(User, user.id), changes)


@per_user
class NotificationPrefsState(rx.State):
    order_updates: str = "email"
    deal_alerts: str = "off"
    account_email: bool = True
    cart_reminders: bool = True
    deal_emails: bool = True
    sms_number: str = ""
    saving: bool = False
    error: str = ""
    form_version: int = 0
    # False until this account's choices are in: the card shows them only then, so a tap is never
    # made on the defaults and taken back by the answer.
    loaded: bool = False

    def _forget(self) -> None:
        self.order_updates, self.deal_alerts, self.account_email, self.sms_number = "email", "off", True, ""
        self.cart_reminders = self.deal_emails = True
        self.error = ""
        self.loaded = False

    def _show(self, prefs: preferences.Preferences, *, saved: bool = False) -> None:
        self.sms_number = display_phone(prefs.phone)
        show_form_values(self, {"order_updates": prefs.order_updates, "deal_alerts": prefs.deal_alerts,
                                "account_email": prefs.account_email, "cart_reminders": prefs.cart_reminders,
                                "deal_emails": prefs.deal_emails},
                         saved=saved)
        self.loaded = True

    @user_event
    def load(self, user: User):
        self.error = ""
        self._show(_read(user))

    def _refused(self, exc) -> list:
        self.error = next(iter(exc.fields.values()), [exc.detail])[0] if exc.fields else exc.detail
        return []

    @user_event(background=True)
    async def save(self, user: User, form: dict):
        changes = {"order_updates": form_text(form, "order_updates", limit=8),
                   "deal_alerts": form_text(form, "deal_alerts", limit=8),
                   "account_email": form_checked(form, "account_email"),
                   "cart_reminders": form_checked(form, "cart_reminders"),
                   "deal_emails": form_checked(form, "deal_emails")}
        async with self:
            self.error = ""

        async def work():
            prefs = await asyncio.to_thread(_save, user, changes)
            async with self:
                self._show(prefs, saved=True)

        async for update in busy_call(self, "saving", work, on_refusal=self._refused,
                                      success=("Preferences saved", "We will reach you the way you chose.")):
            yield update
