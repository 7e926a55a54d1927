"""Admin Pickup Stores tab: the partner stores shoppers collect orders from (add, edit, hide)."""

from __future__ import annotations

import dataclasses

import reflex as rx

from ...db import session_scope, write_session
from ...models import PickupStore, User
from ...services import pickup_stores as store_service
from ..actions import busy_call, error_text, load_list
from ..forms import form_fields, show_form_values
from ..guards import admin_event
from .gate import admin_tab
from .listing import create_or_update

@dataclasses.dataclass
class StoreForm:
    """What the form edits of a store."""

    name: str = ""
    retailer: str = ""
    address: str = ""
    city: str = ""
    phone: str = ""
    opening_hours: str = ""


STORE_FIELDS = tuple(field.name for field in dataclasses.fields(StoreForm))


@dataclasses.dataclass
class StoreRow(StoreForm):
    """A store in the list: what the form edits, its id, and whether checkout offers it."""

    id: str = ""
    is_active: bool = True


def _row(store: PickupStore) -> StoreRow:
    return StoreRow(**{name: getattr(store, name) for name in ("id", *STORE_FIELDS, "is_active")})


@admin_tab("stores")
class AdminStoresState(rx.State):
    rows: list[StoreRow] = []
    editing_id: str = ""
    form: StoreForm = StoreForm()
    form_version: int = 0
    saving: bool = False
    loading: bool = False

    def _load_rows(self) -> None:
        with session_scope() as session:
            self.rows = [_row(s) for s in store_service.list_stores(session, include_inactive=True)]

    def _reset_form(self) -> None:
        """Empty the form, the browser's fields too (after a save, or Cancel)."""
        show_form_values(self, {"editing_id": "", "form": StoreForm()}, saved=True)

    @admin_event
    def load(self, admin: User):
        # A reload shows the restored (empty) form at once: remount it only if it was editing,
        # so what the admin types before this answer comes is kept.
        show_form_values(self, {"editing_id": "", "form": StoreForm()})
        return load_list(self, self._load_rows, "admin store list", loading=None, failed=None)

    @admin_event
    def edit(self, admin: User, store_id: str):
        row = next((r for r in self.rows if r.id == store_id), None)
        if row is None:
            return
        self.editing_id = row.id
        self.form = StoreForm(**{name: getattr(row, name) for name in STORE_FIELDS})
        self.form_version += 1

    @admin_event
    def cancel_edit(self, admin: User):
        self._reset_form()

    @admin_event
    def save(self, admin: User, form_data: dict):
        data = form_fields(form_data, STORE_FIELDS)
        editing = self.editing_id

        def save() -> None:
            create_or_update(admin, editing, data, store_service.create_store, store_service.update_store)
            self._reset_form()
            self._load_rows()

        return busy_call(
            self, "saving", save, success=("Store updated" if editing else "Store added", data["name"].strip()),
            failure=("Error", "Could not save the store."), describe=error_text,
        )

    @admin_event
    def set_active(self, admin: User, store_id: str, active: bool):
        def change() -> str:
            with write_session() as session:
                name = store_service.update_store(session, admin, store_id, {"is_active": bool(active)}).name
                waiting = 0 if active else len(store_service.open_orders(session, store_id))
            self._load_rows()
            # Hidden with orders still to collect there: each is flagged in the Orders tab.
            return name + (f". {waiting} order{'s' if waiting > 1 else ''} still to collect there "
                           f"{'are' if waiting > 1 else 'is'} flagged in Orders." if waiting else "")

        shown = ("Store shown at checkout", "Store hidden from checkout")[0 if active else 1]
        return busy_call(self, None, change, success=lambda text: (shown, text),
                         failure=("Error", "Could not change the store."))
