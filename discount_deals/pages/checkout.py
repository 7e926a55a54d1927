"""Checkout (/checkout): delivery or pickup, the address or store, the payment method, the review."""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.blocks import empty_state, grand_total_row, list_or_note, tax_rows, total_row
from ..components.checkout_details import address_form, contact_phone_field, review_line
from ..components.ui import FIELD_INPUT, FIELD_LABEL, PHONE_AS_WRITTEN, browser_owned, button, button_class, card, icon, spinner
from ..components.optimistic import sent_unanswered, submit_tap
from ..state.shop.checkout import PLACING, CheckoutState
from ..state.shop.checkout_details import PICKUP_CONTACT_HINT, PLACE_FORM_ID
from ..state.shop.checkout_options import NETWORK_CHOICES, AddressOption, StoreOption
from ..state.account.session import SessionState

C = CheckoutState
SECTION_TITLE = "flex items-center gap-2 text-lg font-bold text-gray-900"
CHOICE = (
    "flex cursor-pointer items-start gap-3 rounded-lg border p-4 transition-colors "
    "has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-orange-300"
)
# The card of the checked radio is highlighted by the browser (its own radio's state), at once.
CHOICE_CARD = CHOICE + " border-gray-300 bg-white hover:bg-gray-50 has-[:checked]:border-orange-700 has-[:checked]:bg-orange-50"
RADIO = "mt-1 h-4 w-4 shrink-0 accent-orange-700"
COUPON_FORM_ID = "checkout-coupon-form"


def _step(number: str, title: str) -> rx.Component:
    return rx.el.h2(
        rx.el.span(number, aria_hidden="true",
                   class_name="flex h-7 w-7 items-center justify-center rounded-full bg-orange-700 text-sm text-white"),
        title,
        class_name=SECTION_TITLE,
    )


def _choice(name: str, value, selected, on_change, title, detail, input_id, trailing=None) -> rx.Component:
    """A radio button inside a card-sized label (the whole card is the click target). The radio is
    the browser's: a tap checks it at once, and the server's answer follows (one round trip)."""
    return rx.el.label(
        rx.el.input(type="radio", name=name, id=input_id, value=value, on_change=on_change, disabled=C.busy,
                    class_name=RADIO, **browser_owned(input_id, selected, C.choice_version, checked=True)),
        rx.el.span(
            rx.el.span(title, class_name="block font-semibold text-gray-900"),
            rx.el.span(detail, class_name="block text-sm text-gray-600"),
            class_name="min-w-0 flex-1",
        ),
        trailing if trailing is not None else rx.fragment(),
        html_for=input_id,
        class_name=CHOICE_CARD,
    )


# --- 1. delivery -------------------------------------------------------------------------------


def delivery_section() -> rx.Component:
    return card(
        _step("1", "Delivery"),
        rx.el.div(
            _choice(
                "delivery_method", "delivery", ~C.pickup, C.set_delivery, "Home delivery",
                "Free over " + C.free_over_text + ", otherwise " + C.delivery_fee_text + ".",
                "delivery-home",
                rx.el.span(C.home_delivery_text, class_name=rx.cond(C.home_delivery_text == "Free", "font-semibold text-green-800",
                                                                    "font-semibold")),
            ),
            _choice(
                "delivery_method", "pickup", C.pickup, C.set_delivery, "Pickup at a partner store",
                "Collect your order at a Shoprite or Melcom store near you.",
                "delivery-pickup",
                rx.el.span("Free", class_name="font-semibold text-green-800"),
            ),
            role="radiogroup",
            aria_label="Delivery method",
            class_name="mt-4 grid gap-3 sm:grid-cols-2",
        ),
        class_name="p-5",
    )


# --- 2. address or store -------------------------------------------------------------------------


def _address_choice(address: AddressOption) -> rx.Component:
    return rx.el.li(
        _choice(
            "address_id", address.id, C.address_id == address.id, C.set_address,
            address.title, address.detail, "address-" + address.id,
            rx.cond(address.is_default,
                    rx.el.span("Default", class_name="rounded-full bg-gray-200 px-2 py-0.5 text-xs font-semibold")),
        )
    )


def address_section() -> rx.Component:
    return card(
        _step("2", "Delivery address"),
        list_or_note(C.addresses, _address_choice, "No saved address yet: add the address to deliver to.",
                     note_class="mt-3 text-sm text-gray-700", aria_label="Saved addresses", class_name="mt-4 grid gap-3"),
        rx.cond(
            C.address_form_open,
            address_form(),
            rx.el.button(
                icon("plus", 16), "Add a new address", type="button", on_click=C.open_address_form,
                class_name=button_class("outline", "md", "mt-4"),
            ),
        ),
        contact_phone_field("Phone number for the rider"),
        class_name="p-5",
    )


def _store_choice(store: StoreOption) -> rx.Component:
    return rx.el.li(
        _choice(
            "pickup_store", store.id, C.store_id == store.id, C.set_store,
            store.name, rx.fragment(store.detail, rx.el.br(), store.hours), "store-" + store.id,
        )
    )


def store_section() -> rx.Component:
    return card(
        _step("2", "Pickup store"),
        list_or_note(C.stores, _store_choice, "No pickup store is open for orders right now. Please choose home delivery.",
                     note_class="mt-3 text-sm text-gray-700", aria_label="Pickup stores",
                     class_name="mt-4 grid gap-3 sm:grid-cols-2"),
        rx.cond(C.store_error != "", rx.el.p(C.store_error, id="checkout-store-error", role="alert",
                                             class_name="mt-2 text-sm font-medium text-red-700")),
        rx.el.p("We will tell you when your order is ready to collect. Bring your order number.",
                class_name="mt-3 text-sm text-gray-600"),
        contact_phone_field("Phone number", PICKUP_CONTACT_HINT),
        class_name="p-5",
    )


# --- 3. payment ----------------------------------------------------------------------------------


def _network_field() -> rx.Component:
    """The network, guessed from the number as it is typed until the shopper picks one
    (numbers move between networks: the prefix is only a guess)."""
    return rx.el.div(
        rx.el.label("Network", html_for="checkout-network", class_name=FIELD_LABEL),
        rx.el.select(
            *[rx.el.option(name, value=code) for code, name in NETWORK_CHOICES],
            id="checkout-network", on_change=C.set_network, class_name=FIELD_INPUT,
            aria_describedby="checkout-network-hint",
            **browser_owned("checkout-network", C.network, C.network_version),
        ),
        rx.el.p(rx.cond(C.network_picked, "The network you chose is charged.",
                        "Guessed from the number: change it if your number moved to another network."),
                id="checkout-network-hint", class_name="mt-1 text-xs text-gray-600"),
    )


def mobile_money_fields() -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.label("Mobile money number", html_for="checkout-phone", class_name=FIELD_LABEL),
            rx.el.input(
                id="checkout-phone", name="phone", type="tel", input_mode="tel", auto_complete="tel",
                placeholder="024 123 4567", enter_key_hint="done",
                # The network follows the number after a pause; leaving the field writes the
                # number the usual way (in the browser) and has the server check it.
                on_change=C.set_phone.debounce(300),
                on_blur=C.check_phone(PHONE_AS_WRITTEN),
                aria_invalid=rx.cond(C.phone_error != "", "true", "false"),
                aria_describedby="checkout-phone-hint",
                custom_attrs={"form": PLACE_FORM_ID, "data-enter": "done"},
                class_name=FIELD_INPUT,
                **browser_owned("checkout-phone", C.phone, C.fields_version),
            ),
            rx.cond(
                C.phone_error != "",
                rx.el.p(C.phone_error, id="checkout-phone-hint", role="alert", class_name="mt-1 text-sm text-red-700"),
                rx.el.p("You approve the payment on this phone.", id="checkout-phone-hint",
                        class_name="mt-1 text-xs text-gray-600"),
            ),
        ),
        _network_field(),
        class_name="mt-4 grid gap-4 sm:grid-cols-2",
    )


def payment_section() -> rx.Component:
    return card(
        _step("3", "Payment"),
        rx.el.div(
            _choice("payment_method", "cash_on_delivery", ~C.mobile_money, C.set_payment,
                    rx.cond(C.pickup, "Pay at pickup", "Cash on delivery"),
                    C.cash_hint, "payment-cash", icon("banknote", 22, class_name="text-gray-700")),
            _choice("payment_method", "mobile_money", C.mobile_money, C.set_payment, "Mobile money",
                    "MTN MoMo, Telecel Cash or AirtelTigo Money.", "payment-momo",
                    icon("smartphone", 22, class_name="text-gray-700")),
            role="radiogroup",
            aria_label="Payment method",
            class_name="mt-4 grid gap-3 sm:grid-cols-2",
        ),
        rx.cond(C.mobile_money, mobile_money_fields()),
        class_name="p-5",
    )


# --- review ------------------------------------------------------------------------------------------


def coupon_field() -> rx.Component:
    return rx.cond(
        C.coupon_code != "",
        rx.el.div(
            rx.el.span(icon("tag", 14), "Coupon ", rx.el.strong(C.coupon_code),
                       class_name="flex items-center gap-1 text-sm text-green-800"),
            rx.el.button("Remove", type="button", on_click=C.remove_coupon,
                         class_name="text-sm font-medium text-orange-700 hover:underline"),
            class_name="mt-4 flex items-center justify-between",
        ),
        rx.el.div(
            rx.el.form(
                rx.el.label("Coupon code", html_for="checkout-coupon", class_name="sr-only"),
                rx.el.input(id="checkout-coupon", name="coupon", placeholder="Coupon code (optional)",
                            max_length=64, class_name=FIELD_INPUT,
                            **browser_owned("checkout-coupon", C.coupon, C.fields_version)),
                button("Apply", variant="outline", type="submit"),
                id=COUPON_FORM_ID,
                on_submit=C.apply_coupon,
                class_name="flex gap-2",
            ),
            rx.cond(C.coupon_error != "", rx.el.p(C.coupon_error, role="alert", class_name="mt-1 text-sm text-red-700")),
            class_name="mt-4",
        ),
    )


def review() -> rx.Component:
    # Busy from the tap (components/optimistic.submit_tap), then while the state places the order.
    placing = C.busy | sent_unanswered("place", C.answered_tap)
    return card(
        rx.el.h2("Review your order", class_name="text-lg font-bold text-gray-900"),
        rx.el.ul(rx.foreach(C.lines, review_line), aria_label="Order lines",
                 class_name="mt-3 divide-y divide-gray-100"),
        coupon_field(),
        rx.el.dl(
            total_row("Subtotal", C.totals.subtotal_text),
            rx.cond(C.totals.has_savings, total_row("You save", C.totals.savings_text, "text-green-800")),
            total_row(rx.cond(C.pickup, "Pickup", "Delivery"), C.totals.shipping_text),
            rx.cond(C.totals.has_discount, total_row("Coupon", C.totals.discount_text, "text-green-800")),
            tax_rows(C.totals.tax_lines),
            grand_total_row(C.totals.total_text),
            aria_label="Order total",
            class_name="mt-4 space-y-2",
        ),
        # The page's phone fields belong to this form (their form attribute), wherever they are.
        rx.el.form(
            button(
                rx.cond(placing, rx.el.span(class_name="h-4 w-4 animate-spin rounded-full border-2 border-white/40 "
                                                       "border-t-white")),
                "Place order",
                size="lg",
                type="submit",
                disabled=placing,
                aria_busy=rx.cond(placing, "true", "false"),
                class_name="mt-5 w-full justify-center",
            ),
            id=PLACE_FORM_ID,
            on_submit=lambda form: C.place_order(form, submit_tap("place")),
            no_validate=True,  # the server's messages, under the fields
        ),
        rx.el.p(
            rx.cond(placing, rx.cond(C.busy, C.place_label, PLACING),
                    rx.cond(C.mobile_money, "You will approve the payment with your network next.", C.cash_hint)),
            aria_live="polite",
            class_name="mt-2 text-center text-sm text-gray-600",
        ),
        rx.el.a("Back to cart", href=routes.CART,
                class_name="mt-3 flex min-h-11 items-center justify-center text-sm font-medium text-orange-700 "
                "hover:underline"),
        class_name="p-5 lg:sticky lg:top-20",
    )


def _recent_order() -> rx.Component:
    """An empty cart just after an order: where it is (its page may never have opened)."""
    return rx.cond(C.recent_order_href != "", rx.el.p(
        icon("circle-check", 16, class_name="shrink-0 text-green-700"), C.recent_order_text, " ",
        rx.el.a("View order", href=C.recent_order_href, class_name="tap-line font-semibold text-orange-700 underline"),
        role="status",
        class_name="mx-auto mt-6 flex max-w-md flex-wrap items-center gap-2 rounded-md bg-green-50 px-4 py-2 text-sm "
                   "text-green-900",
    ))


def checkout_body() -> rx.Component:
    return rx.el.div(
        rx.el.h1("Checkout", class_name="mb-6 text-2xl font-bold text-gray-900 sm:text-3xl"),
        rx.el.div(
            rx.el.div(
                delivery_section(),
                rx.cond(C.pickup, store_section(), address_section()),
                payment_section(),
                class_name="space-y-6 lg:col-span-2",
            ),
            review(),
            class_name="grid grid-cols-1 items-start gap-6 lg:grid-cols-3",
        ),
        class_name="mx-auto max-w-6xl",
    )


def checkout() -> rx.Component:
    return layout(
        rx.cond(
            SessionState.is_logged_in & C.loaded,
            rx.cond(C.empty & ~C.busy, rx.fragment(_recent_order(), empty_state(
                "shopping-cart", "Your cart is empty", "Add something to your cart to check out.", "Continue Shopping")),
                checkout_body()),
            spinner("Loading checkout..."),
        )
    )
