"""Where toasts appear: bottom right on a wide screen; at the top on a phone, where the bottom
holds the primary buttons ("Add to Cart", the cart's fixed "Proceed to Checkout" bar) that a
toast would cover just when the shopper reaches for them."""

from __future__ import annotations

import reflex as rx

# Tailwind's md breakpoint: below it the layout is the phone's (the header wraps, the cart's
# checkout bar is fixed to the bottom). Read once when the app starts in the browser; the
# prerendered page (no window) gets the desktop default, which nothing shows before it hydrates.
PHONE_QUERY = "(max-width: 767px)"
TOAST_POSITION = rx.Var(
    f"((typeof window !== 'undefined' && window.matchMedia('{PHONE_QUERY}').matches) ? 'top-center' : 'bottom-right')",
    _var_type=str,
)


def toaster() -> rx.Component:
    return rx.toast.provider(position=TOAST_POSITION)
