"""The footer's legal pages (issue 32): /privacy (what is kept, why, for how long, who to ask:
Ghana's Data Protection Act 2012, Act 843), /terms and /cookies. Plain words, short sections."""

from __future__ import annotations

import reflex as rx

from .. import routes
from ..config.currency import name_of
from ..config.settings import get_settings
from ..display import returns_promise
from ..components.layout import layout
from ..components.ui import card

CONTACT = "support@discountdeals.com.gh"
UPDATED = "Last updated: 27 November 2026"


def _section(title: str, *paragraphs: str | rx.Component) -> rx.Component:
    return rx.el.section(
        rx.el.h2(title, class_name="mt-6 text-lg font-semibold text-gray-900"),
        *[rx.el.p(text, class_name="mt-2 text-gray-800") if isinstance(text, str) else text for text in paragraphs],
    )


def _list(*items: str) -> rx.Component:
    return rx.el.ul(*[rx.el.li(item) for item in items], class_name="mt-2 list-disc space-y-1 pl-5 text-gray-800")


def _page(title: str, *sections: rx.Component) -> rx.Component:
    return layout(
        rx.el.article(
            card(
                rx.el.h1(title, class_name="text-3xl font-bold text-gray-900"),
                rx.el.p(UPDATED, class_name="mt-1 text-sm text-gray-600"),
                *sections,
                class_name="p-6 sm:p-8",
            ),
            class_name="mx-auto w-full max-w-3xl",
        )
    )


def privacy() -> rx.Component:
    return _page(
        "Privacy Policy",
        _section("Who we are", "Discount Deals, Oxford Street, Osu, Accra, Ghana, runs this shop and decides how "
                 "your personal data is used. We follow Ghana's Data Protection Act, 2012 (Act 843)."),
        _section("What we keep", _list(
            "Your account: name, email address, phone number, and, if you give them, birthday, gender and photo.",
            "Your delivery addresses, and the phone number the rider or the pickup store calls.",
            "Your orders: what you bought, prices, delivery or pickup, and how you paid (the mobile money number "
            "and network; never your PIN).",
            "Your cart, favourites and message preferences, and the messages we sent you.",
        )),
        _section("Why we keep it", _list(
            "To deliver your orders and take payment (the contract between us).",
            "To tell you about your orders and, only if you turn them on, about deals (your consent).",
            "To keep the accounts and tax records the law asks of a shop (a legal duty).",
            "To keep the shop safe from fraud and abuse (our legitimate interest).",
        )),
        _section("How long", _list(
            "Your account: until you close it.",
            "Orders and payments: at least 6 years, as the Revenue Administration Act, 2016 (Act 915) asks of "
            "a shop's books; once your account is closed they are kept without your name, email, phone or street.",
            "Messages we sent: with your account; a password reset code or link is erased once sent, and when "
            "the account is closed the messages keep no address or text.",
        )),
        _section("Who sees it", "Our staff, the rider or store that hands over your order, the mobile money "
                 "provider that takes your payment, and the SMS and email services that carry our messages. "
                 "We do not sell your data."),
        _section(
            "Your rights",
            "You may see, correct and download your data, and close your account, in ",
            rx.el.a("My Profile → Your data", href=routes.PROFILE + "?tab=data",
                    class_name="font-medium text-orange-800 underline"),
            ". You may object to how we use it and complain to the Data Protection Commission of Ghana.",
        ),
        _section("Contact", f"Write to {CONTACT} or call +233 30 290 0000 (Mon – Sat, 8:00 – 18:00). We answer "
                 "within 30 days."),
    )


def terms() -> rx.Component:
    settings = get_settings()  # read when the page is built, as the shop is built for its settings
    return _page(
        "Terms of Service",
        _section("Prices and deals", f"Prices are in {name_of(settings.currency.code)} and include the discounts "
                 "shown. A deal ends at the time shown on the product; the price you pay is the one at checkout."),
        _section("Orders", "An order is placed when you see its confirmation. We may cancel an order we cannot "
                 "fill; if you paid, we refund you in full."),
        _section("Payment", "Pay by mobile money or in cash on delivery (or at pickup). An unpaid mobile-money "
                 "order is cancelled when its payment time is up, and its items go back on sale."),
        _section("Delivery and pickup", "Delivery is free over the amount shown at checkout; pickup at a partner "
                 "store is free. Bring your order number to the store."),
        _section("Returns", f"{returns_promise(settings.returns.days)} of delivery, in the state you received the "
                 "item." if settings.returns.days else "Items are not taken back once delivered."),
        _section("Contact", f"Questions: {CONTACT}."),
    )


def cookies() -> rx.Component:
    return _page(
        "Cookie Policy",
        _section("What we store in your browser", "We use no advertising or tracking cookies. Your browser keeps "
                 "only what the shop needs to work:"),
        _list("Your sign-in (a token that expires), so you stay signed in.",
              "A guest's cart and favourites, until you sign in.",
              "The shop's pages and pictures you have seen, so it opens fast and works offline."),
        _section("Your choice", "You can clear them in your browser's settings at any time: you are then signed out "
                 "and a guest's cart is emptied."),
    )
