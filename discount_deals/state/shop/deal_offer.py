"""Deal alerts where shoppers are (issue 34 item 5): the first favourite offers them in one tap,
and the favourites page says whether they are on (services.messages.preferences keeps the choice)."""

from __future__ import annotations

import asyncio

import reflex as rx

from ...db import session_scope, write_session
from ...models import User
from ...services.messages import preferences
from ..actions import busy_call
from ..forms import text_arg
from ..guards import user_event
from ..account.session import per_user

CHOSEN = {
    "sms": ("Deal alerts on", "We will text you when a favourite gets cheaper or is back in stock."),
    "email": ("Deal alerts on", "We will email you when a favourite gets cheaper or is back in stock."),
    "off": ("Deal alerts off", None),
}
STATE_TEXT = {"off": "Deal alerts are off.", "sms": "Deal alerts: by SMS.", "email": "Deal alerts: by email."}


def _read(user: User) -> preferences.Preferences:
    with session_scope() as session:
        return preferences.preferences_of(session, session.get(User, user.id))


def _choose(user: User, choice: str) -> preferences.Preferences:
    with write_session() as session:
        return preferences.update_preferences(session, session.get(User, user.id), {"deal_alerts": choice})


@per_user
class DealOfferState(rx.State):
    deal_alerts: str = "off"
    has_mobile: bool = False
    offer_open: bool = False
    saving: bool = False

    @rx.var
    def state_text(self) -> str:
        return STATE_TEXT.get(self.deal_alerts, STATE_TEXT["off"])

    def _forget(self) -> None:
        self.deal_alerts, self.has_mobile, self.offer_open = "off", False, False

    def _show(self, prefs: preferences.Preferences) -> None:
        self.deal_alerts, self.has_mobile = prefs.deal_alerts, prefs.phone is not None

    @user_event
    def load(self, user: User):
        """The favourites page: whether alerts are on, and whether SMS can be offered."""
        self._show(_read(user))

    @user_event(guests=True)
    def offer(self, user: User | None):
        """After a first favourite: offer alerts when they are off (a guest has no account to send to)."""
        if user is None:
            return
        self._show(_read(user))
        self.offer_open = self.deal_alerts == "off"

    def close_offer(self):
        self.offer_open = False

    @user_event(background=True)
    async def choose(self, user: User, choice: str):
        """One tap: alerts by ``choice`` ("sms", "email" or "off")."""
        async with self:
            self.offer_open = False

        async def work():
            prefs = await asyncio.to_thread(_choose, user, text_arg(choice))
            async with self:
                self._show(prefs)
            return prefs

        async for update in busy_call(self, "saving", work, success=lambda prefs: CHOSEN[prefs.deal_alerts]):
            yield update
