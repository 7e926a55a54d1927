"""Deal alerts offered where shoppers are (state.shop.deal_offer): a sheet after the first
favourite, and the favourites page's line saying whether they are on."""

from __future__ import annotations

import reflex as rx

from ..state.shop.deal_offer import DealOfferState as D
from .ui import button, icon

OFFER_TITLE = "Get deal alerts?"
OFFER_TEXT = "We will tell you when a favourite drops in price or is back in stock."


def _choices(off_text: str) -> rx.Component:
    return rx.el.div(
        rx.cond(D.has_mobile, button("By SMS", size="sm", on_click=D.choose("sms"), disabled=D.saving)),
        button("By email", size="sm", variant="outline", on_click=D.choose("email"), disabled=D.saving),
        button(off_text, size="sm", variant="ghost", on_click=D.close_offer) if off_text else rx.fragment(),
        class_name="flex flex-wrap gap-2",
    )


def deal_offer_sheet() -> rx.Component:
    """A card at the bottom of the screen, above everything, until the shopper picks or closes it."""
    return rx.cond(
        D.offer_open,
        rx.el.section(
            rx.el.div(
                icon("bell", class_name="h-5 w-5 shrink-0 text-orange-600"),
                rx.el.div(
                    rx.el.h2(OFFER_TITLE, id="deal-offer-title", class_name="font-semibold text-gray-900"),
                    rx.el.p(OFFER_TEXT, class_name="mb-3 text-sm text-gray-600"),
                    _choices("Not now"),
                ),
                class_name="flex gap-3",
            ),
            role="dialog",
            aria_labelledby="deal-offer-title",
            id="deal-offer",
            # Above the cart's checkout bar on phones (fixed to the bottom there): never over "Proceed to Checkout".
            class_name="fixed inset-x-3 bottom-3 z-50 mx-auto max-w-md rounded-lg border border-gray-200 bg-white "
            "p-4 shadow-lg max-lg:[body:has(#checkout-bar)_&]:bottom-28",
        ),
    )


def deal_alerts_line() -> rx.Component:
    """The favourites page: "Deal alerts: by SMS." (and a way to change it), or an offer when off."""
    return rx.el.div(
        rx.el.p(D.state_text, id="deal-alerts-state", class_name="text-sm font-medium text-gray-800"),
        rx.cond(
            D.deal_alerts == "off",
            _choices(""),
            rx.el.a("Change", href="/profile?tab=personal#prefs-deal_alerts", class_name="text-sm text-orange-700 underline"),
        ),
        class_name="mb-6 flex flex-wrap items-center gap-3 rounded-lg border border-gray-200 bg-white p-3",
    )
