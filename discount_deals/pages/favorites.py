"""Favorites (/favorites): logged-in users only; guests are sent to /login and brought back."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.product_card import product_grid
from ..components.ui import icon, link_button, spinner
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
                    rx.el.p(FavoritesState.count, " saved items", class_name="mb-6 text-sm text-gray-600"),
                    product_grid(FavoritesState.items),
                ),
                rx.el.div(
                    icon("heart", 48, class_name="mx-auto text-gray-400"),
                    rx.el.h1("No favorites yet", class_name="mt-4 text-2xl font-bold text-gray-900"),
                    rx.el.p("Tap the heart on any product to save it here.", class_name="mt-2 text-gray-600"),
                    link_button("Browse Products", href=routes.PRODUCTS, class_name="mt-6"),
                    class_name="mx-auto max-w-md py-16 text-center",
                ),
            ),
            spinner("Checking your session..."),
        )
    )
