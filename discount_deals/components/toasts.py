"""Where toasts appear (issue 31): at the bottom of the screen, above the phone's safe area and
above a bar fixed to the bottom (the cart's "Proceed to Checkout", assets/app.css), so they
never cover the header's cart and account buttons or the page's primary button; bottom right on
a wide screen. Each can be closed, and a toast replaces the one of its subject on screen
(state/actions.toast)."""

from __future__ import annotations

import reflex as rx

# Tailwind's md breakpoint: below it the layout is the phone's. Read once when the app starts in
# the browser; the prerendered page (no window) gets the desktop default, which nothing shows
# before it hydrates.
PHONE_QUERY = "(max-width: 767px)"
TOAST_POSITION = rx.Var(
    f"((typeof window !== 'undefined' && window.matchMedia('{PHONE_QUERY}').matches) ? 'bottom-center' : 'bottom-right')",
    _var_type=str,
)


def toaster() -> rx.Component:
    return rx.toast.provider(position=TOAST_POSITION, close_button=True, visible_toasts=3)
