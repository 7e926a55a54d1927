"""The checkout's delivery details: the Ghanaian address form (region, GhanaPost GPS digital
address, landmark, city or town), the contact phone the rider calls, and a review line with its
stock mark and one-tap fix."""

from __future__ import annotations

import reflex as rx

from ..services.users import GHANA_REGIONS
from ..state.account.session import SessionState
from ..state.drafts import CHECKOUT_ADDRESS
from ..state.shop.checkout import CheckoutState
from ..state.shop.checkout_details import ADDRESS_FORM_ID, CONTACT_HINT, PLACE_FORM_ID
from .stock_note import stock_fix
from .ui import FIELD_INPUT, FIELD_LABEL, PHONE_AS_WRITTEN, browser_owned, button, picture

C = CheckoutState
INVALID = " aria-[invalid=true]:border-red-600"  # a field the server refused


def _error(name: str) -> rx.Var:
    return C.address_errors.get(name, "")


def _described(input_id: str, name: str, hint: str) -> dict:
    """aria-invalid and aria-describedby for a field with a hint or an error under it."""
    props: dict = {"aria_invalid": rx.cond(_error(name) != "", "true", "false")}
    if hint:
        props["aria_describedby"] = input_id + "-note"
    else:
        props["aria_describedby"] = rx.cond(_error(name) != "", input_id + "-note", "")
    return props


def _note(input_id: str, name: str, hint: str) -> rx.Component:
    """The field's error (after a refused save), else its hint."""
    return rx.cond(
        _error(name) != "",
        rx.el.p(_error(name), id=input_id + "-note", class_name="mt-1 text-sm text-red-700"),
        rx.el.p(hint, id=input_id + "-note", class_name="mt-1 text-xs text-gray-600") if hint else rx.fragment(),
    )


def _field(label: str, name: str, *, required: bool = False, hint: str = "", wrapper_class: str = "",
           **props) -> rx.Component:
    input_id = "checkout-" + name
    optional = rx.el.span(" (optional)", class_name="font-normal text-gray-600")
    return rx.el.div(
        rx.el.label(label, rx.fragment() if required else optional, html_for=input_id, class_name=FIELD_LABEL),
        rx.el.input(id=input_id, name=name, type="text", required=required, class_name=FIELD_INPUT + INVALID,
                    **_described(input_id, name, hint), **props),
        _note(input_id, name, hint),
        class_name=wrapper_class,
    )


def _region_field() -> rx.Component:
    return rx.el.div(
        rx.el.label("Region", html_for="checkout-region", class_name=FIELD_LABEL),
        rx.el.select(
            rx.el.option("Choose the region", value="", disabled=True),
            *[rx.el.option(region, value=region) for region in GHANA_REGIONS],
            id="checkout-region", name="region", default_value="", required=True, auto_complete="address-level1",
            class_name=FIELD_INPUT + INVALID, **_described("checkout-region", "region", ""),
        ),
        _note("checkout-region", "region", ""),
    )


def address_form() -> rx.Component:
    """A Ghanaian address, saved to the account (region → state, GPS address → postal code,
    landmark → line 2, country Ghana). Checked on the server only, with a message per field."""
    return rx.el.form(
        rx.el.h3("Add a new address", class_name="text-base font-semibold text-gray-900"),
        rx.el.div(
            _field("Area and street", "line1", required=True, auto_complete="address-line1",
                   placeholder="e.g. East Legon, 12 Lagos Avenue", wrapper_class="sm:col-span-2"),
            _field("Landmark or directions", "landmark", hint="What the rider looks for: a shop, a church, the gate's colour.",
                   auto_complete="address-line2", placeholder="e.g. Opposite the Shell station",
                   wrapper_class="sm:col-span-2"),
            _field("City or town", "city", required=True, auto_complete="address-level2"),
            _region_field(),
            _field("GhanaPost GPS digital address", "gps", hint="Such as GA-123-4567 (in the GhanaPost GPS app).",
                   auto_complete="postal-code", placeholder="GA-123-4567", auto_capitalize="characters",
                   spell_check=False),
            rx.el.div(
                rx.el.p("Country", class_name=FIELD_LABEL),
                rx.el.p("Ghana", class_name="py-2 text-sm text-gray-900"),
            ),
            class_name="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2",
        ),
        rx.el.input(type="hidden", name="place_after", default_value=""),
        rx.el.div(
            rx.el.input(id="checkout-address-default", name="is_default", type="checkbox",
                        class_name="h-4 w-4 accent-orange-700"),
            rx.el.label("Set as default", html_for="checkout-address-default", class_name="text-sm text-gray-800"),
            class_name="mt-4 flex items-center gap-2",
        ),
        rx.el.div(
            button(rx.cond(C.saving_address, "Adding...", "Add Address"), type="submit", disabled=C.saving_address),
            rx.cond(C.addresses.length() > 0, button("Cancel", variant="ghost", on_click=C.close_address_form)),
            class_name="mt-4 flex gap-2",
        ),
        id=ADDRESS_FORM_ID,
        key=C.address_form_version,
        # What was typed survives a refresh, Back and Forward (assets/shop.js), for this account.
        custom_attrs={"data-keep-draft": CHECKOUT_ADDRESS + SessionState.user_id},
        on_submit=C.add_address,
        no_validate=True,  # the server's message under each field, not the browser's bubbles
        aria_label="Add a new address",
        class_name="mt-4 rounded-lg border border-dashed border-gray-300 p-4",
    )


def contact_phone_field(label: str, hint: str = CONTACT_HINT) -> rx.Component:
    """The number the rider (or the pickup store) calls, prefilled from the account."""
    return rx.el.div(
        rx.el.label(label, html_for="checkout-contact-phone", class_name=FIELD_LABEL),
        rx.el.input(
            id="checkout-contact-phone", name="contact_phone", type="tel", input_mode="tel", auto_complete="tel",
            placeholder="024 123 4567", enter_key_hint="done", required=True,
            on_change=C.set_contact_phone.debounce(300),
            on_blur=C.check_contact_phone(PHONE_AS_WRITTEN),
            aria_invalid=rx.cond(C.contact_phone_error != "", "true", "false"),
            aria_describedby="checkout-contact-phone-note",
            custom_attrs={"form": PLACE_FORM_ID, "data-enter": "done"},
            class_name=FIELD_INPUT + INVALID + " sm:max-w-xs",
            **browser_owned("checkout-contact-phone", C.contact_phone, C.fields_version),
        ),
        rx.cond(
            C.contact_phone_error != "",
            rx.el.p(C.contact_phone_error, id="checkout-contact-phone-note", role="alert",
                    class_name="mt-1 text-sm text-red-700"),
            rx.el.p(hint, id="checkout-contact-phone-note", class_name="mt-1 text-xs text-gray-600"),
        ),
        class_name="mt-5 border-t border-gray-200 pt-4",
    )


def review_line(line) -> rx.Component:
    """A review line: picture, name, "Qty: 2 × $4.00", the line's total, and its stock mark."""
    return rx.el.li(
        rx.el.div(
            picture(line.image_url, "", 48, loading="lazy", class_name="h-12 w-12 shrink-0 rounded-md bg-gray-100 object-cover"),
            rx.el.div(
                # The whole name, the last thing checked before paying ("... 25kg" at its end).
                rx.el.p(line.name, class_name="break-words text-sm font-medium text-gray-900"),
                rx.el.p("Qty: ", line.quantity, " × ", line.unit_text, class_name="text-xs text-gray-600"),
                class_name="min-w-0 flex-1",
            ),
            rx.el.span(line.line_text, class_name="text-sm font-semibold text-gray-900"),
            class_name="flex items-center gap-3",
        ),
        rx.cond(line.short, stock_fix(line.stock_text, line.available, line.name, C.fix_line(line.id),
                                      C.fixing | C.busy)),
        class_name="py-2",
    )
