"""The profile page (/profile): personal info, photo and saved addresses, through services.users.

Every handler is for a signed-in user (the token is checked on the server), and the services
allow a user to change only their own account, profile and addresses.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import reflex as rx

from ...db import session_scope, write_session
from ...models import User
from ...services import users as user_service
from ...config.settings import get_settings
from ..actions import busy_call, error_text, seq_number, toast
from ..forms import form_checked, form_fields, form_text, show_form_values
from ..guards import user_event
from .session import SessionState, per_user

PERSONAL_FIELDS = ("first_name", "last_name", "username", "email", "phonenumber", "date_of_birth", "gender")
ADDRESS_FIELDS = ("line1", "line2", "city", "state", "postal_code", "country")
PROFILE_UPDATED = "Your profile has been updated successfully."
UPDATE_FAILED = ("Update failed", "Could not update profile.")
AVATAR_UPLOAD_ID = "avatar-upload"
# The picker refuses bigger files before they are sent; the service checks again.
MAX_PHOTO_BYTES = get_settings().max_image_bytes
PHOTO_REJECTED = (
    f"Please choose an image file (PNG, JPEG, GIF or WebP) of at most {MAX_PHOTO_BYTES // (1024 * 1024)} MB."
)


def _tab_value(tab: object) -> str:
    return tab if tab in ("personal", "addresses", "data") else "personal"


@dataclasses.dataclass
class AddressView:
    id: str = ""
    line1: str = ""
    line2: str = ""
    city: str = ""
    state: str = ""
    postal_code: str = ""
    country: str = ""
    is_default: bool = False


def _save_photo(user: User, profile_id: str, data: bytes) -> None:
    """Runs in a worker thread: the picture is verified and re-encoded before the write lock is taken."""
    with write_session() as session:
        user_service.update_profile(session, user, profile_id, image=data)


def _save(user: User, changes: dict[str, Any]) -> None:
    """Runs in a worker thread. The current password's check is counted and committed, then run
    with no write lock held (argon2), then the change is written."""
    pending, prepared = None, None
    if changes.get("current_password"):  # else nothing to count or hash
        with write_session() as session:
            pending = user_service.count_change_check(session, user, user.id, changes)
        prepared = user_service.prepare_change(pending, changes) if pending else None
    with write_session() as session:
        user_service.update_user(session, user, user.id, changes, prepared)


@per_user
class ProfileState(rx.State):
    loaded: bool = False
    tab: str = "personal"

    first_name: str = ""
    last_name: str = ""
    username: str = ""
    email: str = ""
    phonenumber: str = ""
    date_of_birth: str = ""
    gender: str = ""
    bio: str = ""
    website: str = ""
    profile_image: str = ""
    addresses: list[AddressView] = []

    saving: bool = False
    adding: bool = False
    uploading: bool = False
    answered_tap: int = 0  # the last submit's number seen (components/optimistic.submit_tap)
    address_busy: str = ""  # id of the address being changed
    # Bumped whenever saved data replaces what the (uncontrolled) forms show.
    form_version: int = 0
    address_form_version: int = 0
    _profile_id: str = ""
    _photo: bytes = b""  # a picked photo on its way from the upload event to the background one

    @rx.var
    def initial(self) -> str:
        return (self.first_name or self.username or self.email or "U")[:1].upper()

    def _forget(self) -> None:
        self.loaded = False
        self.tab = "personal"
        self.first_name = self.last_name = self.username = self.email = ""
        self.phonenumber = self.date_of_birth = self.gender = self.bio = self.website = self.profile_image = ""
        self.addresses = []
        self._profile_id = ""
        self.saving = self.adding = self.uploading = False
        self.address_busy = ""
        self._photo = b""

    async def _refresh(self, user: User, *, saved: bool = False) -> None:
        """Re-read the account (SPEC §7: /users/me/ is refetched after every change); ``saved``:
        after the personal form's own save (see ``show_form_values``)."""
        with session_scope() as session:
            fresh = session.get(User, user.id) or user
            summary = user_service.user_summary(session, fresh)
        self._show(summary, saved=saved)
        session_state = await self.get_state(SessionState)
        session_state._remember(fresh)  # the header's greeting and menu follow a new name
        session_state.stored_user = json.dumps(summary)

    def _show(self, summary: dict[str, Any], *, saved: bool = False) -> None:
        profile = summary.get("profile") or {}
        self._profile_id = profile.get("id") or ""
        show_form_values(self, {**{name: summary.get(name) or "" for name in PERSONAL_FIELDS},
                                "bio": profile.get("bio") or "", "website": profile.get("website") or ""},
                         saved=saved)
        self.profile_image = profile.get("profile_image") or ""
        self.addresses = [
            AddressView(id=a["id"], is_default=bool(a["is_default"]), **{k: a.get(k) or "" for k in ADDRESS_FIELDS})
            for a in summary.get("addresses") or []
        ]
        self.loaded = True

    # --- events ------------------------------------------------------------------------------

    @user_event
    async def load(self, user: User):
        self.saving = self.adding = self.uploading = False
        self.address_busy = ""
        self.tab = _tab_value(self.router.url.query_parameters.get("tab", self.tab))  # ?tab=data: from /privacy
        async for update in busy_call(self, None, lambda: self._refresh(user), describe=lambda _exc: "",
                                      failure=("Error", "Could not load your profile.")):
            yield update

    @rx.event
    def set_tab(self, tab: str):
        self.tab = _tab_value(tab)

    @user_event
    async def save(self, user: User, form: dict, seq: Any = 0):
        """Save the personal details (``seq``: the tap; "Saving..." showed from it)."""
        self.answered_tap = max(self.answered_tap, seq_number(seq))
        changes: dict[str, Any] = form_fields(form, PERSONAL_FIELDS)
        changes["profile"] = {"bio": form_text(form, "bio"), "website": form_text(form, "website")}
        current_password = form_text(form, "current_password")
        if current_password:  # a new email or phone needs it (services.users.contact_change)
            changes["current_password"] = current_password[:256]

        async def save() -> None:
            await asyncio.to_thread(_save, user, changes)  # the event loop goes on through the hash
            await self._refresh(user, saved=True)

        async for update in busy_call(self, "saving", save, success=("Profile updated", PROFILE_UPDATED),
                                      failure=UPDATE_FAILED, describe=error_text):
            yield update

    @user_event
    async def upload_photo(self, user: User, files: list[rx.UploadFile]):
        """The picked file is read here (an upload event cannot run in the background); checking
        and re-encoding it runs in :meth:`save_photo`, without the state lock."""
        if self.uploading or not files:
            return None
        self._photo = await files[0].read(MAX_PHOTO_BYTES + 1)  # one byte over the limit is enough to refuse it
        return ProfileState.save_photo

    @user_event(background=True)
    async def save_photo(self, user: User):
        async with self:
            data, self._photo = self._photo, b""
            profile_id = self._profile_id

        async def save() -> None:
            await asyncio.to_thread(_save_photo, user, profile_id, data)
            async with self:
                await self._refresh(user)

        # A refusal reads e.g. "Upload a valid image. ..."
        async for update in busy_call(self, "uploading", save, success=("Profile updated", PROFILE_UPDATED),
                                      failure=UPDATE_FAILED):
            yield update

    @rx.event
    def photo_rejected(self, _rejected: list[dict]):
        """The file picker refused the file (not an image, or too large) before uploading it."""
        return toast(("Update failed", PHOTO_REJECTED, "error"))

    @user_event
    async def add_address(self, user: User, form: dict, seq: Any = 0):
        """Add an address (``seq``: the tap; "Adding..." showed from it)."""
        self.answered_tap = max(self.answered_tap, seq_number(seq))
        data: dict[str, Any] = form_fields(form, ADDRESS_FIELDS)
        data["is_default"] = form_checked(form, "is_default")

        async def add() -> None:
            with write_session() as session:
                user_service.add_address(session, user, data)
            await self._refresh(user)
            self.address_form_version += 1

        async for update in busy_call(self, "adding", add, success=("Address added", None),
                                      failure=("Error", "Could not add address."), describe=error_text):
            yield update

    @user_event
    def set_default(self, user: User, address_id: str):
        return self._address_call(
            address_id, lambda session: user_service.update_address(session, user, address_id, {"is_default": True}),
            user, ("Default address set", None), "Could not update address.",
        )

    @user_event
    def delete_address(self, user: User, address_id: str):
        return self._address_call(
            address_id, lambda session: user_service.delete_address(session, user, address_id),
            user, ("Address deleted", None), "Could not delete address.",
        )

    async def _address_call(self, address_id: str, change, user: User, success, fallback: str):
        """One saved address changes (``address_busy`` names it meanwhile), then the account is re-read."""

        async def run() -> None:
            with write_session() as session:
                change(session)
            await self._refresh(user)

        async for update in busy_call(self, "address_busy", run, busy=address_id, success=success,
                                      failure=("Error", fallback), describe=error_text):
            yield update
