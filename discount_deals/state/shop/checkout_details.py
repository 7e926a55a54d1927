"""The checkout's delivery details: where to deliver (a saved address, or a Ghanaian one added on
the page), the phone number the rider calls, and the one-tap fixes of lines short of stock.

A mixin of :class:`.checkout.CheckoutState` (one flat state; this module keeps its address and
contact parts together). The rules are the services': ``services.users.add_ghana_address``
(region, GhanaPost GPS digital address, landmark) and ``services.phones`` / ``services.checkout``
(the contact phone), ``services.cart.fit_to_stock`` (the fixes).
"""

from __future__ import annotations

import reflex as rx

from ...db import session_scope, write_session
from ...models import User
from ...services import ServiceError, ValidationFailed
from ...services import cart as cart_service
from ...services import phones
from ...services import users as user_service
from ..actions import busy_call, toast
from ..drafts import CHECKOUT_ADDRESS, forget_drafts
from ..forms import form_checked, form_fields, form_text
from ..guards import user_event
from .checkout_options import AddressOption, address_option, network_for

ADDRESS_FORM_ID = "checkout-address-form"
PLACE_FORM_ID = "checkout-place"  # "Place order" submits it, with the page's phone fields
# The Ghanaian form's fields and the address field each is stored in (services.users).
GHANA_FIELDS = ("line1", "landmark", "city", "region", "gps")
FIELD_OF = {"line1": "line1", "line2": "landmark", "city": "city", "state": "region", "postal_code": "gps"}
# "Place order" with the form filled in but not saved yet: save it and place the order in one tap.
# requestSubmit() runs the browser's own checks of the required fields first; the submit handler
# reads the form synchronously, so the flag is set for this one submission only.
SAVE_THEN_PLACE = rx.call_script(
    f"(function(){{var f=document.getElementById('{ADDRESS_FORM_ID}');if(!f)return;"
    "f.elements.place_after.value='1';f.requestSubmit();f.elements.place_after.value='';})()"
)
# SPEC §8's words for a checkout without an address. The form is on the checkout page, open, and
# what it saves is one of the profile's addresses: the words hold without a detour.
ADDRESS_REQUIRED = "You cannot proceed to checkout without an address. Please set your address in your profile."
CONTACT_HINT = "The rider calls this number to find you."
PICKUP_CONTACT_HINT = "The store calls this number when your order is ready."
STORE_REQUIRED = "Pickup store required"


class DeliveryDetails(rx.State, mixin=True):
    # The page's fields and choices are the browser's (components.ui.browser_owned): the server
    # replaces what they show only by bumping these (a load; a choice it did not take).
    fields_version: int = 0
    choice_version: int = 0

    addresses: list[AddressOption] = []
    address_id: str = ""
    address_form_open: bool = False
    saving_address: bool = False
    address_form_version: int = 0
    # Problems with the address form's fields, by the form's field names (region, gps, ...).
    address_errors: dict[str, str] = {}

    contact_phone: str = ""
    contact_phone_error: str = ""
    _contact_owner: str = ""  # the account contact_phone was filled in for

    fixing: bool = False

    # --- addresses -------------------------------------------------------------------------------

    def _load_addresses(self, user: User, select: str = "") -> None:
        with session_scope() as session:
            addresses = user_service.list_addresses(session, user)
        self.addresses = [address_option(a) for a in addresses]
        ids = [a.id for a in self.addresses]
        if select in ids:
            self.address_id = select
            self.choice_version += 1  # the new address is the one chosen now
        elif self.address_id not in ids:
            self.address_id = ids[0] if ids else ""  # the default comes first
            self.choice_version += 1
        self.address_form_open = self.address_form_open and bool(ids) or not ids

    @rx.event
    def set_address(self, address_id: str):
        if not self.busy and address_id in [a.id for a in self.addresses]:
            self.address_id = address_id
        else:
            self.choice_version += 1

    @rx.event
    def open_address_form(self):
        self.address_form_open = True

    @rx.event
    def close_address_form(self):
        self.address_form_open = not self.addresses  # with no address the form stays
        self.address_errors = {}

    def _address_refused(self, exc: ServiceError, place_after: bool, blank: bool):
        """Each refused field's message under its field; one toast says what to do."""
        self.address_errors = {FIELD_OF.get(name, name): messages[0] for name, messages in exc.fields.items()
                               if messages}
        if place_after and blank:  # "Place order" with the address still to fill in
            return toast(("Address Required", ADDRESS_REQUIRED, "error"))
        return toast(("Check the address", exc.detail, "error"))

    def _address_added(self, place_after: bool):
        self.address_errors = {}
        forget = forget_drafts(CHECKOUT_ADDRESS)  # what the form kept of its typing: saved now
        if place_after:  # "Place order" pressed with the form filled in: press it again
            return [forget, rx.call_script(f"document.getElementById('{PLACE_FORM_ID}')?.requestSubmit()")]
        return [forget, toast(("Address added", None, "success"))]

    @user_event
    def add_address(self, user: User, form: dict):
        """'Add Address' in the checkout's Ghanaian form (region, GhanaPost GPS address, landmark,
        city or town; country Ghana), stored in the address's own fields."""
        data = {**form_fields(form, GHANA_FIELDS), "is_default": form_checked(form, "is_default")}
        place_after = form_text(form, "place_after") == "1"

        def add() -> None:
            with write_session() as session:
                new_id = user_service.add_ghana_address(session, user, data).id
            self.address_form_open = False
            self._load_addresses(user, select=new_id)
            self.address_form_version += 1

        return busy_call(self, "saving_address", add, failure=("Error", "Could not add address."),
                         on_refusal=lambda exc: self._address_refused(
                             exc, place_after, not any(data[name].strip() for name in GHANA_FIELDS)),
                         then=lambda _none: self._address_added(place_after))

    def _address_problem(self):
        """No address chosen for home delivery: save the one in the form (then place), or ask for it."""
        if self.address_id:
            return None
        if self.address_form_open:
            return SAVE_THEN_PLACE
        self.address_form_open = True
        return toast(("Address Required", ADDRESS_REQUIRED, "error"))

    # --- the contact phone ---------------------------------------------------------------------

    def _prefill_contact(self, account: User) -> None:
        """The account's number, the Ghanaian way, unless the shopper typed one already (in this
        tab, for this account: another account signing in here starts from its own number)."""
        if self._contact_owner != account.id:
            self._contact_owner, self.contact_phone = account.id, ""
        if not self.contact_phone:
            self.contact_phone = phones.display_phone(phones.ghanaian_number(account.phonenumber))

    @rx.event
    def set_contact_phone(self, value: str):
        """The number after a pause in typing (the field is the browser's: nothing is sent back)."""
        self.contact_phone = str(value or "")[:20]
        self.contact_phone_error = ""

    @rx.event
    def check_contact_phone(self, value: str):
        """On leaving the field (written the usual way by the browser): say at once when the
        number cannot be called in Ghana."""
        self.contact_phone = str(value or "")[:20]
        self.contact_phone_error = ""
        if self.contact_phone.strip():
            self._contact_problem()

    def _contact_problem(self):
        """The contact phone's problem (also checked by the server), shown under the field."""
        try:
            phones.normalise_phone(self.contact_phone)
        except ValidationFailed as exc:
            self.contact_phone_error = (
                exc.detail if self.contact_phone.strip() else "Enter a phone number the rider can call."
            )
            return toast(("Contact phone required", self.contact_phone_error, "error"))
        self.contact_phone_error = ""
        return None

    # --- lines short of stock ------------------------------------------------------------------

    def _stock_problem(self):
        withdrawn = [line for line in self.lines if line.withdrawn]
        if withdrawn:  # taken off sale: not a matter of stock (the spec's "Checkout Error" with the detail)
            return toast(("Checkout Error", cart_service.remove_to_check_out(withdrawn[0].name), "error"))
        short = [line for line in self.lines if line.short]
        if not short:
            return None
        return toast(("Not enough stock", f"{short[0].name}: {short[0].stock_text}. "
                      "Change or remove the marked line first.", "error"))

    @user_event
    def fix_line(self, user: User, line_id: str):
        """A short line's one-tap fix: what is left, or removed when nothing is; then re-priced."""
        if self.busy or not any(line.id == line_id for line in self.lines):
            return None

        def fix() -> str:
            with write_session() as session:
                kept = cart_service.fit_to_stock(session, user, line_id)
            self._requote(user)
            return "Quantity updated successfully!" if kept is not None else "Item removed successfully!"

        return busy_call(self, "fixing", fix, success=lambda text: (text, None),
                         failure=("Error", "Failed to update quantity. Please try again."),
                         on_refusal=lambda _exc: self._requote(user))


class MobileMoneyNumber(rx.State, mixin=True):
    """The number mobile money is paid from, and its network: guessed from the number until the
    shopper picks one."""

    network: str = "mtn"
    network_picked: bool = False  # the shopper chose the network: the number no longer decides it
    phone: str = ""
    phone_error: str = ""
    network_version: int = 0  # bumped when the number's guess changes the network shown

    @rx.event
    def set_network(self, network: str):
        if isinstance(network, str) and network in phones.NETWORKS:
            self.network = network
            self.network_picked = True

    def _take_phone(self, value: str) -> None:
        """The mobile money number as typed; the network follows it until the shopper picks one."""
        self.phone = str(value or "")[:20]
        guessed = network_for(self.phone, self.network, self.network_picked)
        if guessed != self.network:
            self.network = guessed
            self.network_version += 1  # the select shows the guess (the shopper has not picked)

    @rx.event
    def set_phone(self, value: str):
        """The number after a pause in typing: the network guessed from it. A refusal of this very
        number stays (the pause's event came after "Place order" had refused it: the error showed
        for under a second)."""
        before = self.phone
        self._take_phone(value)
        if self.phone != before:
            self.phone_error = ""

    @rx.event
    def check_phone(self, value: str):
        """On leaving the field (the browser has written the number the usual way): say at once
        when it cannot be a Ghanaian mobile number."""
        self._take_phone(value)
        self.phone_error = ""
        if self.phone.strip():
            try:
                phones.normalise_mobile(self.phone)
            except ValidationFailed as exc:
                self.phone_error = exc.detail
