"""The not-found page for every unknown route."""

import reflex as rx


def not_found() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.heading("404", as_="h1", size="9"),
            rx.text("Oops! Page not found", size="5"),
            rx.link("Return to Home", href="/", underline="always"),
            align="center",
            spacing="3",
        ),
        min_height="70vh",
    )
