"""Home page (/)."""

import reflex as rx


def home() -> rx.Component:
    return rx.box(
        rx.heading("Discover Amazing Deals", as_="h1", size="8"),
        rx.text("Find discounted products from top retailers like Shoprite and Melcom."),
        rx.link("Shop Now", href="/products"),
        padding="2em",
    )
