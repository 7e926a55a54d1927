"""Cart (/cart): items with quantity controls and the order summary."""

import reflex as rx

from .. import routes
from ..config.settings import get_settings
from ..display import returns_promise
from ..components.whatsapp import whatsapp_chat
from ..components.layout import layout
from ..components.optimistic import expect_cart, line_quantity
from ..components.blocks import empty_state, tax_rows, total_row
from ..components.stock_note import stock_fix
from ..components.ui import FIELD_INPUT, badge, browser_owned, button, button_class, card, icon, picture, spinner
from ..state.account.session import SessionState
from ..state.shop.cart import CartRow, CartState

# The coupon as its field holds it when "Proceed to Checkout" is pressed (the field is the browser's).
COUPON_TYPED = rx.Var("(document.getElementById('coupon-code')?.value ?? '')", _var_type=str)
# The checkout page's address with that coupon in it (none typed: the plain address).
CHECKOUT_WITH_TYPED_COUPON = rx.Var(
    f"((code) => code ? `{routes.CHECKOUT}?coupon=${{encodeURIComponent(code)}}` : '{routes.CHECKOUT}')"
    f"({COUPON_TYPED}.trim())",
    _var_type=str,
)


def quantity_controls(row: CartRow) -> rx.Component:
    """Minus, the quantity, plus: the new quantity shows at the tap (components/optimistic.py)."""
    shown = line_quantity(row.key, row.quantity)
    return rx.el.div(
        rx.el.button(
            icon("minus", 16),
            type="button",
            aria_label="Decrease quantity of " + row.name,
            disabled=(shown <= 1) | CartState.updating,
            on_click=CartState.decrement(row.key, expect_cart(-1, row.key, shown - 1)),
            class_name=button_class("outline", "icon"),
        ),
        rx.el.span(shown, class_name="w-10 text-center font-semibold", aria_label="Quantity"),
        rx.el.button(
            icon("plus", 16),
            type="button",
            aria_label="Increase quantity of " + row.name,
            disabled=CartState.updating | (shown >= row.stock),
            on_click=CartState.increment(row.key, expect_cart(1, row.key, shown + 1)),
            class_name=button_class("outline", "icon"),
        ),
        class_name="flex items-center",
    )


def cart_item(row: CartRow) -> rx.Component:
    return rx.el.li(
        picture(
            row.image_url, row.name, 96, loading="lazy",
            class_name="h-24 w-24 shrink-0 rounded-md bg-gray-100 object-cover",
        ),
        rx.el.div(
            rx.el.h3(row.name, class_name="font-semibold text-gray-900"),
            rx.el.p(row.description, class_name="line-clamp-2 text-sm text-gray-600"),
            rx.el.div(
                badge(row.brand, variant="brand", class_name="capitalize"),
                badge(row.category, variant="outline"),
                class_name="mt-1 flex flex-wrap gap-2",
            ),
            rx.el.div(
                rx.el.span(row.price_text, class_name="font-bold text-gray-900"),
                rx.cond(
                    row.has_discount,
                    rx.fragment(
                        rx.el.span(" was", class_name="sr-only"),
                        rx.el.s(row.original_text, class_name="text-sm text-gray-600"),
                    ),
                ),
                class_name="mt-2 flex items-baseline gap-2",
            ),
            rx.el.div(
                quantity_controls(row),
                rx.el.button(
                    icon("trash-2", 16),
                    type="button",
                    aria_label="Remove " + row.name + " from cart",
                    disabled=CartState.updating,
                    on_click=CartState.remove(row.key, expect_cart(-line_quantity(row.key, row.quantity), row.key, 0)),
                    class_name=button_class("ghost", "icon", "text-red-700"),
                ),
                class_name="mt-3 flex items-center justify-between",
            ),
            rx.cond(row.short, stock_fix(row.stock_text, row.available, row.name, CartState.fit_to_stock(row.key),
                                         CartState.updating)),
            class_name="min-w-0 flex-1",
        ),
        # A line removed at the tap is hidden until the server's answer takes it away.
        hidden=line_quantity(row.key, row.quantity) == 0,
        class_name="flex gap-4 border-b border-gray-200 p-4 last:border-b-0",
    )


def order_summary() -> rx.Component:
    promise = returns_promise(get_settings().returns.days)  # the page is built for its settings
    return card(
        rx.el.h2("Order Summary", class_name="text-lg font-bold text-gray-900"),
        rx.el.dl(
            total_row("Subtotal", CartState.totals.subtotal_text),
            rx.cond(CartState.totals.has_savings, total_row("You save", CartState.totals.savings_text, "text-green-800")),
            total_row("Shipping", CartState.totals.shipping_text),
            tax_rows(CartState.totals.tax_lines),
            class_name="mt-4 space-y-2",
        ),
        rx.el.form(
            rx.el.label("Coupon code", html_for="coupon-code", class_name="sr-only"),
            rx.el.input(
                id="coupon-code", name="coupon", placeholder="Coupon code (optional)", max_length=64,
                on_change=CartState.set_coupon.debounce(300), class_name=FIELD_INPUT,
                **browser_owned("coupon-code", CartState.coupon, CartState.coupon_version),
            ),
            button("Apply", variant="outline", type="submit"),
            on_submit=CartState.apply_coupon,
            class_name="mt-4 flex gap-2",
        ),
        rx.cond(
            CartState.totals.free_shipping_gap_text != "",
            rx.el.p(
                "Add ", CartState.totals.free_shipping_gap_text, " more for free shipping",
                class_name="mt-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900",
            ),
        ),
        # The total and the checkout button; on phones a bar fixed to the bottom of the screen, so
        # they stay in sight however long the cart is (the layout pads the page for it).
        rx.el.div(
            rx.el.div(
                rx.el.span("Total", class_name="text-base font-bold"),
                rx.el.span(CartState.totals.total_text, class_name="text-xl font-extrabold"),
                class_name="flex items-center justify-between max-lg:flex-col max-lg:items-start max-lg:leading-tight",
            ),
            rx.el.div(checkout_button(), class_name="lg:mt-4 max-lg:flex-1 [&>*]:mt-0"),
            id="checkout-bar",
            class_name="mt-4 border-t border-gray-200 pt-4 max-lg:fixed max-lg:inset-x-0 max-lg:bottom-0 max-lg:z-20 "
            "max-lg:mt-0 max-lg:flex max-lg:items-center max-lg:gap-4 max-lg:bg-white max-lg:px-4 max-lg:pb-3 "
            "max-lg:pt-3 max-lg:shadow-[0_-4px_12px_rgba(0,0,0,0.08)]",
        ),
        rx.el.ul(
            rx.el.li(icon("shield-check", 16, class_name="text-green-700"), "Secure checkout", class_name="flex items-center gap-2"),
            *([rx.el.li(icon("rotate-ccw", 16, class_name="text-green-700"), promise, class_name="flex items-center gap-2")]
              if promise else []),
            class_name="mt-4 space-y-1 text-sm text-gray-700",
        ),
        whatsapp_chat(CartState.chat_url),
        class_name="p-5 lg:sticky lg:top-20",
    )


def checkout_button() -> rx.Component:
    """'Proceed to Checkout'. Signed in with nothing to fix, it goes straight to the checkout page
    in the browser, the typed coupon in its address (/checkout?coupon=...): the page's load is the
    tap's only round trip. (Sending the coupon as an event of its own beside the redirect made a
    second, sequential exchange whenever the phone was slow to navigate.) Otherwise the server
    says why not (a guest logs in first, a short line is fixed)."""
    def proceed(on_click) -> rx.Component:
        return button("Proceed to Checkout", icon("arrow-right", 16), size="lg", on_click=on_click,
                      disabled=CartState.updating, class_name="mt-4 w-full justify-center")

    return rx.cond(
        SessionState.is_logged_in & (CartState.short_lines == 0),
        proceed(rx.redirect(CHECKOUT_WITH_TYPED_COUPON)),
        proceed(CartState.checkout(COUPON_TYPED)),
    )


def cart() -> rx.Component:
    return layout(
        rx.cond(
            ~CartState.loaded,
            spinner("Loading cart..."),
            rx.cond(
                CartState.rows.length() == 0,
                empty_state("shopping-cart", "Your cart is empty", "Find something you love in our deals.", "Continue Shopping"),
                rx.el.div(
                    rx.el.div(
                        rx.el.div(
                            rx.el.h1("Shopping Cart", class_name="text-2xl font-bold text-gray-900 sm:text-3xl"),
                            rx.el.p(CartState.item_count_text, class_name="text-sm text-gray-600"),
                        ),
                        button(icon("refresh-cw", 16), "Refresh Cart", variant="outline", on_click=CartState.refresh),
                        class_name="mb-4 flex items-end justify-between gap-4",
                    ),
                    rx.el.div(
                        card(rx.el.ul(rx.foreach(CartState.rows, cart_item), aria_label="Cart items"), class_name="lg:col-span-2"),
                        order_summary(),
                        class_name="grid grid-cols-1 items-start gap-6 lg:grid-cols-3",
                    ),
                ),
            ),
        )
    )
