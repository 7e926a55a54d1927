"""Favorites (/favorites): logged-in users only; guests are sent to /login and brought back."""

import reflex as rx

from ..components.layout import layout, saved_text
from ..components.product_card import product_grid
from ..components.blocks import empty_state
from ..components.deal_offer import deal_alerts_line
from ..components.ui import spinner
from ..state.shop.favorites import FavoritesState
from ..state.account.session import SessionState


def favorites() -> rx.Component:
    return layout(
        rx.cond(
            SessionState.is_logged_in & SessionState.auth_checked,
            rx.cond(
                FavoritesState.count > 0,
                rx.el.div(
                    rx.el.h1("My Favorites", class_name="text-3xl font-bold text-gray-900"),
                    rx.el.p(saved_text(FavoritesState.count), class_name="mb-3 text-sm text-gray-600"),
                    deal_alerts_line(),
                    product_grid(FavoritesState.items),
                ),
                empty_state("heart", "No favorites yet", "Tap the heart on any product to save it here.",
                            "Browse Products"),
            ),
            spinner("Checking your session..."),
        )
    )
