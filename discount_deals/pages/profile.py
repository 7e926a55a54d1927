"""Profile (/profile): avatar, 'Personal Info', 'Addresses' and 'Your data' tabs. Guests are sent to /login."""

import reflex as rx

from ..components.blocks import list_or_note
from ..components.layout import layout
from ..components.ui import (
    FIELD_INPUT,
    FIELD_LABEL,
    badge,
    button,
    button_class,
    card,
    icon,
    labelled_upload,
    picture,
    spinner,
    submit_button,
    tab_button,
)
from ..components.notification_prefs import notification_preferences
from ..components.optimistic import sent_unanswered, submit_tap
from ..components.your_data import your_data
from ..services.users import GHANA_REGIONS
from ..state.account.profile import AVATAR_UPLOAD_ID, MAX_PHOTO_BYTES, AddressView, ProfileState
from ..state.account.session import SessionState

IMAGE_TYPES = {"image/png": [".png"], "image/jpeg": [".jpg", ".jpeg"], "image/gif": [".gif"], "image/webp": [".webp"]}


def _field(label: str, name: str, value, input_id: str, hint: str | None = None, **props) -> rx.Component:
    props.setdefault("type", "text")
    return rx.el.div(
        rx.el.label(label, html_for=input_id, class_name=FIELD_LABEL),
        rx.el.input(id=input_id, name=name, default_value=value, class_name=FIELD_INPUT, **props),
        rx.el.p(hint, class_name="mt-1 text-xs text-gray-600") if hint else rx.fragment(),
    )


def avatar() -> rx.Component:
    return rx.el.div(
        rx.cond(
            ProfileState.profile_image != "",
            picture(
                ProfileState.profile_image,
                "Profile photo",
                96,
                class_name="h-24 w-24 rounded-full object-cover",
            ),
            rx.el.span(
                ProfileState.initial,
                aria_label="Profile photo placeholder",
                role="img",
                class_name="flex h-24 w-24 items-center justify-center rounded-full bg-orange-700 text-4xl font-bold text-white",
            ),
        ),
        labelled_upload(
            rx.upload.root(
                rx.el.span(
                    icon("camera", 16),
                    rx.cond(ProfileState.uploading, "Uploading...", "Change photo"),
                    class_name=button_class("outline", "sm"),
                ),
                id=AVATAR_UPLOAD_ID,
                accept=IMAGE_TYPES,
                multiple=False,
                max_files=1,
                max_size=MAX_PHOTO_BYTES,
                no_drag=True,
                disabled=ProfileState.uploading,
                on_drop=ProfileState.upload_photo(rx.upload_files(upload_id=AVATAR_UPLOAD_ID)),
                on_drop_rejected=ProfileState.photo_rejected,
                aria_label="Change photo",
                class_name="cursor-pointer",
            ),
            "New photo file",
        ),
        class_name="flex flex-col items-center gap-3",
    )


def _tab(label: str, value: str) -> rx.Component:
    selected = ProfileState.tab == value
    return tab_button(
        label,
        tab_id=f"tab-{value}",
        panel_id=f"panel-{value}",
        selected=selected,
        on_click=ProfileState.set_tab(value),
        # min-w-0: three tabs share a 320 px screen, a long label wraps instead of widening the page.
        selected_class="min-w-0 flex-1 rounded-md bg-white px-2 py-2 text-sm font-semibold text-gray-900 shadow-sm "
                       "sm:px-4",
        idle_class="min-w-0 flex-1 rounded-md px-2 py-2 text-sm font-medium text-gray-700 hover:text-gray-900 sm:px-4",
    )


def _panel(content: rx.Component, value: str) -> rx.Component:
    """The panel a tab shows (the others stay in the page, hidden)."""
    return rx.el.div(content, role="tabpanel", id=f"panel-{value}", aria_labelledby=f"tab-{value}",
                     hidden=ProfileState.tab != value, class_name="mt-6")


def personal_info() -> rx.Component:
    return rx.el.form(
        rx.el.div(
            _field("First Name", "first_name", ProfileState.first_name, "profile-first-name", required=True),
            _field("Last Name", "last_name", ProfileState.last_name, "profile-last-name", required=True),
            _field("Username", "username", ProfileState.username, "profile-username", required=True),
            _field("Email", "email", ProfileState.email, "profile-email", type="email", required=True),
            _field("Phone Number", "phonenumber", ProfileState.phonenumber, "profile-phone", type="tel", required=True),
            _field(
                "Date of Birth", "date_of_birth", ProfileState.date_of_birth, "profile-dob", type="date", required=True
            ),
            _field(
                "Gender", "gender", ProfileState.gender, "profile-gender", hint="male | female | other", required=True
            ),
            _field("Website", "website", ProfileState.website, "profile-website", type="url", placeholder="https://"),
            # Issue 32: a new email or phone needs the current password (a stolen session is not enough).
            _field("Current password", "current_password", "", "profile-current-password", type="password",
                   hint="Only needed to change your email or phone number", auto_complete="current-password"),
            class_name="grid gap-4 sm:grid-cols-2",
        ),
        rx.el.div(
            rx.el.label("Bio", html_for="profile-bio", class_name=FIELD_LABEL),
            rx.el.textarea(
                id="profile-bio", name="bio", default_value=ProfileState.bio, rows=4, class_name=FIELD_INPUT
            ),
            class_name="mt-4",
        ),
        submit_button(ProfileState.saving | sent_unanswered("profile", ProfileState.answered_tap), "Save Changes",
                      "Saving...", class_name="mt-6"),
        key=ProfileState.form_version,
        on_submit=lambda form: ProfileState.save(form, submit_tap("profile")),
    )


def address_item(address: AddressView) -> rx.Component:
    busy = ProfileState.address_busy != ""
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.p(address.line1, class_name="font-semibold text-gray-900"),
                rx.cond(address.is_default, badge("Default", variant="success")),
                class_name="flex items-center gap-2",
            ),
            rx.cond(address.line2 != "", rx.el.p(address.line2, class_name="text-sm text-gray-700")),
            rx.el.p(
                address.city,
                rx.cond(address.state != "", ", " + address.state, ""),
                rx.cond(address.postal_code != "", " " + address.postal_code, ""),
                class_name="text-sm text-gray-700",
            ),
            rx.el.p(address.country, class_name="text-sm text-gray-700"),
            class_name="min-w-0 flex-1",
        ),
        rx.el.div(
            rx.cond(
                ~address.is_default,
                button(
                    "Set Default",
                    variant="outline",
                    size="sm",
                    disabled=busy,
                    on_click=ProfileState.set_default(address.id),
                ),
            ),
            rx.el.button(
                icon("trash-2", 16),
                type="button",
                aria_label="Delete address " + address.line1,
                disabled=busy,
                on_click=ProfileState.delete_address(address.id),
                class_name=button_class("ghost", "icon", "text-red-700"),
            ),
            class_name="flex items-center gap-2",
        ),
        class_name="flex items-start gap-4 border-b border-gray-200 py-4 last:border-b-0",
    )


def address_form() -> rx.Component:
    def field(label, name, input_id, required=False, **props):
        return rx.el.div(
            rx.el.label(label, html_for=input_id, class_name=FIELD_LABEL),
            rx.el.input(id=input_id, name=name, type="text", required=required, class_name=FIELD_INPUT, **props),
        )

    return rx.el.form(
        rx.el.h3("Add a new address", class_name="text-base font-semibold text-gray-900"),
        rx.el.div(
            field("Line 1", "line1", "address-line1", required=True),
            field("Line 2", "line2", "address-line2"),
            field("City", "city", "address-city", required=True),
            # In Ghana the state is one of the 16 regions (issue 32): the browser suggests them.
            field("State", "state", "address-state", list="ghana-regions"),
            rx.el.datalist(*[rx.el.option(value=region) for region in GHANA_REGIONS], id="ghana-regions"),
            field("Postal Code", "postal_code", "address-postal-code"),
            field("Country", "country", "address-country", required=True),
            class_name="mt-3 grid gap-4 sm:grid-cols-2",
        ),
        rx.el.div(
            rx.el.input(
                id="address-default", name="is_default", type="checkbox", class_name="h-4 w-4 accent-orange-700"
            ),
            rx.el.label("Set as default", html_for="address-default", class_name="text-sm text-gray-800"),
            class_name="mt-4 flex items-center gap-2",
        ),
        submit_button(ProfileState.adding | sent_unanswered("address", ProfileState.answered_tap), "Add Address",
                      "Adding...", class_name="mt-4"),
        key=ProfileState.address_form_version,
        on_submit=lambda form: ProfileState.add_address(form, submit_tap("address")),
        class_name="mt-6 border-t border-gray-200 pt-6",
    )


def addresses() -> rx.Component:
    return rx.el.div(
        list_or_note(ProfileState.addresses, address_item, "No saved addresses yet.", note_class="py-4 text-sm text-gray-600",
                     aria_label="Saved addresses"),
        address_form(),
    )


def profile_body() -> rx.Component:
    return rx.el.div(
        rx.el.h1("My Profile", class_name="mb-6 text-3xl font-bold text-gray-900"),
        rx.el.div(
            card(
                avatar(),
                rx.el.p(SessionState.full_name, class_name="mt-4 text-center font-semibold text-gray-900"),
                rx.el.p(ProfileState.email, class_name="text-center text-sm text-gray-600"),
                class_name="p-6",
            ),
            card(
                rx.el.div(
                    _tab("Personal Info", "personal"),
                    _tab("Addresses", "addresses"),
                    _tab("Your data", "data"),
                    role="tablist",
                    aria_label="Profile sections",
                    class_name="flex gap-1 rounded-lg bg-gray-100 p-1",
                ),
                _panel(rx.fragment(personal_info(), notification_preferences()), "personal"),
                _panel(addresses(), "addresses"),
                _panel(your_data(), "data"),
                class_name="p-6 lg:col-span-2",
            ),
            class_name="grid items-start gap-6 lg:grid-cols-3",
        ),
        class_name="mx-auto max-w-5xl",
    )


def profile() -> rx.Component:
    return layout(
        rx.cond(
            SessionState.is_logged_in & SessionState.auth_checked & ProfileState.loaded,
            profile_body(),
            spinner("Loading profile..."),
        )
    )
