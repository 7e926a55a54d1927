"""Admin Pickup Stores tab: the partner stores shoppers collect orders from (add, edit, hide)."""

from __future__ import annotations

import dataclasses
import logging

import reflex as rx

from ..db import session_scope, write_session
from ..models import PickupStore, User
from ..services import ServiceError
from ..services import pickup_stores as store_service
from .admin import NotAdmin, require_admin
from .profile import error_text

log = logging.getLogger("discount_deals.admin")

STORE_FIELDS = ("name", "retailer", "address", "city", "phone", "opening_hours")


@dataclasses.dataclass
class StoreRow:
    id: str = ""
    name: str = ""
    retailer: str = ""
    address: str = ""
    city: str = ""
    phone: str = ""
    opening_hours: str = ""
    is_active: bool = True


@dataclasses.dataclass
class StoreForm:
    name: str = ""
    retailer: str = ""
    address: str = ""
    city: str = ""
    phone: str = ""
    opening_hours: str = ""


def _row(store: PickupStore) -> StoreRow:
    return StoreRow(**{name: getattr(store, name) for name in ("id", *STORE_FIELDS, "is_active")})


class AdminStoresState(rx.State):
    rows: list[StoreRow] = []
    editing_id: str = ""
    form: StoreForm = StoreForm()
    form_version: int = 0
    saving: bool = False
    loading: bool = False

    def _load_rows(self, admin: User) -> None:
        with session_scope() as session:
            self.rows = [_row(s) for s in store_service.list_stores(session, include_inactive=True)]

    def _reset_form(self) -> None:
        self.editing_id = ""
        self.form = StoreForm()
        self.form_version += 1

    @rx.event
    async def load(self):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        self._reset_form()
        self._load_rows(admin)

    @rx.event
    async def edit(self, store_id: str):
        try:
            await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        row = next((r for r in self.rows if r.id == store_id), None)
        if row is None:
            return
        self.editing_id = row.id
        self.form = StoreForm(**{name: getattr(row, name) for name in STORE_FIELDS})
        self.form_version += 1

    @rx.event
    def cancel_edit(self):
        self._reset_form()

    @rx.event
    async def save(self, form_data: dict):
        if self.saving:
            return
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            yield refused.redirect
            return
        data = {name: form_data.get(name) if isinstance(form_data.get(name), str) else "" for name in STORE_FIELDS}
        self.saving = True
        yield
        try:
            with write_session() as session:
                if self.editing_id:
                    store_service.update_store(session, admin, self.editing_id, data)
                else:
                    store_service.create_store(session, admin, data)
            created = not self.editing_id
            self._reset_form()
            self._load_rows(admin)
            yield rx.toast.success("Store added" if created else "Store updated", description=data["name"].strip())
        except ServiceError as exc:
            yield rx.toast.error("Error", description=error_text(exc))
        except Exception:
            log.exception("pickup store save failed")
            yield rx.toast.error("Error", description="Could not save the store.")
        finally:
            self.saving = False

    @rx.event
    async def set_active(self, store_id: str, active: bool):
        try:
            admin = await require_admin(self)
        except NotAdmin as refused:
            return refused.redirect
        try:
            with write_session() as session:
                store = store_service.update_store(session, admin, store_id, {"is_active": bool(active)})
                name = store.name
        except ServiceError as exc:
            return rx.toast.error("Error", description=exc.detail)
        self._load_rows(admin)
        if active:
            return rx.toast.success("Store shown at checkout", description=name)
        return rx.toast.success("Store hidden from checkout", description=name)
