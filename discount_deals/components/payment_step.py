"""The order page's mobile-money payment step: the code field (``send_otp``), the wait for the
prompt on the phone (``pay_offline``, ``pending``), and each outcome with a way to try again.

A test payment (the fake provider) says so in a banner: no money moves, and its "phone" is a
page of ours, linked from the wait."""

from __future__ import annotations

import reflex as rx

from ..state.account.order_detail import OrderDetailState
from ..state.shop.checkout_options import NETWORK_CHOICES
from .ui import FIELD_INPUT, FIELD_LABEL, button, icon

D = OrderDetailState
PANEL = "mt-6 rounded-lg border p-4 sm:p-5"


def _panel(tone: str, tag: str, title: str, *children) -> rx.Component:
    tones = {
        "info": "border-orange-200 bg-orange-50",
        "ok": "border-green-200 bg-green-50",
        "bad": "border-red-200 bg-red-50",
        "muted": "border-gray-200 bg-gray-50",
    }
    return rx.el.section(
        rx.el.h2(icon(tag, 18), title, class_name="flex items-center gap-2 text-base font-bold text-gray-900"),
        *children,
        aria_label="Payment step",
        class_name=f"{PANEL} {tones[tone]}",
    )


def test_banner() -> rx.Component:
    return rx.cond(
        D.payment_test,
        rx.el.p(
            icon("flask-conical", 16, class_name="shrink-0"),
            rx.el.span(rx.el.strong("Test payment: "), "no money moves. This shop's payments are in test mode."),
            role="note",
            class_name="mt-6 flex items-start gap-2 rounded-md border border-amber-300 bg-amber-100 px-3 py-2 "
                       "text-sm text-amber-950",
        ),
    )


def _phone() -> rx.Component:
    """The paying number, kept on one line (a cheap phone's narrow screen broke "024 123 / 4567")."""
    return rx.el.span(D.phone_text, class_name="whitespace-nowrap")


def _code_step() -> rx.Component:
    return _panel(
        "info", "key-round", "Enter the code from your phone",
        rx.el.p(rx.cond(D.payment_prompt != "", D.payment_prompt,
                        rx.fragment("Your network sent a code to ", _phone(), ": type it here to pay.")),
                class_name="mt-2 text-sm text-gray-800"),
        rx.el.form(
            rx.el.label("Code or voucher", html_for="payment-otp", class_name=FIELD_LABEL),
            rx.el.div(
                rx.el.input(
                    id="payment-otp", name="otp", input_mode="numeric",
                    auto_complete="one-time-code", max_length=16, placeholder="123456",
                    aria_invalid=rx.cond(D.otp_error != "", "true", "false"), aria_describedby="payment-otp-hint",
                    class_name=FIELD_INPUT + " min-w-0 flex-1",
                ),
                button(rx.cond(D.working == "code", "Confirming...", "Pay " + D.totals.total_text), type="submit",
                       disabled=D.working != "", class_name="shrink-0"),
                class_name="flex gap-2",
            ),
            rx.cond(D.otp_error != "",
                    rx.el.p(D.otp_error, id="payment-otp-hint", role="alert", class_name="mt-1 text-sm text-red-700"),
                    rx.el.p("Paying ", D.totals.total_text, " from ", _phone(), " (", D.network_text, ").",
                            id="payment-otp-hint", class_name="mt-1 text-xs text-gray-700")),
            on_submit=D.submit_code,
            aria_label="Payment code",
            class_name="mt-3",
        ),
    )


def _phone_step() -> rx.Component:
    return _panel(
        "info", "smartphone", "Approve the prompt on your phone",
        rx.el.p(
            rx.cond(D.pay_stage == "pending", "We are waiting for " + D.network_text + " to send the prompt to ",
                    "We sent a payment request to "),
            rx.el.strong(_phone()), " (", D.network_text, "). Enter your mobile money PIN on the phone to pay ",
            rx.el.strong(D.totals.total_text), ".",
            class_name="mt-2 text-sm text-gray-800",
        ),
        rx.el.p(
            rx.el.span(class_name="h-4 w-4 shrink-0 animate-spin rounded-full border-2 border-orange-300 "
                                  "border-t-orange-700"),
            rx.cond(D.working == "check", "Checking your payment...",
                    "Waiting for your approval: we check every 10 seconds."),
            role="status",
            class_name="mt-3 flex items-center gap-2 text-sm text-gray-700",
        ),
        rx.el.div(
            button("I have approved it", variant="outline", on_click=D.check_payment, disabled=D.working != ""),
            rx.cond(D.test_phone_url != "",
                    # A page of the API, not of the app: a full page load (reload_document).
                    rx.el.a(icon("smartphone", 16), "Open the test phone", href=D.test_phone_url, reload_document=True,
                            class_name="inline-flex items-center gap-1 text-sm font-semibold text-orange-800 "
                                       "underline")),
            class_name="mt-3 flex flex-wrap items-center gap-3",
        ),
    )


def _retry(label: str) -> rx.Component:
    return button(icon("rotate-ccw", 16), rx.cond(D.working == "pay", "Starting payment...", label),
                  on_click=D.pay_again, disabled=D.working != "", class_name="mt-3")


def _another_number() -> rx.Component:
    """Pay from another number or network (the browser's fields, prefilled with the last ones)."""
    return rx.el.details(
        rx.el.summary("Use another number or network",
                      class_name="mt-3 cursor-pointer text-sm font-semibold text-orange-800"),
        rx.el.form(
            rx.el.div(
                rx.el.label("Mobile money number", html_for="repay-phone", class_name=FIELD_LABEL),
                rx.el.input(id="repay-phone", name="phone", type="tel", input_mode="tel", auto_complete="tel",
                            default_value=D.phone_text, max_length=32, required=True,
                            aria_invalid=rx.cond(D.number_error != "", "true", "false"),
                            aria_describedby="repay-phone-note", class_name=FIELD_INPUT),
                rx.cond(D.number_error != "",
                        rx.el.p(D.number_error, id="repay-phone-note", role="alert",
                                class_name="mt-1 text-sm text-red-700")),
            ),
            rx.el.div(
                rx.el.label("Network", html_for="repay-network", class_name=FIELD_LABEL),
                rx.el.select(*[rx.el.option(name, value=code) for code, name in NETWORK_CHOICES],
                             id="repay-network", name="network", default_value=D.network, class_name=FIELD_INPUT),
            ),
            button(rx.cond(D.working == "pay", "Starting payment...", "Pay from this number"), type="submit",
                   disabled=D.working != "", class_name="sm:col-span-2 sm:justify-self-start"),
            on_submit=D.pay_from_number,
            aria_label="Another number",
            class_name="mt-3 grid gap-3 sm:grid-cols-2",
        ),
    )


def _way_out() -> rx.Component:
    """After a failed charge: try again, pay in cash instead, or from another number (issue 32)."""
    return rx.el.div(
        rx.el.div(
            _retry("Try again"),
            button(rx.cond(D.working == "cash", "Changing...",
                           rx.cond(D.pickup, "Pay at pickup instead", "Pay cash on delivery instead")),
                   variant="outline", on_click=D.pay_cash_instead, disabled=D.working != "", class_name="mt-3"),
            class_name="flex flex-wrap gap-3",
        ),
        _another_number(),
    )


def payment_step() -> rx.Component:
    """The step the order's payment is at (nothing for cash orders)."""
    return rx.fragment(
        rx.cond(D.pay_stage != "", test_banner()),
        rx.match(
            D.pay_stage,
            ("send_otp", _code_step()),
            ("pay_offline", _phone_step()),
            ("pending", _phone_step()),
            ("start", _panel("bad", "circle-alert", "Payment not started",
                             rx.el.p("We could not reach the payment service. Your order is saved.",
                                     class_name="mt-2 text-sm text-gray-800"),
                             _retry("Pay now"))),
            ("failed", _panel("bad", "circle-x", "Payment failed",
                              rx.el.p(rx.cond(D.payment_prompt != "", D.payment_prompt,
                                              "The mobile money payment was not completed."),
                                      role="alert", class_name="mt-2 text-sm text-gray-800"),
                              rx.el.p("You were not charged. Try again, pay from another number, or pay in cash "
                                      "instead.", class_name="mt-1 text-sm text-gray-700"),
                              _way_out())),
            ("expired", _panel("muted", "clock", "Payment time is up",
                               rx.el.p("The order was cancelled because the payment did not arrive in time. "
                                       "You were not charged.", class_name="mt-2 text-sm text-gray-800"))),
            ("paid", _panel("ok", "circle-check", "Payment received",
                            rx.el.p(D.totals.total_text, " paid from ", _phone(), " (", D.network_text, ").",
                                    class_name="mt-2 text-sm text-gray-800"))),
            ("checking", _panel("muted", "shield-alert", "Payment being checked",
                                rx.el.p("Our team is checking this payment.", class_name="mt-2 text-sm text-gray-800"))),
            rx.fragment(),
        ),
    )
